/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `acs-launch bench`: one-shot start-up compared, in the same run and in
 * interleaved order, with bare `python3 -I -S` and with an equivalent
 * `bwrap --unshare-all` command. Reports medians and ratios: absolute times
 * drift on shared machines, ratios hold.
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "bench.h"
#include "supervise.h"

extern char **environ;

typedef struct bench_case {
        const char *name;
        char *argv[32];
        double *samples;
        size_t n;
        bool broken;
} bench_case;

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

/* Wall time of one run of argv with stdout/stderr to /dev/null; < 0 on failure. */
static double time_once(char *const argv[])
{
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
        double t0 = acs_now_ms();
        pid_t pid;
        int r = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        if (r != 0)
                return -1;
        int st;
        while (waitpid(pid, &st, 0) < 0)
                if (errno != EINTR)
                        return -1;
        double dt = acs_now_ms() - t0;
        return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? dt : -1;
}

static int write_hello(char *path, size_t len)
{
        snprintf(path, len, "/tmp/acs-bench-%d.py", (int)getpid());
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                return -errno;
        static const char src[] = "print('hello')\n";
        ssize_t n = write(fd, src, sizeof src - 1);
        close(fd);
        return n == (ssize_t)(sizeof src - 1) ? 0 : -EIO;
}

int acs_cmd_bench(const acs_options *o)
{
        char hello[64], self[4096];
        unsigned runs = 30;
        if (acs_self_exe(self, sizeof self) < 0) {
                acs_log(0, "bench: cannot find myself");
                return 125;
        }
        if (write_hello(hello, sizeof hello) < 0) {
                acs_log(0, "bench: cannot write %s", hello);
                return 125;
        }
        const char *py = ACS_PYTHON;
        bench_case cases[] = {
                { .name = "python3 -I -S hello.py", .argv = { (char *)py, "-I", "-S", hello, NULL } },
                { .name = "acs-launch --profile unsafe-python hello.py",
                  .argv = { self, "--profile", "unsafe-python", "-q", "--", hello, NULL } },
                { .name = "acs-launch --profile default hello.py (scan)",
                  .argv = { self, "--profile", "default", "-q", "--", hello, NULL } },
                { .name = "unshare -Urmnpfiu --mount-proc hello.py",
                  .argv = { "/usr/bin/unshare", "-Urmnpfiu", "--mount-proc", (char *)py, "-I", "-S", hello, NULL } },
                { .name = "bwrap --unshare-all (same root) hello.py",
                  .argv = { "/usr/bin/bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/usr", "/usr",
                    "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink",
                    "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
                    "--ro-bind", hello, hello, (char *)py, "-I", "-S", hello, NULL } },
        };
        size_t nc = ELEMENTSOF(cases);
        struct stat st;
        if (stat("/usr/bin/bwrap", &st) < 0)
                cases[--nc].broken = true;
        if (stat("/usr/bin/unshare", &st) < 0)
                cases[nc - 2].broken = true;
        for (size_t c = 0; c < nc; c++)
                if (!(cases[c].samples = calloc(runs, sizeof(double))))
                        return 125;
        /* warm up, then interleave so drift hits every case alike */
        for (size_t c = 0; c < nc; c++)
                for (int w = 0; w < 3; w++)
                        if (time_once(cases[c].argv) < 0)
                                cases[c].broken = true;
        for (unsigned i = 0; i < runs; i++)
                for (size_t c = 0; c < nc; c++) {
                        if (cases[c].broken)
                                continue;
                        double t = time_once(cases[c].argv);
                        if (t < 0)
                                cases[c].broken = true;
                        else
                                cases[c].samples[cases[c].n++] = t;
                }
        unlink(hello);

        double base = 0;
        if (o->json)
                printf("{\"runs\": %u, \"cases\": [", runs);
        else
                printf("%-48s %10s %10s %8s %9s\n", "command", "median ms", "p90 ms", "ratio", "+ms");
        for (size_t c = 0; c < nc; c++) {
                bench_case *b = &cases[c];
                double med = -1, p90 = -1;
                if (!b->broken && b->n) {
                        qsort(b->samples, b->n, sizeof(double), cmp_double);
                        med = b->samples[b->n / 2];
                        p90 = b->samples[(b->n * 9) / 10 < b->n ? (b->n * 9) / 10 : b->n - 1];
                }
                if (c == 0)
                        base = med;
                double ratio = (base > 0 && med > 0) ? med / base : -1;
                if (o->json)
                        printf("%s{\"command\": \"%s\", \"median_ms\": %.3f, \"p90_ms\": %.3f, \"ratio\": %.3f, "
                               "\"over_bare_ms\": %.3f, \"ok\": %s}",
                               c ? ", " : "", b->name, med, p90, ratio, med - base, b->broken ? "false" : "true");
                else if (b->broken)
                        printf("%-48s %10s\n", b->name, "failed");
                else
                        /* ratios mislead alone: machines differ 2.5x in speed */
                        printf("%-48s %10.2f %10.2f %7.2fx %+8.2f\n", b->name, med, p90, ratio, med - base);
                free(b->samples);
        }
        if (o->json)
                printf("]}\n");
        return 0;
}
