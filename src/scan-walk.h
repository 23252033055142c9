/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Inside acs-scan.so only: the rule walker over the _ast objects of a parse. */
#pragma once

#include "profile.h"
#include "report.h"

/*
 * Parse src (NUL-terminated, len bytes) with PyCF_ONLY_AST and apply the
 * profile's rules. The caller holds the GIL. Appends findings to ret (which
 * the caller zeroed); a syntax error is a finding. Returns 0, or -ENOMEM /
 * -EIO (an unexpected Python error, described in err).
 */
int acs_scan_walk(const acs_profile *p, const char *src, size_t len, const char *filename,
                  bool ignore_cookie, acs_scan_result *ret, acs_error *err);

/* Forget cached type objects (before the interpreter is finalised). GIL held. */
void acs_scan_walk_reset(void);

/* Module-local error helper (the module does not link libacs.a). */
int acs_scan_error(acs_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Append one finding (copies the strings). -ENOMEM. */
int acs_scan_add_finding(acs_scan_result *r, const char *rule, const char *name, int line, int col,
                         const char *message);
void acs_scan_result_clear(acs_scan_result *r);

/* scan-py.c: a whole scan (prescan, parse, walk, verdict) with the GIL held. */
int acs_scan_locked(const acs_profile *p, const char *src, size_t len, const char *filename,
                    bool ignore_cookie, acs_scan_result *ret, acs_error *err);
void acs_scan_promote_libpython(void);

/* scan-exec.c: the run path (see acs_scan_exec in scan.h). */
_Noreturn void acs_scan_exec_impl(const acs_profile *p, char *const argv[], const char *src,
                                  size_t len, const char *filename, int report_fd);
