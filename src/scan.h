/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Layer 1, the AST security scan (security-model.md). libpython lives only in
 * the separately built module acs-scan.so; this side finds and dlopens it, so
 * runs that never scan never load libpython.
 *
 * Module search order: $ACS_SCAN_MODULE_DIR, the uninstalled build's .libs
 * (when /proc/self/exe lies in the build tree), then $(pkglibdir).
 */
#pragma once

#include "cli.h"
#include "profile.h"
#include "report.h"

/*
 * Scan src in this process (check, MCP inspect_code_security). The first call
 * loads the module and initialises an isolated embedded interpreter, once per
 * process. Fills ret (verdict from the profile's mode, findings, ms).
 * Returns < 0 only when the scan could not be performed (module missing,
 * interpreter failed); a syntax error or a too large source is a finding.
 * Safe to call from several threads (the module takes the GIL).
 */
int acs_scan_source(const acs_profile *p, const char *src, size_t len, const char *filename,
                    acs_scan_result *ret, acs_error *err);

/*
 * In the sandbox child, before pivot_root: dlopen the module (its file may not
 * be visible afterwards). Remembers the module for acs_scan_exec in this
 * process. Idempotent.
 */
int acs_scan_prepare(acs_error *err);

/*
 * In the sandboxed program process, after seccomp, in place of execve:
 * argv is the python3 command line execve would have run
 * (interpreter, flags..., FILE | -c CODE, args...). Initialise the embedded
 * interpreter from it exactly as python3 does (its own option parser, so
 * sys.argv, sys.flags, -I/-S, tracebacks and exit statuses are the real
 * ones), scan src (the program's source; filename names it in findings),
 * write the verdict and findings to report_fd as one JSON line (see
 * acs_scan_result_from_json) and close it. Then: verdict reject -> _exit(126)
 * without running anything of the program; pass/warn/skipped -> Py_RunMain
 * in that same interpreter and _exit with its status. Never returns.
 * Launcher-side failures (module missing, interpreter start-up failed) print
 * one line on stderr and _exit(125). Needs a process of its own (no CLONE_VM).
 */
_noreturn_ void acs_scan_exec(const acs_profile *p, char *const argv[], const char *src,
                              size_t len, const char *filename, int report_fd);

/*
 * Parse the JSON line written to report_fd:
 *   {"verdict":"reject","ms":0.12,"findings":[{"rule":..,"name":..,"line":..,"col":..,"message":..}]}
 * Returns 0, or -EINVAL / -ENOMEM. ret is filled only on success.
 */
int acs_scan_result_from_json(const char *line, acs_scan_result *ret);

/* acs_verdict_to_string() and acs_scan_result_to_json() are in report.h */

/* The scan itself failed to find its module etc.: exit status 125. */

/*
 * acs-launch check [--profile P] [--json] FILE|-
 * Prints "file:line:col: rule: message" lines on stdout (or, with --json, one
 * object {"schema":"acs-check/1","profile":..,"file":..,"scan":{..}}).
 * Returns the exit status: 0 pass (also warn and off), 126 refused, 125 error.
 */
int acs_cmd_check(const acs_options *o);
