/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sandbox creation. The launcher clones one child into new user, mount,
 * pid, net, ipc, uts and cgroup namespaces. That child is the sandbox's
 * init (pid 1): it builds the root from nothing, then vforks the program,
 * which drops everything, installs seccomp last and execs. Init reaps and
 * reports the program's wait status; when init exits, the kernel kills
 * every process left in the pid namespace, so nothing outlives a run.
 *
 * The child never returns into launcher code: errors go to the launcher as
 * an acs_error record over the CLOEXEC sync socket, then _exit.
 */
#include <fcntl.h>
#include <linux/keyctl.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <grp.h>
#include <sys/wait.h>
#include <time.h>

#include "cgroup.h"
#include "filter.h"
#include "prefault.h"
#include "sandbox.h"
#include "doctor.h"
#include "plan.h"

#define NOBODY_ID 65534

/* ---- messages over the sync socket ------------------------------------ */

static void send_error(int fd, const acs_error *e)
{
        char buf[1 + sizeof *e];
        buf[0] = ACS_MSG_ERROR;
        memcpy(buf + 1, e, sizeof *e);
        (void)!send(fd, buf, sizeof buf, MSG_NOSIGNAL);
}

static void send_started(int fd)
{
        char buf[1 + sizeof(int32_t)] = { ACS_MSG_STARTED };
        (void)!send(fd, buf, sizeof buf, MSG_NOSIGNAL);
}

