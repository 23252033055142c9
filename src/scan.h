/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Layer 1: the AST scan. libpython lives only in the dlopen'ed scan module. */
#pragma once

#include "cli.h"
#include "profile.h"
#include "report.h"

/* In-process scan (check, MCP inspect_code_security). */
int acs_scan_source(const acs_profile *p, const char *src, size_t len, const char *filename,
                    acs_scan_result *ret, acs_error *err);
/* In the sandbox child, before pivot_root: load the module while its file is visible. */
int acs_scan_prepare(acs_error *err);
/* In the sandboxed program process after seccomp, instead of execve: scan, report the
 * verdict as one JSON line on report_fd, then run the program in the same interpreter. */
_noreturn_ void acs_scan_exec(const acs_profile *p, char *const argv[], const char *src, size_t len,
                              const char *filename, int report_fd);
int acs_scan_result_from_json(const char *line, acs_scan_result *ret);
/* `acs-launch check`: returns the exit status. */
int acs_cmd_check(const acs_options *o);
