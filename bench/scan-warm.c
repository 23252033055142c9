/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/scan-warm PROFILE FILE [N]: the warm scan time. Loads the module and
 * the embedded interpreter once (the first scan, timed separately), then
 * scans FILE N times in the same process and prints, in milliseconds,
 * `first_ms median_ms p95_ms findings cpu_median_ms` (the last is thread CPU
 * time, which a busy machine disturbs less than wall time).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "profile.h"
#include "scan.h"

static double clock_ms(clockid_t id)
{
        struct timespec ts;
        clock_gettime(id, &ts);
        return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
#define now_ms() clock_ms(CLOCK_MONOTONIC)
#define cpu_ms() clock_ms(CLOCK_THREAD_CPUTIME_ID)

static int cmp(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}

static void clear(acs_scan_result *r)
{
        for (size_t i = 0; i < r->n_findings; i++) {
                free(r->findings[i].rule);
                free(r->findings[i].name);
                free(r->findings[i].message);
        }
        free(r->findings);
        *r = (acs_scan_result){0};
}

int main(int argc, char **argv)
{
        acs_error err = {0};
        acs_profile *p = NULL;
        static char buf[1 << 20];
        if (argc < 3) {
                fprintf(stderr, "usage: scan-warm PROFILE FILE [N]\n");
                return 125;
        }
        int n = argc > 3 ? atoi(argv[3]) : 2000;
        int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
        ssize_t len = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
        if (len < 0 || acs_profile_load(argv[1], &p, &err) < 0) {
                fprintf(stderr, "scan-warm: cannot load %s or %s: %s\n", argv[2], argv[1], err.msg);
                return 125;
        }
        acs_scan_result r = {0};
        double t0 = now_ms();
        if (acs_scan_source(p, buf, len, argv[2], false, &r, &err) < 0) {
                fprintf(stderr, "scan-warm: %s\n", err.msg);
                return 125;
        }
        double first = now_ms() - t0;
        size_t findings = r.n_findings;
        clear(&r);
        double *t = calloc(n, sizeof *t), *c = calloc(n, sizeof *c);
        for (int i = 0; i < n; i++) {
                double c0 = cpu_ms();
                t0 = now_ms();
                acs_scan_source(p, buf, len, argv[2], false, &r, &err);
                t[i] = now_ms() - t0;
                c[i] = cpu_ms() - c0;
                clear(&r);
        }
        qsort(t, n, sizeof *t, cmp);
        qsort(c, n, sizeof *c, cmp);
        printf("%.3f %.4f %.4f %zu %.4f\n", first, t[n / 2], t[n * 95 / 100], findings, c[n / 2]);
        free(c);
        acs_profile_free(p);
        free(t);
        return 0;
}