static int64_t tv_us(struct timeval tv)
{
        return (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

/* The program's status and CPU, and the whole sandbox's usage (sync-proto.h). */
static void send_status(int fd, int32_t status, int64_t cpu, const int64_t usage[3])
{
        char buf[ACS_MSG_STATUS_LEN] = { ACS_MSG_STATUS };
        memcpy(buf + 1, &status, sizeof status);
        memcpy(buf + 1 + sizeof status, &cpu, sizeof cpu);
        memcpy(buf + 1 + sizeof status + sizeof cpu, usage, 3 * sizeof *usage);
        (void)!send(fd, buf, sizeof buf, MSG_NOSIGNAL);
}

static int send_fds(int fd, int a, int b)
{
        char type = ACS_MSG_FDS;
        struct iovec iov = { .iov_base = &type, .iov_len = 1 };
        union {
                char buf[CMSG_SPACE(2 * sizeof(int))];
                struct cmsghdr align;
        } u;
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                             .msg_controllen = sizeof u.buf };
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(2 * sizeof(int));
        int fds[2] = { a, b };
        memcpy(CMSG_DATA(c), fds, sizeof fds);
        return sendmsg(fd, &mh, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

int acs_sandbox_read_msg(acs_sandbox *sb, int *ret_status, int64_t *ret_cpu_us, acs_error *ret_err)
{
        char buf[1 + sizeof(acs_error)];
        struct iovec iov = { .iov_base = buf, .iov_len = sizeof buf };
        union {
                char cbuf[CMSG_SPACE(2 * sizeof(int))];
                struct cmsghdr align;
        } u;
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.cbuf,
                             .msg_controllen = sizeof u.cbuf };
        ssize_t n;
        do
                n = recvmsg(sb->sync_fd, &mh, MSG_CMSG_CLOEXEC);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        if (n == 0)
                return 0;
        switch (buf[0]) {
        case ACS_MSG_ERROR:
                if ((size_t)n != sizeof buf)
                        return -EBADMSG;
                if (ret_err)
                        memcpy(ret_err, buf + 1, sizeof *ret_err);
                return ACS_MSG_ERROR;
        case ACS_MSG_STATUS: {
                int32_t st;
                int64_t cpu, usage[3];
                if (n != ACS_MSG_STATUS_LEN)
                        return -EBADMSG;
                memcpy(&st, buf + 1, sizeof st);
                memcpy(&cpu, buf + 1 + sizeof st, sizeof cpu);
                memcpy(usage, buf + 1 + sizeof st + sizeof cpu, sizeof usage);
                if (ret_status)
                        *ret_status = st;
                if (ret_cpu_us)
                        *ret_cpu_us = cpu;
                sb->ended = (acs_sandbox_usage){ .valid = true, .user_us = usage[0], .sys_us = usage[1],
                                                 .max_rss_kb = usage[2] };
                return ACS_MSG_STATUS;
        }
        case ACS_MSG_STARTED:
                if ((size_t)n != 1 + sizeof(int32_t))
                        return -EBADMSG;
                return ACS_MSG_STARTED;
        case ACS_MSG_FDS: {
                struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
                if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(2 * sizeof(int)))
                        return -EBADMSG;
                int fds[2];
                memcpy(fds, CMSG_DATA(c), sizeof fds);
                sb->upper_fd = fds[0];
                sb->lower_fd = fds[1];
                return ACS_MSG_FDS;
        }
        default:
                return -EBADMSG;
        }
}

/* ---- the child -------------------------------------------------------- */

void acs_trace(const acs_sandbox_cfg *cfg, const char *step)
{
        if (cfg->verbose)
                acs_trace_to(cfg->trace_fd, cfg->t0_ms, "%s", step);
}

typedef struct child_ctx {
        const acs_sandbox_cfg *cfg;
        int sync_fd;
        int parent_fd; /* the launcher's end, closed at once in the child */
        acs_clone_kind clone; /* VFORK and SHARED run in the launcher's memory (sandbox.h) */
        int release_fd;       /* SHARED: O_CLOEXEC, so its close is our exec (-1: none) */
        bool exec_init; /* pid 1 becomes the embedded acs-init (both paths, where one is built in) */
        uid_t uid;
        gid_t gid;
        bool root_launcher;
        sigset_t saved_mask;
        acs_filter_prog filter;    /* the program's, prepared before clone (no allocation after) */
        struct sock_fprog init_filter; /* init's own, on top */
        int landlock_abi;          /* 0: none */
        int landlock_fd;           /* the program's ruleset, built by init after pivot_root */
        acs_shm_bound sysv;
        /* allocated by the launcher before clone: the fast path's child runs
         * in the launcher's memory and must not allocate */
        const acs_mount_op *mount_ops; /* the plan's mount table (plan.c) */
        size_t n_mount_ops;
        int *src_fds;                  /* per cfg->binds[i], then per ro layer (-1: none) */
        int ws_fd;                     /* init's steps: the workspace source, */
        int init_fd;                   /* and acs-init's image in scratch */
        acs_error err;
        void *stack; /* the child's stack, for ASan (child_trampoline) */
        size_t stack_size;
} child_ctx;

/* Close every fd >= lowfd but those in keep (at most four; entries below lowfd are ignored). */
static void close_all_except(int lowfd, const int *keep, size_t n)
{
        int k[4];
        size_t m = 0;
        for (size_t i = 0; i < n && m < sizeof k / sizeof *k; i++) {
                if (keep[i] < lowfd)
                        continue;
                size_t j = m++;
                for (; j > 0 && k[j - 1] > keep[i]; j--) /* insertion sort */
                        k[j] = k[j - 1];
                k[j] = keep[i];
        }
        unsigned from = (unsigned)lowfd;
        for (size_t i = 0; i < m; i++) {
                if ((unsigned)k[i] > from)
                        syscall(SYS_close_range, from, (unsigned)k[i] - 1, 0);
                if ((unsigned)k[i] + 1 > from)
                        from = (unsigned)k[i] + 1;
        }
        syscall(SYS_close_range, from, ~0U, 0);
}

/* Search PATH from the sandbox's environment, inside the sandbox. */
static void exec_program(const acs_sandbox_cfg *cfg)
{
        const char *file = cfg->argv[0];
        if (strchr(file, '/')) {
                execve(file, cfg->argv, cfg->envp);
                return;
        }
        const char *path = "/usr/local/bin:/usr/bin:/bin";
        for (char **e = cfg->envp; e && *e; e++)
                if (strncmp(*e, "PATH=", 5) == 0)
                        path = *e + 5;
        int saved = ENOENT;
        char buf[4096];
        for (const char *p = path;; p++) {
                const char *end = strchrnul(p, ':');
                int n = snprintf(buf, sizeof buf, "%.*s/%s", (int)(end - p), p, file);
                if (n > 0 && (size_t)n < sizeof buf) {
                        execve(buf, cfg->argv, cfg->envp);
                        if (errno != ENOENT && errno != ENOTDIR)
                                saved = errno;
                }
                if (!*end)
                        break;
                p = end;
        }
        errno = saved;
}

static int set_rlimit(int res, uint64_t v)
{
        if (v == 0)
                return 0;
        struct rlimit rl = { .rlim_cur = v, .rlim_max = v };
        return setrlimit(res, &rl) < 0 ? -errno : 0;
}

/* Lower a limit to at most v (never raise what the launcher had). */
static int lower_rlimit(int res, uint64_t v)
{
        struct rlimit rl;
        if (getrlimit(res, &rl) < 0)
                return -errno;
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max <= v)
                return 0;
        rl.rlim_cur = rl.rlim_max = v;
        return setrlimit(res, &rl) < 0 ? -errno : 0;
}

/* POSIX message queues: their bytes count against RLIMIT_MSGQUEUE, the
 * Linux default (800 KiB) unless the launcher had less. */
#define ACS_MSGQUEUE_BYTES 819200

static int apply_rlimits(const acs_sandbox_cfg *cfg, acs_error *err)
{
        struct rlimit zero = { 0, 0 };
        /* memory_rlimit = fallback: the memory cgroup alone bounds what is used
         * (an address-space limit counts reserved virtual memory too) */
        bool cgroup_mem = cfg->rl_as_fallback && cfg->mem_cgroup && cfg->cgroup_fd >= 0;
        /* RLIMIT_CPU is each process's backstop, one second over the limit:
         * the supervisor ends the sandbox at its total CPU time first
         * (cputime.h), so the kill is ours and the status says cpu. */
        uint64_t rl_cpu = cfg->rl_cpu_total ? cfg->rl_cpu_total : cfg->rl_cpu ? cfg->rl_cpu + 1 : 0;
        if (set_rlimit(RLIMIT_CPU, rl_cpu) < 0 || set_rlimit(RLIMIT_AS, cgroup_mem ? 0 : cfg->rl_as) < 0 ||
            set_rlimit(RLIMIT_NPROC, cfg->rl_nproc) < 0 || set_rlimit(RLIMIT_FSIZE, cfg->rl_fsize) < 0 ||
            set_rlimit(RLIMIT_NOFILE, cfg->rl_nofile) < 0 || setrlimit(RLIMIT_CORE, &zero) < 0 ||
            lower_rlimit(RLIMIT_MSGQUEUE, ACS_MSGQUEUE_BYTES) < 0)
                return acs_error_errno(err, -errno, "limits", "setrlimit");
        return 0;
}

