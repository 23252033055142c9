/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Layer 1, the AST security scan (security-model.md). libpython lives only in
 * the separately built module acs-scan.so; this side finds and dlopens it, so
 * runs that never scan never load libpython.
 *
 * Module search order (acs-scan.so and acs-scan-ext.so alike):
 * $ACS_SCAN_MODULE_DIR, the uninstalled build's .libs (when /proc/self/exe
 * lies in the build tree), then $(pkglibdir).
 */
#pragma once

#include <stdio.h>

#include "cli.h"
#include "profile.h"
#include "report.h"

/*
 * Scan src in this process. The first call loads the module and initialises
 * an isolated embedded interpreter, once per process. Fills ret (verdict
 * from the profile's mode, findings, ms). command: src is code given as text
 * (python3 -c), whose coding cookie python3 ignores; otherwise a file's
 * cookie decodes it as python3 would. Returns < 0 only when the scan could
 * not be performed (module missing, interpreter failed); a syntax error or a
 * too large source is a finding. Safe to call from several threads (the
 * module takes the GIL). No limits: for code from outside, see below.
 */
int acs_scan_source(const acs_profile *p, const char *src, size_t len, const char *filename, bool command,
                    acs_scan_result *ret, acs_error *err);

/*
 * The same scan for code from outside (check, MCP inspect_code_security), in
 * a child process under CPU, address-space and wall-clock limits taken from
 * the profile (src/scan-bound.c). A scan stopped by a limit is a result with
 * one finding of rule scan-limit and verdict reject, in every scan mode.
 */
int acs_scan_bounded(const acs_profile *p, const char *src, size_t len, const char *filename, bool command,
                     acs_scan_result *ret, acs_error *err);

/*
 * The run path scans inside the sandbox, in the profile's python3 itself
 * (one interpreter start-up per run): the launcher runs
 *   python3 FLAGS... -c BOOT (SCRIPT | CODE) ARGS...
 * where BOOT loads acs-scan-ext.so from module_fd and hands it policy_fd,
 * one end of a socket pair: the launcher has written the policy
 * (acs_scan_policy_pack) into the other end and shut its writing side; the
 * module reads it, scans, and writes the verdict line back before any of the
 * program runs (see src/scan-ext.c).
 *
 * acs_scan_ext_open: the module file, O_RDONLY | O_CLOEXEC, fd > 2.
 * acs_scan_boot: BOOT for those fd numbers (they are the same in the
 * sandbox); returns what snprintf returns.
 */
int acs_scan_ext_open(acs_error *err);
int acs_scan_boot(char *buf, size_t size, int policy_fd, int module_fd);
/*
 * Warm mode (a pooled sandbox, issue 14): python3 FLAGS... -c BOOT, where
 * BOOT loads the module and calls warm(fd, module_fd), which initialises the
 * parser and then blocks on fd until the launcher writes a u32 (host order)
 * policy length, the policy, and the code to EOF: then scan, verdict, run,
 * exactly as above for  -c CODE. session: session(fd, module_fd), which
 * takes one call after another in the same __main__ (scan-ext.c).
 */
int acs_scan_boot_warm(char *buf, size_t size, int fd, int module_fd, bool session);

/*
 * Parse the verdict line from the scan socket:
 *   {"verdict":"reject","ms":0.12,"findings":[{"rule":..,"name":..,"line":..,"col":..,"message":..}]}
 * Names and messages are clipped and escaped as the scanner does
 * (scan-text.h), whatever the line holds. Returns 0, or -EINVAL / -ENOMEM.
 * ret is filled only on success.
 */
int acs_scan_result_from_json(const char *line, acs_scan_result *ret);

/* acs_verdict_to_string() and acs_scan_result_to_json() are in report.h */

/* The scan itself failed to find its module etc.: exit status 125. */

/*
 * acs-launch check [--profile P] [--json] FILE|-
 * FILE must be a regular file (a FIFO or a device is an error, not a wait);
 * the scan is acs_scan_bounded's.
 * Prints "file:line:col: rule: message" lines on stdout (or, with --json, one
 * object {"schema":"acs-check/1","profile":..,"file":..,"scan":{..}}).
 * Returns the exit status: 0 pass (also warn and off), 126 refused, 125 error.
 */
int acs_cmd_check(const acs_options *o);
/* FILE:LINE:COL: RULE: MESSAGE, one line; a message that quotes a string of
 * the code with escapes or controls in it is printed escaped, never raw. */
void acs_scan_print_finding(FILE *out, const char *file, const acs_finding *f);
