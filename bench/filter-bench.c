/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Micro-benchmark: the cost of installing the seccomp filter, built at run
 * time with libseccomp versus the BPF generated at build time. Each sample
 * runs in a fresh forked child (filters stack and cannot be removed).
 * Usage: bench/filter-bench [N]   (prints medians in microseconds)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "filter-rules.h"
#include "filter.h"

static double now_us(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}

/* mode 0: baked BPF; 1: libseccomp build + seccomp_load; 2: install with one extra name (jump table in front of the baked BPF) */
static double sample(int mode)
{
        int p[2], st;
        double us = -1;
        pid_t pid;

        if (pipe(p) < 0)
                return -1;
        pid = fork();
        if (pid == 0) {
                char *extra[] = { (char *)"acct", NULL };
                acs_filter_opts o = { .net_none = true, .extra_deny = mode == 2 ? extra : NULL };
                acs_error err = { 0 };
                scmp_filter_ctx ctx = NULL;
                double t0, t1;
                int r;

                prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
                t0 = now_us();
                if (mode == 1) {
                        r = acs_filter_build(&o, &ctx, &err);
                        if (r >= 0)
                                r = seccomp_load(ctx);
                } else
                        r = acs_filter_install(&o, &err);
                t1 = now_us();
                us = r < 0 ? -1 : t1 - t0;
                if (write(p[1], &us, sizeof(us)) != sizeof(us))
                        _exit(1);
                _exit(0);
        }
        close(p[1]);
        if (read(p[0], &us, sizeof(us)) != sizeof(us))
                us = -1;
        close(p[0]);
        waitpid(pid, &st, 0);
        return us;
}

int main(int argc, char **argv)
{
        int n = argc > 1 ? atoi(argv[1]) : 300;
        static const char *names[] = { "baked BPF (prctl only)", "libseccomp build + load",
                                       "jump table + baked ([seccomp] deny = acct)" };
        double *v = calloc(n, sizeof(double));

        if (!v || n < 1)
                return 1;
        for (int mode = 0; mode < 3; mode++) {
                for (int i = 0; i < n; i++) {
                        v[i] = sample(mode);
                        if (v[i] < 0)
                                return 2;
                }
                qsort(v, n, sizeof(double), cmp);
                printf("%-36s median %7.1f us  p10 %7.1f  p90 %7.1f  (n=%d)\n", names[mode],
                       v[n / 2], v[n / 10], v[n * 9 / 10], n);
        }
        free(v);
        return 0;
}