/*
 * The program process (pid 2 inside), after vfork from init. It starts
 * with no capability, no_new_privs and the program's seccomp filter, all
 * inherited from init; here: I/O, Landlock, session, limits, then exec.
 */
/*
 * The program's own steps, in the vfork child of init (init's memory: no
 * allocation), in order: its stdio, the Landlock domain, no fd but what it
 * needs, a session of its own, its directory, its limits; then exec.
 */
static int pstep_stdio(child_ctx *c)
{
        const acs_sandbox_cfg *cfg = c->cfg;
        int in = cfg->stdin_fd;
        if (in < 0 && (in = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
                return acs_error_errno(&c->err, -errno, "io", "open /dev/null");
        if (dup2(in, 0) < 0 || dup2(cfg->stdout_fd, 1) < 0 || dup2(cfg->stderr_fd, 2) < 0)
                return acs_error_errno(&c->err, -errno, "io", "dup2");
        return 0;
}

static int pstep_landlock(child_ctx *c)
{
        return c->landlock_fd >= 0 ? acs_landlock_restrict(c->landlock_fd, &c->err) : 0;
}

/* keep 0,1,2, the sync socket (CLOEXEC: reports exec failure), the -v trace
 * fd (CLOEXEC: our stderr, never the program's) and the scan fds */
static int pstep_fds(child_ctx *c)
{
        const acs_sandbox_cfg *cfg = c->cfg;
        int keep[] = { c->sync_fd, cfg->trace_fd, cfg->scan_fd, cfg->scan_module_fd };
        close_all_except(3, keep, ELEMENTSOF(keep));
        for (size_t i = 2; i < ELEMENTSOF(keep); i++)
                if (keep[i] >= 0 && fcntl(keep[i], F_SETFD, 0) < 0)
                        return acs_error_errno(&c->err, -errno, "io", "scan fd");
        return 0;
}

static int pstep_session(child_ctx *c)
{
        return setsid() < 0 ? acs_error_errno(&c->err, -errno, "setsid", "setsid") : 0;
}

static int pstep_chdir(child_ctx *c)
{
        const char *dir = c->cfg->chdir;
        if (dir && chdir(dir) < 0)
                return acs_error_errno(&c->err, -errno, "chdir", "cannot change to %s inside the sandbox", dir);
        return 0;
}

static int pstep_rlimits(child_ctx *c)
{
        return apply_rlimits(c->cfg, &c->err);
}

static int (*const program_steps[])(child_ctx *c) = {
        pstep_stdio, pstep_landlock, pstep_fds, pstep_session, pstep_chdir, pstep_rlimits,
};

static _noreturn_ void program_main(child_ctx *c)
{
        const acs_sandbox_cfg *cfg = c->cfg;
        acs_error *err = &c->err;
        for (size_t i = 0; i < ELEMENTSOF(program_steps); i++)
                if (program_steps[i](c) < 0)
                        goto fail;
        acs_trace(cfg, "program: stdio, landlock, session, rlimits; exec");
        sigprocmask(SIG_SETMASK, &c->saved_mask, NULL);

        exec_program(cfg);
        int r = -errno;
        /* 127 for "not found" and "not executable" alike: 126 means a scan refusal here */
        err->exit_status = (r == -ENOENT || r == -ENOTDIR || r == -EACCES) ? 127 : 125;
        acs_error_errno(err, r, "exec", "cannot execute '%s' inside the sandbox", cfg->argv[0]);
fail:
        send_error(c->sync_fd, err);
        _exit(err->exit_status ?: 125);
}

/*
 * SysV IPC in the sandbox's fresh IPC namespace, sized from the memory
 * limit: segments, message queues and semaphore sets pin memory outside
 * any address space. Only a root launcher can do this: the namespace's
 * sysctls belong to its uid 0, which an unprivileged user namespace does not
 * map, so there the get calls are denied instead (acs_shm_bound). Run
 * before the identity switch, on the host's /proc (whose /proc/sys shows
 * the caller's IPC namespace: the new one).
 */
static int limit_ipc(uint64_t memory, acs_error *err)
{
        char shmmax[32], shmall[32];
        snprintf(shmmax, sizeof shmmax, "%llu", (unsigned long long)memory);
        snprintf(shmall, sizeof shmall, "%llu", (unsigned long long)(memory / 4096 ?: 1));
        const char *const set[][2] = {
                { "/proc/sys/kernel/shmmax", shmmax }, { "/proc/sys/kernel/shmall", shmall },
                { "/proc/sys/kernel/shmmni", "64" },
                /* 16 queues of 64 KiB: 1 MiB */
                { "/proc/sys/kernel/msgmni", "16" },   { "/proc/sys/kernel/msgmnb", "65536" },
                { "/proc/sys/kernel/msgmax", "8192" },
                /* SEMMSL SEMMNS SEMOPM SEMMNI: 1024 semaphores in all */
                { "/proc/sys/kernel/sem", "256 1024 32 32" },
                { "/proc/sys/fs/mqueue/queues_max", "16" },
        };
        for (size_t i = 0; i < ELEMENTSOF(set); i++) {
                int r = acs_write_str_at(AT_FDCWD, set[i][0], set[i][1]);
                if (r < 0 && r != -ENOENT)
                        return acs_error_errno(err, r, "ipc", "setting %s", set[i][0]);
        }
        return 0;
}

static int setup_identity(child_ctx *c, acs_error *err)
{
        /* Run by root: become the unprivileged inner uid so nothing the
         * sandbox does is done as host root (security-model.md). */
        if (c->root_launcher) {
                if (setgroups(0, NULL) < 0 || setresgid(c->gid, c->gid, c->gid) < 0 ||
                    setresuid(c->uid, c->uid, c->uid) < 0)
                        return acs_error_errno(err, -errno, "userns", "cannot switch to uid %u", (unsigned)c->uid);
                /* setresuid cleared the effective set; this namespace is ours, regain it for setup */
                if (acs_caps_raise_all(err) < 0)
                        return -EPERM;
        }
        return 0;
}

/*
 * ASan's runtime is not safe in a child that shares our memory: a lock it
 * takes there (allocator, thread registry) stays taken after the exec, and
 * the parent spins on it. The sanitizer build (--enable-sanitizers) takes
 * the fork-style clone and fork() instead; the code run is otherwise the same.
 */
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/common_interface_defs.h>
#define ACS_ASAN true
#define ACS_VFORK fork
#else
#define ACS_ASAN false
#define ACS_VFORK vfork
#endif

#ifdef HAVE_ACS_INIT_BLOB
#include "init-blob.h"
static const void *const init_blob = acs_init_blob;
static const size_t init_blob_len = sizeof acs_init_blob;
#else
static const void *const init_blob = NULL;
static const size_t init_blob_len = 0;
#endif

/*
 * The uid/gid maps of /proc/WHO ("self" in the fast path's child, else the
 * child's pid, written by the launcher). Unprivileged: one line, the
 * invoking user (all the kernel allows). Run by root: every host id but 0
 * maps to itself (1..65534), so workspace files of any ordinary owner keep
 * their ids through copy-up instead of failing with EOVERFLOW; the sandbox
 * still runs as one of them with no capability, and host uid/gid 0 stay
 * unmapped. On failure, path names the file.
 */
static int write_maps(const char *who, uid_t uid, gid_t gid, bool root, char path[static 64])
{
        char line[64];
        int r;
        if (!root) {
                snprintf(path, 64, "/proc/%s/setgroups", who);
                if ((r = acs_write_str_at(AT_FDCWD, path, "deny")) < 0 && r != -ENOENT)
                        return r;
        }
        const char *names[] = { "uid_map", "gid_map" };
        for (int i = 0; i < 2; i++) {
                unsigned id = i ? (unsigned)gid : (unsigned)uid;
                snprintf(path, 64, "/proc/%s/%s", who, names[i]);
                if (root)
                        snprintf(line, sizeof line, "1 1 %u\n", (unsigned)ACS_ROOT_MAP_LAST);
                else
                        snprintf(line, sizeof line, "%u %u 1\n", id, id);
                if ((r = acs_write_str_at(AT_FDCWD, path, line)) < 0)
                        return r;
        }
        return 0;
}

/*
 * Become acs-init (src/init.c), in both paths: one pid 1, a few KiB that
 * only reap and report, instead of a copy of the launcher (and in the fast
 * path the exec is what releases the launcher). The sync socket is already
 * inheritable (the one fd init keeps); init's filter allows execveat, and
 * the exec-only image comes up non-dumpable.
 */
static _noreturn_ void exec_init(child_ctx *c, int init_fd, pid_t program)
{
        char fd_arg[16], pid_arg[16];
        snprintf(fd_arg, sizeof fd_arg, "%d", c->sync_fd);
        snprintf(pid_arg, sizeof pid_arg, "%d", (int)program);
        char *argv[] = { "acs-init", fd_arg, pid_arg, NULL };
        char *envp[] = { NULL };
        syscall(SYS_execveat, init_fd, "", argv, envp, AT_EMPTY_PATH);
        /* without init the program dies with us; the launcher reports why */
        acs_error_errno(&c->err, -errno, "init", "cannot start the sandbox's init");
        send_error(c->sync_fd, &c->err);
        _exit(125);
}

/*
 * pid 1 where no acs-init is built in (neither x86-64 nor aarch64): reap everything; once
 * the program has ended, kill the rest, reap it, report the program's wait
 * status and CPU time and the sandbox's usage, exit. The same steps as
 * src/init.c (see sync-proto.h for why nothing may be left).
 */
static _noreturn_ void reap_loop(child_ctx *c, pid_t program)
{
        int32_t pstatus = 0;
        int64_t pcpu = 0, usage[3] = { 0 };
        bool ended = false;
        for (;;) {
                int st;
                struct rusage ru;
                pid_t p = wait4(-1, &st, __WALL, &ru);
                if (p < 0 && errno == EINTR)
                        continue;
                if (p < 0 && errno == ECHILD && ended)
                        break;
                if (p < 0)
                        _exit(125);
                usage[0] += tv_us(ru.ru_utime);
                usage[1] += tv_us(ru.ru_stime);
                if (ru.ru_maxrss > usage[2])
                        usage[2] = ru.ru_maxrss;
                if (p == program) {
                        pstatus = st;
                        pcpu = tv_us(ru.ru_utime) + tv_us(ru.ru_stime);
                        ended = true;
                        kill(-1, SIGKILL);
                }
        }
        send_status(c->sync_fd, pstatus, pcpu, usage);
        _exit(0);
}

/*
 * Init's last steps once the program runs: keep nothing it could use (no
 * fd but the sync socket -- so the output pipes reach EOF when the
 * program's side closes -- and acs-init's image), load init's own filter on
 * top of the program's, tell the launcher, and become acs-init or reap.
 * Until here init was already non-dumpable, without capabilities and
 * under the program's filter; no step needs more.
 */
static _noreturn_ void init_finish(child_ctx *c, int init_fd, pid_t program)
{
        close_all_except(0, (int[]){ c->sync_fd, init_fd, c->release_fd }, 3);
        if (c->exec_init && fcntl(c->sync_fd, F_SETFD, 0) < 0)
                _exit(125);
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &c->init_filter, 0, 0) < 0)
                _exit(125);
        send_started(c->sync_fd);
        if (c->exec_init)
                exec_init(c, init_fd, program);
        reap_loop(c, program);
}

