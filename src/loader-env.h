/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Environment variables that load or run code before the in-sandbox scan
 * (issue 18, item 6). The scan runs inside the interpreter, after the
 * dynamic loader and the interpreter's start-up: a variable that makes
 * either load a file of the program's choosing runs code the scan never
 * sees, and the verdict then says "pass" for code `check` refuses. Such
 * variables need the profile's [env] allow_loader. Pure: no environment.
 */
#pragma once

#include "common.h"

/*
 * Does "VAR=VALUE" make the loader, the C library or the interpreter load
 * or run code before the scan? python_reads_env: the interpreter's flags do
 * not make it ignore PYTHON* variables (see acs_python_flags_ignore_env).
 */
bool acs_env_runs_code(const char *kv, bool python_reads_env);
/* Do these interpreter flags make python3 ignore PYTHON* variables (-I or -E)? */
bool acs_python_flags_ignore_env(char *const *flags);
