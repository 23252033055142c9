/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Table-driven tests of the text side of cgroup v2 (cgroup-parse.c) and of
 * the sandbox's CPU-time accounting (cputime.c). */
#include <errno.h>
#include <string.h>

#include "../tap.h"
#include "cgroup.h"
#include "common.h"
#include "cputime.h"

static void test_parse_self(void)
{
        static const struct {
                const char *text;
                int r;
                const char *path;
        } t[] = {
                { "0::/user.slice/user-1000.slice/user@1000.service/app.slice/run-1.scope\n", 0,
                  "/user.slice/user-1000.slice/user@1000.service/app.slice/run-1.scope" },
                { "9:name=systemd:/\n4:memory:/x\n0::/\n", 0, "/" },
                { "12:pids:/a\n0::/a/b", 0, "/a/b" }, /* no final newline */
                { "4:memory:/x\n1:cpu:/\n", -ENOENT, NULL },     /* cgroup v1 only */
                { "0::/a/../b\n", -ENOENT, NULL },               /* outside our cgroup namespace */
                { "0::/gone (deleted)\n", -ENOENT, NULL },
                { "0::\n", -ENOENT, NULL },
                { "", -ENOENT, NULL },
        };
        char buf[256];

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                int r = acs_cgroup_parse_self(t[i].text, buf, sizeof buf);
                is_int(r, t[i].r, t[i].text[0] ? t[i].text : "(empty)");
                if (r == 0)
                        is_str(buf, t[i].path, "  path");
        }
        is_int(acs_cgroup_parse_self("0::/abcdefgh\n", buf, 8), -ENAMETOOLONG, "parse_self: too long for the buffer");
}

static void test_parent_of(void)
{
        static const struct {
                const char *path, *parent;
        } t[] = {
                { "/user.slice/run-1.scope", "/user.slice/run-1.scope" },
                { "/user.slice/run-1.scope/", "/user.slice/run-1.scope" },
                { "/user.slice/run-1.scope/acs-launcher", "/user.slice/run-1.scope" },
                { "/acs-launcher", NULL },     /* its parent would be the root */
                { "/", NULL },
                { "/a/acs-launcher-x", "/a/acs-launcher-x" },
        };
        char buf[256];

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                const char *p = acs_cgroup_parent_of(t[i].path, buf, sizeof buf);
                if (t[i].parent)
                        is_str(p, t[i].parent, t[i].path);
                else
                        ok(p == NULL, "parent_of %s: none", t[i].path);
        }
}

static void test_lists(void)
{
        ok(acs_cgroup_has_controller("cpuset cpu io memory hugetlb pids rdma misc\n", "memory"), "memory listed");
        ok(acs_cgroup_has_controller("cpu io memory pids", "pids"), "pids last");
        ok(!acs_cgroup_has_controller("cpu io memoryx pids", "memory"), "a prefix is not a match");
        ok(!acs_cgroup_has_controller("hugetlb\n", "pids"), "hugetlb only: no pids");
        ok(!acs_cgroup_has_controller("", "memory"), "empty list");

        const char *ev = "low 0\nhigh 0\nmax 12\noom 3\noom_kill 2\noom_group_kill 1\n";
        is_int((int)acs_cgroup_keyed(ev, "oom_kill"), 2, "memory.events oom_kill");
        is_int((int)acs_cgroup_keyed(ev, "oom"), 3, "oom is not oom_kill's prefix match");
        is_int((int)acs_cgroup_keyed(ev, "max"), 12, "max");
        is_int((int)acs_cgroup_keyed(ev, "nope"), -1, "absent key");
        is_int((int)acs_cgroup_keyed("populated 0\nfrozen 0\n", "populated"), 0, "cgroup.events populated 0");
        is_int((int)acs_cgroup_keyed("populated 1", "populated"), 1, "populated 1, no newline");
        is_int((int)acs_cgroup_keyed("populated x\n", "populated"), -1, "not a number");
}