/*
 * The sandbox's own, empty session keyring: the launcher's holds the
 * caller's keys (a shell's session keyring, ssh or kerberos secrets). Made
 * after the identity switch, so the sandbox's uid owns it.
 */
static int own_keyring(acs_error *err)
{
        if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) >= 0 || errno == ENOSYS)
                return 0;
        return acs_error_errno(err, -errno, "keyring",
                               errno == EDQUOT ? "cannot create the sandbox's session keyring: the user's key quota "
                                                 "is used up (/proc/sys/kernel/keys/maxkeys, maxbytes)"
                                               : "cannot create the sandbox's session keyring");
}

/*
 * pid 1's steps, in order (nsjail's containProc is the model): each one
 * returns >= 0 or fills c->err; a step that finds the launcher gone exits
 * at once (nothing is listening for an error). The order is the security
 * argument: maps and non-dumpable before anything else; sources opened
 * while still the launcher's uid; the identity switch before the mounts;
 * the program's confinement complete in init before the program exists.
 */

/* Die with the launcher. A launcher gone before this point is seen by the
 * next step: the read of the go byte then returns EOF. */
static int step_deathsig(child_ctx *c)
{
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
                _exit(125);
        close(c->parent_fd);
        return 0;
}

static int step_maps(child_ctx *c)
{
        char go;
        if (c->clone == ACS_CLONE_VFORK) {
                /* The launcher is suspended until we exec: write our own maps
                 * (one line, our own ids: all an unprivileged process may). */
                char path[64];
                int r = write_maps("self", c->uid, c->gid, false, path);
                return r < 0 ? acs_preflight_idmap_error(r, path, &c->err) : 0;
        }
        /* wait until the launcher has written our uid/gid maps */
        if (read(c->sync_fd, &go, 1) != 1 || go != ACS_SYNC_GO)
                _exit(125);
        return 0;
}

