/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sandbox's total CPU time (see cputime.h). */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "common.h"
#include "cputime.h"

int acs_proc_stat_cpu_ticks(const char *text, uint64_t *ret)
{
        /* "pid (comm) state ppid ..." -- comm may hold anything, even ") " */
        const char *p = text ? strrchr(text, ')') : NULL;
        unsigned long long f[15];
        if (!p)
                return -EINVAL;
        /* after ')': state(3) ppid pgrp session tty tpgid flags minflt cminflt
         * majflt cmajflt utime(14) stime cutime cstime(17) */
        if (sscanf(p + 1, " %*c %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
                   &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10], &f[11],
                   &f[12], &f[13]) != 14)
                return -EINVAL;
        *ret = f[10] + f[11] + f[12] + f[13];
        return 0;
}

size_t acs_parse_children(const char *text, void (*add)(pid_t pid, void *ctx), void *ctx)
{
        size_t n = 0;
        for (const char *p = text; p && *p;) {
                char *end;
                long v = strtol(p, &end, 10);
                if (end == p)
                        break;
                if (v > 0 && v <= INT32_MAX) {
                        add((pid_t)v, ctx);
                        n++;
                }
                p = end;
        }
        return n;
}

int64_t acs_cpu_next_sample_ms(int64_t limit_us, int64_t used_us, int ncpu)
{
        int64_t left = limit_us - used_us;
        int64_t ms = left / 1000 / (ncpu > 0 ? ncpu : 1);
        return ms < 5 ? 5 : ms > 1000 ? 1000 : ms;
}

static int64_t cgroup_cpu_us(int cg_fd)
{
        char buf[1024];
        int r = acs_read_small_at(cg_fd, "cpu.stat", buf, sizeof buf);
        if (r < 0)
                return r;
        long long v = acs_cgroup_keyed(buf, "usage_usec");
        return v < 0 ? -ENOENT : v;
}

/* The tree walk: a bounded list of pids still to visit (the sandbox's
 * processes are bounded by its own limits; past the bound we count less,
 * never crash). */
typedef struct walk {
        pid_t todo[1024];
        size_t n;
} walk;

static void push(pid_t pid, void *ctx)
{
        walk *w = ctx;
        if (w->n < ELEMENTSOF(w->todo))
                w->todo[w->n++] = pid;
}

static void children_of(pid_t pid, walk *w)
{
        char path[64], buf[4096];
        snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
        _cleanup_close_ int tfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (tfd < 0)
                return;
        /* one children file per thread: a thread's children are its own */
        DIR *d = fdopendir(dup(tfd));
        if (!d)
                return;
        for (struct dirent *e; (e = readdir(d));) {
                if (e->d_name[0] == '.')
                        continue;
                char child[300];
                snprintf(child, sizeof child, "%s/children", e->d_name);
                if (acs_read_small_at(tfd, child, buf, sizeof buf) > 0)
                        acs_parse_children(buf, push, w);
        }
        closedir(d);
}

static int64_t tree_cpu_us(pid_t init)
{
        walk w = { .n = 0 };
        char path[64], buf[1024];
        uint64_t ticks = 0;
        long hz = sysconf(_SC_CLK_TCK);
        bool any = false;

        push(init, &w);
        for (size_t i = 0; i < w.n; i++) {
                uint64_t t;
                snprintf(path, sizeof path, "/proc/%d/stat", (int)w.todo[i]);
                if (acs_read_small_at(AT_FDCWD, path, buf, sizeof buf) <= 0 || acs_proc_stat_cpu_ticks(buf, &t) < 0)
                        continue; /* gone meanwhile: its reaper's cutime has it */
                any = true;
                ticks += t;
                children_of(w.todo[i], &w);
        }
        if (!any)
                return -ESRCH;
        return (int64_t)(ticks * 1000000 / (uint64_t)(hz > 0 ? hz : 100));
}

int acs_sandbox_cpu_us(int cg_fd, pid_t init, int64_t *ret)
{
        int64_t v = cg_fd >= 0 ? cgroup_cpu_us(cg_fd) : tree_cpu_us(init);
        if (v < 0)
                return (int)v;
        *ret = v;
        return 0;
}
