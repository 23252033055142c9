/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The scan without an interpreter of its own: the checks that need no
 * parser, and a whole scan with the GIL held (the top of the scan's layers,
 * doc/design.md; findings are scan-result.c's). Linked into both scanners:
 * acs-scan.so (embedded libpython: check, MCP) and acs-scan-ext.so (loaded
 * into the profile's python3 inside the sandbox: the run path).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "scan-rules.h"
#include "scan-text.h"
#include "scan-walk.h"

double acs_scan_now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static bool has_finding(const acs_scan_result *r, const char *rule)
{
        for (size_t i = 0; i < r->n_findings; i++)
                if (strcmp(r->findings[i].rule, rule) == 0)
                        return true;
        return false;
}

/* Finish a result: verdict from the mode, time. A scan that stopped at a
 * limit did not see all of the code: refused in mode warn too. */
void acs_scan_finish(const acs_profile *p, acs_scan_result *ret, double t0)
{
        if (ret->n_findings == 0)
                ret->verdict = ACS_VERDICT_PASS;
        else
                ret->verdict = p->scan_mode == ACS_SCAN_WARN ? ACS_VERDICT_WARN : ACS_VERDICT_REJECT;
        if (has_finding(ret, R_LIMIT))
                ret->verdict = ACS_VERDICT_REJECT;
        ret->ms = acs_scan_now_ms() - t0;
}

/* Checks that need no parser. Returns 1 when the result is complete. */
int acs_scan_prescan(const acs_profile *p, const char *src, size_t len, acs_scan_result *ret)
{
        if (p->scan_mode == ACS_SCAN_OFF) {
                ret->verdict = ACS_VERDICT_SKIPPED;
                return 1;
        }
        if (p->max_source && len > p->max_source) {
                char msg[256];
                snprintf(msg, sizeof msg,
                         "the source is longer than max_source of profile %s (%zu > %llu bytes)",
                         p->name ? p->name : "?", len, (unsigned long long)p->max_source);
                return acs_scan_add_finding(ret, R_SIZE, "max_source", 1, 0, msg) < 0 ? -ENOMEM : 1;
        }
        const char *nul = memchr(src, '\0', len);
        if (nul) {
                int line = 1;
                for (const char *c = src; c < nul; c++)
                        line += *c == '\n';
                return acs_scan_add_finding(ret, R_SYNTAX, "syntax", line, 0,
                                            "source code cannot contain null bytes") < 0
                               ? -ENOMEM
                               : 1;
        }
        return 0;
}

/*
 * A scan that runs out of memory must not pass code it could not check: the
 * walker takes most failed lookups for "unknown" and goes on, and a failed
 * allocation deep in CPython may surface only as an exception that is
 * cleared. So while a scan runs, the interpreter's object and memory
 * allocators (the domains that need the GIL; the raw one may serve other
 * threads) go through wrappers that count failures, as tracemalloc wraps
 * them; a scan that saw one is refused with rule scan-limit. Module state,
 * guarded by the GIL: `hooked` counts nested or interleaved scans.
 */
static unsigned long alloc_failures;
static int hooked;
static PyMemAllocatorEx under_mem, under_obj;

static void *count_malloc(void *ctx, size_t n)
{
        PyMemAllocatorEx *a = ctx;
        void *p = a->malloc(a->ctx, n);
        alloc_failures += !p;
        return p;
}

static void *count_calloc(void *ctx, size_t nelem, size_t elsize)
{
        PyMemAllocatorEx *a = ctx;
        void *p = a->calloc(a->ctx, nelem, elsize);
        alloc_failures += !p;
        return p;
}

static void *count_realloc(void *ctx, void *ptr, size_t n)
{
        PyMemAllocatorEx *a = ctx;
        void *p = a->realloc(a->ctx, ptr, n);
        alloc_failures += !p;
        return p;
}

static void pass_free(void *ctx, void *ptr)
{
        PyMemAllocatorEx *a = ctx;
        a->free(a->ctx, ptr);
}

static void count_failures(bool on)
{
        if (on && hooked++ == 0) {
                PyMemAllocatorEx m = { &under_mem, count_malloc, count_calloc, count_realloc, pass_free };
                PyMemAllocatorEx o = { &under_obj, count_malloc, count_calloc, count_realloc, pass_free };
                PyMem_GetAllocator(PYMEM_DOMAIN_MEM, &under_mem);
                PyMem_GetAllocator(PYMEM_DOMAIN_OBJ, &under_obj);
                PyMem_SetAllocator(PYMEM_DOMAIN_MEM, &m);
                PyMem_SetAllocator(PYMEM_DOMAIN_OBJ, &o);
        } else if (!on && --hooked == 0) {
                PyMem_SetAllocator(PYMEM_DOMAIN_MEM, &under_mem);
                PyMem_SetAllocator(PYMEM_DOMAIN_OBJ, &under_obj);
        }
}

/* GIL held. */
int acs_scan_locked(const acs_profile *p, const char *src, size_t len, const char *filename,
                       bool ignore_cookie, acs_scan_result *ret, acs_error *err)
{
        double t0 = acs_scan_now_ms();
        *ret = (acs_scan_result){0};
        int r = acs_scan_prescan(p, src, len, ret);
        if (r < 0)
                return acs_scan_error(err, r, "out of memory");
        if (r == 0) {
                char *buf = malloc(len + 1);
                if (!buf)
                        return acs_scan_error(err, -ENOMEM, "out of memory");
                memcpy(buf, src, len);
                buf[len] = '\0';
                unsigned long failures = alloc_failures;
                count_failures(true);
                r = acs_scan_walk(p, buf, len, filename ? filename : "<string>", ignore_cookie, ret,
                                  err);
                count_failures(false);
                free(buf);
                if (r >= 0 && alloc_failures != failures && !has_finding(ret, R_LIMIT))
                        r = acs_scan_add_finding(ret, R_LIMIT, "memory", 1, 0,
                                                 "the scan ran out of memory; "
                                                 "it could not check all of the code");
                if (r < 0) {
                        acs_scan_result_clear(ret);
                        return r == -ENOMEM ? acs_scan_error(err, r, "out of memory while scanning") : r;
                }
        }
        if (p->scan_mode != ACS_SCAN_OFF)
                acs_scan_finish(p, ret, t0);
        return 0;
}