/* Init is a copy of the launcher until it execs acs-init: its memory holds
 * the launcher's argv and environment. Not dumpable, so the program cannot
 * read /proc/1/environ or /proc/1/mem (the mm belongs to the launcher's
 * user namespace, where the sandbox has no capability). */
static int step_not_dumpable(child_ctx *c)
{
        (void)c;
        if (prctl(PR_SET_DUMPABLE, 0) < 0)
                _exit(125);
        return 0;
}

/* Open what we bind while we still are the launcher's uid: a root
 * launcher's private directories stay reachable by fd. */
static int step_sources(child_ctx *c)
{
        int r = acs_mounts_open(c->cfg, c->src_fds, &c->ws_fd, &c->err);
        if (r >= 0)
                acs_trace(c->cfg, c->clone == ACS_CLONE_VFORK ? "userns (vfork-style clone, own maps), sources opened"
                                  : c->clone == ACS_CLONE_SHARED
                                          ? "userns (clone in the launcher's memory, maps from the launcher), sources opened"
                                          : "userns (fork-style clone, maps from the launcher), sources opened");
        return r;
}

static int step_ipc_limits(child_ctx *c)
{
        return c->sysv == ACS_SHM_IPC_LIMITS ? limit_ipc(c->cfg->rl_as, &c->err) : 0;
}

static int step_identity(child_ctx *c)
{
        int r = setup_identity(c, &c->err);
        if (r < 0 || !c->root_launcher)
                return r;
        /* Changing credentials cleared the parent-death signal: set it again,
         * then make sure the launcher did not die in between (it never writes
         * after the go byte, so anything readable means it hung up). */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
                _exit(125);
        struct pollfd pfd = { .fd = c->sync_fd, .events = POLLIN };
        if (poll(&pfd, 1, 0) != 0)
                _exit(125);
        return 0;
}

static int step_uts_net(child_ctx *c)
{
        const acs_sandbox_cfg *cfg = c->cfg;
        if (cfg->hostname && sethostname(cfg->hostname, strlen(cfg->hostname)) < 0)
                return acs_preflight_uts_error(-errno, &c->err);
        return cfg->net == ACS_NET_LOOPBACK ? acs_net_loopback_up(&c->err) : 0;
}

