/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Per-run cgroup v2 in a delegated subtree: find it, create the run's
 * cgroup with its limits, and remove it after the run. See cgroup.h for the
 * rules; everything here is best effort on top of the rlimits, so a failure
 * means "no cgroup", never a failed run.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "common.h"

static const char *cgroup2_mount(void)
{
        static const char *const where[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
        struct statfs s;

        for (size_t i = 0; i < ELEMENTSOF(where); i++)
                if (statfs(where[i], &s) == 0 && (unsigned long)s.f_type == CGROUP2_SUPER_MAGIC)
                        return where[i];
        return NULL;
}

/*
 * Delegated to us: we may create cgroups and move processes in it, and its
 * manager said so -- systemd chowns a user's delegated cgroup to the user,
 * and marks delegation for root with an xattr. Root never takes over a
 * cgroup that was not delegated (a system service, a login session).
 */
static bool delegated(int dfd, const char *path)
{
        struct stat st;
        char v[8];

        if (fstat(dfd, &st) < 0 || faccessat(dfd, "cgroup.procs", W_OK, AT_EACCESS) < 0 ||
            faccessat(dfd, "cgroup.subtree_control", W_OK, AT_EACCESS) < 0)
                return false;
        if (geteuid() != 0)
                return st.st_uid == geteuid();
        for (int i = 0; i < 2; i++) {
                ssize_t n = getxattr(path, i ? "user.delegate" : "trusted.delegate", v, sizeof v - 1);
                if (n > 0) {
                        v[n] = '\0';
                        if (strcmp(v, "1") == 0)
                                return true;
                }
        }
        return false;
}

/* Only we (or nobody) in the cgroup: it may become an inner node. */
static bool only_us(int dfd)
{
        char buf[4096];
        pid_t self = getpid();

        if (acs_read_small_at(dfd, "cgroup.procs", buf, sizeof buf) < 0)
                return false;
        for (char *l = buf, *nl; *l; l = nl + 1) {
                nl = strchrnul(l, '\n');
                if (nl > l && atoi(l) != self)
                        return false;
                if (!*nl)
                        break;
        }
        return true;
}

/* Enable the controllers the runs need in the parent's subtree_control,
 * moving the launcher into the leaf first when it is the only process. */
static void enable_controllers(int pfd, bool mem, bool pids)
{
        char enabled[512] = "", cmd[32] = "";
        _cleanup_close_ int leaf = -1;

        if (acs_read_small_at(pfd, "cgroup.subtree_control", enabled, sizeof enabled) < 0)
                return;
        if ((!mem || acs_cgroup_has_controller(enabled, "memory")) &&
            (!pids || acs_cgroup_has_controller(enabled, "pids")))
                return;
        if (!only_us(pfd))
                return; /* others live here: the kernel would refuse (EBUSY) */
        if (mkdirat(pfd, ACS_CGROUP_LEAF, 0755) < 0 && errno != EEXIST)
                return;
        leaf = openat(pfd, ACS_CGROUP_LEAF, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (leaf < 0 || acs_write_str_at(leaf, "cgroup.procs", "0") < 0)
                return;
        snprintf(cmd, sizeof cmd, "%s%s", mem ? "+memory " : "", pids ? "+pids" : "");
        (void)acs_write_str_at(pfd, "cgroup.subtree_control", cmd);
}

/*
 * Remove what launchers that died without cleaning up left behind. Only
 * rmdir, never cgroup.kill: a sandbox whose launcher died is already gone
 * (parent-death signal), so its cgroup is empty, while a live run of a
 * launcher whose pid we cannot see (another pid namespace sharing this
 * delegation) is populated and makes rmdir fail with EBUSY.
 */
static void sweep_stale(int pfd)
{
        _cleanup_close_ int dfd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
        struct dirent *de;

        if (!d)
                return;
        dfd = -1; /* owned by d now */
        while ((de = readdir(d))) {
                pid_t pid = acs_cgroup_run_pid(de->d_name);
                if (pid <= 0 || pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH)
                        continue;
                (void)unlinkat(pfd, de->d_name, AT_REMOVEDIR);
        }
        closedir(d);
}

static int open_parent(char *full, size_t size, const char **why)
{
        char self[4096], path[PATH_MAX], pbuf[PATH_MAX];
        const char *mnt, *parent;
        int fd;

        /* cheapest test first: most hosts answer "no" here */
        if (acs_read_small_at(AT_FDCWD, "/proc/self/cgroup", self, sizeof self) < 0 ||
            acs_cgroup_parse_self(self, path, sizeof path) < 0)
                return *why = "this process has no cgroup v2 path", -ENOENT;
        if (!(parent = acs_cgroup_parent_of(path, pbuf, sizeof pbuf)))
                return *why = "the launcher is in the root cgroup, which is not delegated", -ENOENT;
        if (!(mnt = cgroup2_mount()))
                return *why = "no cgroup v2 hierarchy is mounted", -ENOENT;
        if ((size_t)snprintf(full, size, "%s%s", mnt, parent) >= size)
                return *why = "cgroup path too long", -ENAMETOOLONG;
        fd = open(full, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return *why = "the launcher's cgroup is not visible in /sys/fs/cgroup", -errno;
        if (!delegated(fd, full)) {
                close(fd);
                return *why = "the launcher's cgroup is not delegated to it (run it under systemd-run "
                              "--scope -p Delegate=yes)", -EPERM;
        }
        return fd;
}

static void want_controllers(int pfd, uint64_t memory, uint64_t pids, bool *mem, bool *pid)
{
        char avail[512] = "";

        (void)acs_read_small_at(pfd, "cgroup.controllers", avail, sizeof avail);
        *mem = memory && acs_cgroup_has_controller(avail, "memory");
        *pid = pids && acs_cgroup_has_controller(avail, "pids");
}

int acs_cgroup_find(char *path, size_t size, char *controllers, size_t csize, const char **ret_why)
{
        _cleanup_close_ int pfd = open_parent(path, size, ret_why);

        if (pfd < 0)
                return pfd;
        if (acs_read_small_at(pfd, "cgroup.controllers", controllers, csize) < 0)
                controllers[0] = '\0';
        controllers[strcspn(controllers, "\n")] = '\0';
        return 0;
}

void acs_cgroup_enter_leaf(void)
{
        char full[PATH_MAX];
        const char *why;
        bool mem, pids;
        _cleanup_close_ int pfd = open_parent(full, sizeof full, &why);

        if (pfd < 0)
                return;
        want_controllers(pfd, 1, 1, &mem, &pids);
        enable_controllers(pfd, mem, pids);
}

static bool set_limit(int dfd, const char *file, uint64_t v)
{
        char num[32];

        snprintf(num, sizeof num, "%llu", (unsigned long long)v);
        return acs_write_str_at(dfd, file, num) == 0;
}

int acs_cgroup_create(uint64_t memory, uint64_t pids, acs_cgroup *ret, const char **ret_why)
{
        char full[PATH_MAX], on[512] = "";
        bool mem, pid;
        int pfd;

        *ret = ACS_CGROUP_NULL;
        *ret_why = NULL;
        if ((pfd = open_parent(full, sizeof full, ret_why)) < 0)
                return 0;
        want_controllers(pfd, memory, pids, &mem, &pid);
        enable_controllers(pfd, mem, pid);
        sweep_stale(pfd);
        /* never reuse an existing name: it may be another live run's */
        int made = -1;
        for (unsigned i = 0; i < 1000 && made < 0; i++) {
                snprintf(ret->name, sizeof ret->name, ACS_CGROUP_RUN_PREFIX "%d-%u", (int)getpid(), i);
                made = mkdirat(pfd, ret->name, 0755);
                if (made < 0 && errno != EEXIST)
                        break;
        }
        if (made < 0) {
                *ret_why = "cannot create a cgroup in the delegated subtree";
                close(pfd);
                *ret = ACS_CGROUP_NULL;
                return 0;
        }
        ret->parent_fd = pfd;
        ret->dir_fd = openat(pfd, ret->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        snprintf(ret->path, sizeof ret->path, "%s/%s", full, ret->name);
        if (ret->dir_fd < 0) {
                *ret_why = "cannot open the run's cgroup";
                acs_cgroup_destroy(ret);
                return 0;
        }
        (void)acs_read_small_at(pfd, "cgroup.subtree_control", on, sizeof on);
        if (mem && acs_cgroup_has_controller(on, "memory")) {
                /* no swap to hide in, and one kill for the whole sandbox */
                ret->memory = set_limit(ret->dir_fd, "memory.max", memory);
                (void)acs_write_str_at(ret->dir_fd, "memory.swap.max", "0");
                (void)acs_write_str_at(ret->dir_fd, "memory.oom.group", "1");
        }
        if (pid && acs_cgroup_has_controller(on, "pids"))
                ret->pids = set_limit(ret->dir_fd, "pids.max", pids);
        return 1;
}

long long acs_cgroup_oom_kills(const acs_cgroup *cg)
{
        char buf[1024];

        if (cg->dir_fd < 0 || !cg->memory || acs_read_small_at(cg->dir_fd, "memory.events", buf, sizeof buf) < 0)
                return 0;
        long long v = acs_cgroup_keyed(buf, "oom_kill");
        return v > 0 ? v : 0;
}

/* Until cgroup.events says "populated 0": the kernel notifies with POLLPRI. */
static void wait_empty(int dfd)
{
        _cleanup_close_ int fd = openat(dfd, "cgroup.events", O_RDONLY | O_CLOEXEC);
        char buf[256];

        for (int i = 0; fd >= 0 && i < 100; i++) {
                ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
                if (n <= 0)
                        return;
                buf[n] = '\0';
                if (acs_cgroup_keyed(buf, "populated") == 0)
                        return;
                struct pollfd p = { .fd = fd, .events = POLLPRI };
                (void)poll(&p, 1, 20);
        }
}

void acs_cgroup_destroy(acs_cgroup *cg)
{
        if (cg->dir_fd >= 0) {
                (void)acs_write_str_at(cg->dir_fd, "cgroup.kill", "1");
                wait_empty(cg->dir_fd);
        }
        closep(&cg->dir_fd);
        if (cg->parent_fd >= 0 && cg->name[0]) {
                for (int i = 0; i < 50; i++) {
                        if (unlinkat(cg->parent_fd, cg->name, AT_REMOVEDIR) == 0 || errno != EBUSY)
                                break;
                        nanosleep(&(struct timespec){ .tv_nsec = 2 * 1000 * 1000 }, NULL);
                }
        }
        closep(&cg->parent_fd);
        *cg = ACS_CGROUP_NULL;
}
