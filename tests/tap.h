/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Minimal TAP producer for C unit tests (driven by automake's tap-driver.sh). */
#pragma once

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline void tap_ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void tap_ok(int cond, const char *fmt, ...)
{
        va_list ap;
        printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        putchar('\n');
        if (!cond)
                tap_failed++;
        fflush(stdout);
}

#define ok(cond, ...) tap_ok(!!(cond), __VA_ARGS__)

/* A result not checked here, with the reason ("ok N # SKIP reason"): counted
 * against the plan, never a silent pass. */
static inline void tap_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void tap_skip(const char *fmt, ...)
{
        va_list ap;
        printf("ok %d # SKIP ", ++tap_n);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        putchar('\n');
        fflush(stdout);
}
#define skip(...) tap_skip(__VA_ARGS__)
#define is_int(got, want, name)                                                             \
        do {                                                                                \
                long long _g = (long long)(got), _w = (long long)(want);                    \
                tap_ok(_g == _w, "%s", name);                                               \
                if (_g != _w)                                                               \
                        printf("#   got %lld, want %lld\n", _g, _w);                        \
        } while (0)
#define is_str(got, want, name)                                                             \
        do {                                                                                \
                const char *_g = (got), *_w = (want);                                       \
                int _c = (_g && _w) ? strcmp(_g, _w) == 0 : _g == _w;                       \
                tap_ok(_c, "%s", name);                                                     \
                if (!_c)                                                                    \
                        printf("#   got \"%s\", want \"%s\"\n", _g ? _g : "(null)",         \
                               _w ? _w : "(null)");                                         \
        } while (0)
#define diag(...) (printf("# "), printf(__VA_ARGS__), putchar('\n'))

static inline int tap_done(void)
{
        printf("1..%d\n", tap_n);
        return tap_failed ? 1 : 0;
}