static int step_mounts(child_ctx *c)
{
        int upper_fd = -1, lower_fd = -1;
        int r = acs_mounts_build(c->cfg, c->mount_ops, c->n_mount_ops, c->src_fds, c->ws_fd, &upper_fd, &lower_fd,
                                 c->exec_init ? init_blob : NULL, init_blob_len, &c->init_fd, &c->err);
        if (r < 0 || upper_fd < 0)
                return r;
        r = send_fds(c->sync_fd, upper_fd, lower_fd);
        close(upper_fd);
        close(lower_fd);
        return r < 0 ? acs_error_errno(&c->err, r, "sync", "passing the workspace layers") : 0;
}

static int step_landlock(child_ctx *c)
{
        if (c->landlock_abi > 0 && (c->landlock_fd = acs_landlock_ruleset(c->cfg, c->landlock_abi, &c->err)) < 0)
                return c->landlock_fd;
        return 0;
}

/* From here on init is as confined as the program will be: every
 * capability gone, no_new_privs, the program's seccomp filter. The program
 * inherits all three through vfork, so no moment exists in which it runs
 * while init holds more than it does. */
static int step_confine(child_ctx *c)
{
        int r;
        if ((r = own_keyring(&c->err)) < 0 || (r = acs_drop_privileges(&c->err)) < 0)
                return r;
        return acs_filter_load(&c->filter, &c->err);
}

static const struct {
        int (*run)(child_ctx *c);
        const char *trace; /* -v: the line after this step, or NULL */
} init_steps[] = {
        { step_deathsig, NULL },
        { step_maps, NULL },
        { step_not_dumpable, NULL },
        { step_sources, NULL },
        { step_ipc_limits, NULL },
        { step_identity, NULL },
        { step_uts_net, "uts, net" },
        { step_mounts, "mounts: root built, pivoted, old root detached" },
        { step_landlock, NULL },
        { step_confine, "keyring, capabilities dropped, no_new_privs, seccomp" },
};

static _noreturn_ void init_main(child_ctx *c)
{
        c->ws_fd = c->init_fd = -1;
        for (size_t i = 0; i < ELEMENTSOF(init_steps); i++) {
                if (init_steps[i].run(c) < 0)
                        goto fail;
                if (init_steps[i].trace)
                        acs_trace(c->cfg, init_steps[i].trace);
        }
        /* vfork: no page-table copy; init is suspended until the program execs */
        pid_t pid = ACS_VFORK();
        if (pid < 0) {
                acs_error_errno(&c->err, -errno, "fork", "cannot start the program");
                goto fail;
        }
        if (pid == 0)
                program_main(c);
        init_finish(c, c->init_fd, pid);
fail:
        send_error(c->sync_fd, &c->err);
        _exit(c->err.exit_status ?: 125);
}

/* ---- the launcher side ------------------------------------------------ */

/*
 * Root of the initial user namespace: only then can (and must) the sandbox
 * get other ids than ours. Uid 0 inside a container's user namespace is an
 * ordinary user to the kernel and maps only itself, like any other user.
 */
static bool real_root(void)
{
        if (geteuid() != 0)
                return false;
        char buf[128];
        if (acs_read_small_at(AT_FDCWD, "/proc/self/uid_map", buf, sizeof buf) <= 0)
                return false;
        unsigned a, b, len;
        return sscanf(buf, "%u %u %u", &a, &b, &len) == 3 && a == 0 && b == 0 && len == 4294967295u;
}

bool acs_sandbox_init_image(void)
{
        return init_blob != NULL;
}

static acs_clone_kind clone_kind(bool root)
{
#if defined(__x86_64__) /* acs_clone3 (clone3.c) runs a function on a new stack only here */
        if (!ACS_ASAN && init_blob != NULL && !getenv("ACS_NO_FAST_CLONE"))
                return root ? ACS_CLONE_SHARED : ACS_CLONE_VFORK;
#endif
        (void)root;
        return ACS_CLONE_FORK;
}

acs_clone_kind acs_sandbox_clone_kind(void)
{
        return clone_kind(real_root());
}

static int child_trampoline(void *arg)
{
#ifdef __SANITIZE_ADDRESS__
        /* tell ASan this is the stack now (it would warn on stderr at the first
         * noreturn call, and may misjudge stack accesses) */
        child_ctx *c = arg;
        __sanitizer_start_switch_fiber(NULL, c->stack, c->stack_size);
        __sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
        init_main(arg);
}

/*
 * The layers this sandbox gets, decided before clone so that the child
 * allocates nothing (a vfork-style child shares our heap): the program's
 * seccomp program (with the shared-memory calls nothing bounds here), init's
 * own, and the Landlock ABI.
 */