static void test_run_names(void)
{
        is_int(acs_cgroup_run_pid("acs-run-1234-0"), 1234, "acs-run-1234-0");
        is_int(acs_cgroup_run_pid("acs-run-7-15"), 7, "acs-run-7-15");
        is_int(acs_cgroup_run_pid("acs-run-0-1"), 0, "pid 0 is not ours");
        is_int(acs_cgroup_run_pid("acs-run-12"), 0, "no counter");
        is_int(acs_cgroup_run_pid("acs-run-12-"), 0, "empty counter");
        is_int(acs_cgroup_run_pid("acs-run-12-x"), 0, "counter not a number");
        is_int(acs_cgroup_run_pid("acs-launcher"), 0, "the leaf is not a run");
        is_int(acs_cgroup_run_pid("user.slice"), 0, "someone else's cgroup");
        is_int(acs_cgroup_run_pid("acs-run-99999999999-1"), 0, "pid out of range");
}

static void test_proc_stat(void)
{
        static const struct {
                const char *text;
                int r;
                uint64_t ticks;
        } t[] = {
                /* utime 100 stime 20 cutime 3 cstime 4 */
                { "42 (python3) R 1 42 42 0 -1 4194304 900 0 0 0 100 20 3 4 20 0 1 0 5 1000 200", 0, 127 },
                /* a comm with spaces and a ')' of its own */
                { "7 (a) b) (c) S 1 7 7 0 -1 0 0 0 0 0 5 6 7 8 20 0 1 0", 0, 26 },
                { "1 (acs-init) S 0 1 1 0 -1 0 0 0 0 0 0 0 250 50 20 0 1 0", 0, 300 },
                { "garbage", -EINVAL, 0 },
                { "3 (x) S 1 2", -EINVAL, 0 },
                { "", -EINVAL, 0 },
        };
        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                uint64_t v = 0;
                int r = acs_proc_stat_cpu_ticks(t[i].text, &v);
                is_int(r, t[i].r, t[i].text[0] ? t[i].text : "(empty)");
                if (r == 0)
                        is_int((long long)v, (long long)t[i].ticks, "  ticks");
        }
        is_int(acs_proc_stat_cpu_ticks(NULL, &(uint64_t){ 0 }), -EINVAL, "proc stat: NULL");
}

static void add_pid(pid_t pid, void *ctx)
{
        long long *sum = ctx;
        *sum = *sum * 100 + pid;
}

static void test_children_and_schedule(void)
{
        long long sum = 0;
        is_int((long long)acs_parse_children("12 34 ", add_pid, &sum), 2, "children: two");
        is_int(sum, 1234, "children: in order");
        sum = 0;
        is_int((long long)acs_parse_children("", add_pid, &sum), 0, "children: none");
        is_int((long long)acs_parse_children("0 -5 x", add_pid, &sum), 0, "children: nonsense is skipped");

        /* what is left of the budget, spread over the CPUs, 5 ms..1 s */
        is_int(acs_cpu_next_sample_ms(5000000, 0, 2), 1000, "sample: 5 s on 2 CPUs: no sooner than 1 s");
        is_int(acs_cpu_next_sample_ms(1000000, 0, 2), 500, "sample: 1 s on 2 CPUs: 500 ms");
        is_int(acs_cpu_next_sample_ms(1000000, 900000, 4), 25, "sample: 100 ms left on 4 CPUs: 25 ms");
        is_int(acs_cpu_next_sample_ms(1000000, 999999, 2), 5, "sample: nearly used up: 5 ms");
        is_int(acs_cpu_next_sample_ms(1000000, 2000000, 2), 5, "sample: over (between samples): 5 ms");
        is_int(acs_cpu_next_sample_ms(1000000, 0, 0), 1000, "sample: unknown CPU count counts as one");
}

int main(void)
{
        test_parse_self();
        test_parent_of();
        test_lists();
        test_run_names();
        test_proc_stat();
        test_children_and_schedule();
        return tap_done();
}
