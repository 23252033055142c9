/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

int acs_log_level = 1;

void acs_log(int level, const char *fmt, ...)
{
        if (level > acs_log_level)
                return;
        va_list ap;
        va_start(ap, fmt);
        fputs("acs-launch: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
}

void acs_trace_to(int fd, double t0_ms, const char *fmt, ...)
{
        char line[256];
        struct timespec ts;
        va_list ap;

        if (fd < 0)
                return;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        double now = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
        int n = snprintf(line, sizeof line - 1, "acs-launch: %8.3f ms  ", now - t0_ms);
        if (n < 0 || (size_t)n >= sizeof line - 1)
                return;
        va_start(ap, fmt);
        int k = vsnprintf(line + n, sizeof line - 1 - (size_t)n, fmt, ap);
        va_end(ap);
        if (k < 0)
                return;
        n = (size_t)(n + k) < sizeof line - 1 ? n + k : (int)sizeof line - 2;
        line[n++] = '\n';
        (void)!write(fd, line, (size_t)n); /* a trace line lost is not worth failing for */
}