static int prepare_layers(child_ctx *c, bool root, acs_filter_prog *ret_filter, acs_sandbox *sb, acs_error *err)
{
        const acs_sandbox_cfg *cfg = c->cfg;
        bool mem_cgroup = cfg->mem_cgroup && cfg->cgroup_fd >= 0;
        acs_filter_prog_done(ret_filter);
        sb->memfd = acs_plan_memfd(cfg, mem_cgroup);
        sb->sysv = acs_plan_sysv(cfg, mem_cgroup, root);
        c->sysv = sb->sysv;
        acs_filter_opts fo = { .net_none = cfg->net == ACS_NET_NONE,
                               .extra_deny = cfg->seccomp_deny,
                               .deny_memfd = sb->memfd == ACS_SHM_DENIED,
                               .deny_sysv = sb->sysv == ACS_SHM_DENIED };
        int r = acs_filter_prepare(&fo, ret_filter, err);
        if (r < 0)
                return r;
        c->filter = *ret_filter;
        acs_filter_init_prog(c->exec_init, &c->init_filter);
        /* no Landlock in this kernel (ENOSYS) or switched off (EOPNOTSUPP): the other layers */
        r = acs_landlock_abi();
        c->landlock_abi = sb->landlock_abi = r > 0 ? r : 0;
        c->landlock_fd = -1;
        return 0;
}

/* Setup failed on our side after clone: kill the child and reap it; a
 * child that shared our memory (stack not NULL) is gone from it only then. */
static void spawn_abort(acs_sandbox *sb, void *stack, size_t stack_size)
{
        acs_sandbox_kill(sb);
        acs_sandbox_close(sb);
        if (stack)
                munmap(stack, stack_size);
}

