/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Inside the scanners only (acs-scan.so, acs-scan-ext.so): the rule walker
 * over the _ast objects of a parse, and the scan around it (scan-core.c). */
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

/* Module-local error helper (the modules do not link libacs.a). */
int acs_scan_error(acs_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Append one finding (copies the strings). -ENOMEM. */
int acs_scan_add_finding(acs_scan_result *r, const char *rule, const char *name, int line, int col,
                         const char *message);
void acs_scan_result_clear(acs_scan_result *r);

/* scan-core.c: a whole scan (prescan, parse, walk, verdict) with the GIL held. */
int acs_scan_locked(const acs_profile *p, const char *src, size_t len, const char *filename,
                    bool ignore_cookie, acs_scan_result *ret, acs_error *err);
/* The checks that need no parser (mode off, max_source, NUL bytes): 1 when
 * they complete the result, 0 when the parse must follow, -ENOMEM. */
int acs_scan_prescan(const acs_profile *p, const char *src, size_t len, acs_scan_result *ret);
/* Verdict from the findings and the profile's mode; ms since t0. */
void acs_scan_finish(const acs_profile *p, acs_scan_result *ret, double t0);
double acs_scan_now_ms(void);

/* scan-py.c */
void acs_scan_promote_libpython(void);