int acs_sandbox_spawn(const acs_sandbox_cfg *cfg_in, acs_sandbox *ret, acs_error *err)
{
        int sp[2], r;
        acs_sandbox_cfg local = *cfg_in, *cfg = &local;
        _cleanup_close_ int tree = -1, release = -1, release_w = -1;
        _cleanup_(acs_filter_prog_done) acs_filter_prog filter = { 0 };
        child_ctx c = { .cfg = cfg };
        bool root = real_root();

        *ret = (acs_sandbox){ .pid = -1, .pidfd = -1, .sync_fd = -1, .upper_fd = -1, .lower_fd = -1 };
        c.root_launcher = root;
        c.uid = geteuid();
        c.gid = getegid();
        if (root) {
                /* Run by root, the sandbox gets an unprivileged host uid: the
                 * owner of the workspace when that is an ordinary user (so
                 * their files stay writable through the overlay), else nobody. */
                struct stat st;
                c.uid = NOBODY_ID;
                c.gid = NOBODY_ID;
                if (cfg->workspace && stat(cfg->workspace, &st) == 0) {
                        if (st.st_uid != 0 && st.st_gid != 0 && st.st_uid <= ACS_ROOT_MAP_LAST &&
                            st.st_gid <= ACS_ROOT_MAP_LAST) {
                                c.uid = st.st_uid;
                                c.gid = st.st_gid;
                        } else if ((tree = acs_idmapped_tree(cfg->workspace, c.uid, c.gid)) >= 0) {
                                /* root-owned: show it owned by the sandbox's uid */
                                local.ws_tree_fd = tree;
                        }
                }
        }

        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
                return acs_error_errno(err, -errno, "sync", "socketpair");
        c.sync_fd = sp[1];
        c.parent_fd = sp[0];

        /* The launcher blocks these and reads them from a signalfd; the
         * program must start with the mask it would have had. */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_BLOCK, &none, &c.saved_mask);
        sigdelset(&c.saved_mask, SIGTERM);
        sigdelset(&c.saved_mask, SIGINT);
        sigdelset(&c.saved_mask, SIGHUP);
        sigdelset(&c.saved_mask, SIGCHLD);
        sigdelset(&c.saved_mask, SIGPIPE);

        int flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |
                    CLONE_NEWCGROUP | CLONE_NEWNET | CLONE_PIDFD | SIGCHLD;
        /*
         * An ordinary user (x86-64): a vfork-style clone. The child runs in
         * our memory on its own stack while we are suspended, writes its own
         * maps, builds the sandbox, starts the program and execs the embedded
         * acs-init, which releases us: no page tables are copied (about 1.3 ms
         * per run on the reference machine).
         *
         * Root: the same child in our memory, but its maps span host ids, so
         * we write them, and so we cannot be suspended. We run on beside it
         * only to write the maps and the go byte, which allocate nothing and
         * touch neither its stack nor the context it reads, then wait on a
         * pipe whose last write end is the child's O_CLOEXEC copy: the read
         * returns when the kernel has moved the child off our memory (its exec
         * of acs-init, or its exit). Errno is the one word both sides write; we
         * read it only after a failure of our own, when the child is killed.
         */
        c.clone = clone_kind(root);
        c.release_fd = -1;
        if (c.clone != ACS_CLONE_FORK)
                flags |= CLONE_VM;
        if (c.clone == ACS_CLONE_VFORK)
                flags |= CLONE_VFORK;
        /* the mount table and the source fds' array: the child allocates nothing */
        _cleanup_free_ acs_mount_op *ops = calloc(acs_mount_ops_max(cfg), sizeof *ops);
        _cleanup_free_ int *src_fds = calloc(cfg->n_binds + cfg->n_ro_layers + 1, sizeof *src_fds);
        if (!ops || !src_fds) {
                r = acs_error_set(err, -ENOMEM, "clone", "out of memory");
                goto fail_sock;
        }
        c.mount_ops = ops;
        c.exec_init = acs_sandbox_init_image();
        c.n_mount_ops = acs_mount_ops(cfg, c.exec_init, ops);
        c.src_fds = src_fds;
        if ((r = prepare_layers(&c, root, &filter, ret, err)) < 0)
                goto fail_sock;
        if (c.clone == ACS_CLONE_SHARED) {
                int p[2];
                if (pipe2(p, O_CLOEXEC) < 0) {
                        r = acs_error_errno(err, -errno, "clone", "pipe");
                        goto fail_sock;
                }
                release = p[0];
                c.release_fd = release_w = p[1];
        }
        size_t stack_size = 1024 * 1024;
        void *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
        if (stack == MAP_FAILED) {
                r = acs_error_errno(err, -errno, "clone", "mmap");
                goto fail_sock;
        }
        acs_prefault_top(stack, stack_size, 32u << 10); /* the child's frames, in one step (prefault.h) */
        c.stack = stack, c.stack_size = stack_size;
        int pidfd = -1, was_dumpable = prctl(PR_GET_DUMPABLE);
        pid_t pid = -1;
        if (cfg->cgroup_fd >= 0) {
                /* Straight into the run's cgroup: its cgroup namespace is
                 * rooted there, and nothing of the sandbox ever runs outside. */
                struct clone_args ca = {
                        .flags = (uint64_t)(flags & ~CSIGNAL) | CLONE_INTO_CGROUP,
                        .pidfd = (uint64_t)(uintptr_t)&pidfd,
                        .exit_signal = SIGCHLD,
                        .stack = (uint64_t)(uintptr_t)stack,
                        .stack_size = stack_size,
                        .cgroup = (uint64_t)cfg->cgroup_fd,
                };
                pid = acs_clone3(&ca, sizeof ca, child_trampoline, &c);
                ret->in_cgroup = pid >= 0;
        }
        /* no cgroup, or the kernel would not clone into it: the rlimits alone
         * (and what the memory cgroup would have bounded is denied instead) */
        if (pid < 0 && cfg->cgroup_fd >= 0) {
                local.cgroup_fd = -1;
                if ((r = prepare_layers(&c, root, &filter, ret, err)) < 0) {
                        munmap(stack, stack_size);
                        goto fail_sock;
                }
        }
        if (pid < 0)
                pid = clone(child_trampoline, (char *)stack + stack_size, flags, &c, &pidfd);
        int saved = errno;
        /* the child's copy is the last write end (c is the child's now: not c.release_fd) */
        closep(&release_w);
        if (pid < 0 || c.clone != ACS_CLONE_SHARED)
                munmap(stack, stack_size);
        if (pid < 0) {
                r = acs_preflight_userns_error(-saved, err);
                goto fail_sock;
        }
        close(sp[1]);
        ret->pid = pid;
        ret->pidfd = pidfd;
        ret->sync_fd = sp[0];
        ret->inner_uid = c.uid;

        if (c.clone == ACS_CLONE_VFORK) {
                /* The vfork-style child shared our mm when it made itself
                 * not dumpable (init_main): that flag is the mm's, so it is
                 * ours now too, and a second sandbox from this process (a
                 * pool worker that falls back to a cold run) could not
                 * write its own /proc/self maps. Init has exec'd: give our
                 * mm its flag back. */
                if (was_dumpable > 0)
                        (void)prctl(PR_SET_DUMPABLE, was_dumpable);
                return 0; /* the child wrote its own maps and is init by now */
        }
        char who[16], path[64];
        snprintf(who, sizeof who, "%d", (int)pid);
        if ((r = write_maps(who, c.uid, c.gid, root, path)) < 0) {
                spawn_abort(ret, c.clone == ACS_CLONE_SHARED ? stack : NULL, stack_size);
                return acs_preflight_idmap_error(r, path, err);
        }
        if (write(ret->sync_fd, &(char){ ACS_SYNC_GO }, 1) != 1) {
                r = -errno;
                spawn_abort(ret, c.clone == ACS_CLONE_SHARED ? stack : NULL, stack_size);
                return acs_error_errno(err, r, "sync", "starting the sandbox");
        }
        if (c.clone == ACS_CLONE_SHARED) {
                /* A read cannot fail on this pipe but for a signal: any
                 * failure is retried (errno may be the child's). */
                char b;
                while (read(release, &b, 1) < 0)
                        ;
                munmap(stack, stack_size);
                if (was_dumpable > 0) /* see the vfork case above */
                        (void)prctl(PR_SET_DUMPABLE, was_dumpable);
        }
        return 0;

fail_sock:
        close(sp[0]);
        close(sp[1]);
        return r;
}

void acs_sandbox_kill(acs_sandbox *sb)
{
        if (sb->pidfd >= 0)
                syscall(SYS_pidfd_send_signal, sb->pidfd, SIGKILL, NULL, 0);
}

void acs_sandbox_close(acs_sandbox *sb)
{
        if (sb->pid > 0) {
                /* init is our child: reap it so no zombie is left */
                siginfo_t si;
                while (waitid(P_PIDFD, sb->pidfd, &si, WEXITED) < 0 && errno == EINTR)
                        ;
                sb->pid = -1;
        }
        closep(&sb->pidfd);
        closep(&sb->sync_fd);
        closep(&sb->upper_fd);
        closep(&sb->lower_fd);
        sb->pidfd = sb->sync_fd = sb->upper_fd = sb->lower_fd = -1;
}
