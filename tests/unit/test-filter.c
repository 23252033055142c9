/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The seccomp filter, two ways:
 *  1. Live: forked children install the filter (after no_new_privs) and try
 *     the denied calls; controls without the filter show that the same call
 *     would otherwise succeed, so an EPERM really comes from the filter.
 *  2. Table-driven: the generated BPF programs are run in a small cBPF
 *     interpreter on synthetic seccomp_data, for what this kernel cannot
 *     show live (i386 emulation may be off) and for every value of an
 *     argument rule (personality, socket families, upper-half bits).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/keyctl.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "filter-rules.h"
#include "filter.h"
#include "src/filter-bpf.h"
#include "../tap.h"

#ifndef __X32_SYSCALL_BIT
#define __X32_SYSCALL_BIT 0x40000000
#endif

static const acs_filter_opts NONE = { .net_none = true };
static const acs_filter_opts LOOP = { .net_none = false };

/* ---- live checks in forked children ---------------------------------- */

/* Each probe returns 0 when the call succeeded, else the errno it got. */
typedef int (*probe_fn)(void);
#define RET(expr) return (expr) < 0 ? errno : 0

/* Fork; in the child optionally install the filter, run the probe and exit
 * with its result (100 + x for a failed install). Returns the wait status. */
static int in_child(const acs_filter_opts *o, probe_fn fn)
{
        pid_t pid;
        int status;

        fflush(stdout);
        pid = fork();
        if (pid < 0)
                return -1;
        if (pid == 0) {
                acs_error err = { 0 };
                if (o) {
                        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                                _exit(101);
                        if (acs_filter_install(o, &err) < 0) {
                                fprintf(stderr, "install: %s\n", err.msg);
                                _exit(102);
                        }
                }
                _exit(fn());
        }
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -1;
        return status;
}

static void expect(const acs_filter_opts *o, probe_fn fn, int want_errno, const char *name)
{
        int st = in_child(o, fn);
        int got = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        tap_ok(got == want_errno, "%s: %s -> %s", !o ? "no filter" : o == &LOOP ? "loopback" : "net none", name,
               want_errno ? strerror(want_errno) : "succeeds");
        if (got != want_errno)
                diag("got %s %d", WIFSIGNALED(st) ? "signal" : "status",
                     WIFSIGNALED(st) ? WTERMSIG(st) : got);
}

static void expect_kill(const acs_filter_opts *o, probe_fn fn, int sig, const char *name)
{
        int st = in_child(o, fn);
        tap_ok(WIFSIGNALED(st) && WTERMSIG(st) == sig, "%s kills the process with signal %d",
               name, sig);
        if (!(WIFSIGNALED(st) && WTERMSIG(st) == sig))
                diag("wait status 0x%x", st);
}

static int p_unshare_user(void) { RET(unshare(CLONE_NEWUSER)); }
static int p_unshare_files(void) { RET(unshare(CLONE_FILES)); }

static unsigned long clone_flag; /* set before fork; the child reads its copy */
static int p_clone_flag(void)
{
        long r = syscall(SYS_clone, clone_flag | SIGCHLD, 0, 0, 0, 0);
        if (r == 0)
                _exit(0);
        if (r < 0)
                return errno;
        waitpid(r, NULL, 0);
        return 0;
}
static int p_clone3(void)
{
        struct clone_args a = { .exit_signal = SIGCHLD };
        long r = syscall(435 /* clone3 */, &a, sizeof(a));
        if (r == 0)
                _exit(0);
        if (r > 0)
                waitpid(r, NULL, 0);
        RET(r);
}

/* TIOCSTI on a pty that is our controlling terminal, which the kernel
 * allows (unless dev.tty.legacy_tiocsti=0): only the filter refuses. */
static unsigned long tiocsti_upper; /* extra bits in the upper half of cmd */
static int p_tiocsti(void)
{
        int m, s;
        char c = 'x';

        m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0 || setsid() < 0)
                return 200;
        s = open(ptsname(m), O_RDWR | O_CLOEXEC); /* session leader: becomes our ctty */
        if (s < 0)
                return 201;
        RET(syscall(SYS_ioctl, s, (unsigned long)TIOCSTI | tiocsti_upper, &c));
}
static int p_tioclinux(void)
{
        int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        char sub = 0; /* not a VT: the kernel says ENOTTY, the filter EPERM */
        if (m < 0)
                return 200;
        RET(ioctl(m, TIOCLINUX, &sub));
}

static int p_keyctl(void) { RET(syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0)); }
static int p_add_key(void) { RET(syscall(SYS_add_key, "user", "acs", "x", 1, KEY_SPEC_SESSION_KEYRING)); }
static int p_request_key(void) { RET(syscall(SYS_request_key, "user", "acs", NULL, 0)); }
static int p_bpf(void)
{
        union bpf_attr a = { .map_type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 4, .max_entries = 1 };
        RET(syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof(a)));
}
static int p_perf(void)
{
        struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
                                     .config = PERF_COUNT_SW_TASK_CLOCK, .exclude_kernel = 1 };
        RET(syscall(SYS_perf_event_open, &a, 0, -1, -1, 0));
}
static int p_userfaultfd(void) { RET(syscall(SYS_userfaultfd, O_CLOEXEC)); }
static int p_ptrace(void) { RET(ptrace(PTRACE_TRACEME, 0, NULL, NULL)); }
static int p_vm_readv(void)
{
        char a[8] = "abc", b[8];
        struct iovec l = { b, sizeof(b) }, r = { a, sizeof(a) };
        RET(process_vm_readv(getpid(), &l, 1, &r, 1, 0));
}
static int p_mount(void) { RET(mount("none", "/tmp", "tmpfs", 0, NULL)); }
static int p_umount(void) { RET(umount2("/nonexistent-acs", MNT_DETACH)); }
static int p_pivot_root(void) { RET(syscall(SYS_pivot_root, ".", ".")); }
static int p_chroot(void) { RET(chroot("/")); }
static int p_setns(void) { RET(setns(-1, 0)); }
static int p_kexec(void) { RET(syscall(SYS_kexec_load, 0, 0, NULL, 0)); }
static int p_open_by_handle(void) { RET(syscall(SYS_open_by_handle_at, -1, NULL, 0)); }
static int p_io_uring(void)
{
        struct io_uring_params p = { 0 };
        RET(syscall(SYS_io_uring_setup, 1, &p));
}
static int p_pers_linux32(void) { RET(personality(PER_LINUX32)); }
static int p_pers_norandom(void) { RET(personality(ADDR_NO_RANDOMIZE)); }
static int p_pers_norandom_upper(void) { RET(syscall(SYS_personality, (1UL << 32) | ADDR_NO_RANDOMIZE)); }
static int p_pers_query(void) { RET(personality(0xffffffff)); }
static int p_pers_linux(void) { RET(personality(PER_LINUX)); }

static int domain, proto; /* for p_socket */
static int p_socket(void) { RET(socket(domain, SOCK_STREAM | SOCK_CLOEXEC, 0)); }
static int p_socket_raw(void) { RET(socket(domain, SOCK_RAW | SOCK_CLOEXEC, proto)); }
static int p_socket_upper(void) { RET(syscall(SYS_socket, (1UL << 32) | AF_INET, SOCK_STREAM, 0)); }
static int p_socketpair(void)
{
        int sv[2];
        RET(socketpair(domain, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
}

static int p_x32(void) { RET(syscall(__X32_SYSCALL_BIT | SYS_getpid)); }
static int p_int80(void)
{
#if defined(__x86_64__)
        long ret;
        __asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L /* i386 getpid */) : "memory");
        return ret == getpid() ? 0 : 1;
#else
        return 1;
#endif
}

static int p_getcwd(void)
{
        char b[256];
        return getcwd(b, sizeof(b)) ? 0 : errno;
}
static void *thread_main(void *a) { return a; }
/* What a program needs: syscalls, files, memory, threads, processes, exec. */
static int p_ordinary(void)
{
        pthread_t t;
        void *res = NULL;
        int fd, st;
        pid_t pid;
        void *m;

        if (getpid() <= 0)
                return 10;
        fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return 11;
        close(fd);
        m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
                return 12;
        memset(m, 1, 1 << 20);
        if (pthread_create(&t, NULL, thread_main, m) != 0 || pthread_join(t, &res) != 0 || res != m)
                return 13; /* glibc: clone3 gets ENOSYS, falls back to clone */
        pid = fork();
        if (pid == 0)
                _exit(7);
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 7)
                return 14;
        pid = fork();
        if (pid == 0) {
                execl("/bin/true", "true", (char *)NULL);
                _exit(99);
        }
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
                return 15;
        return 0;
}

static void live_tests(void)
{
        static const struct {
                unsigned long flag;
                const char *name;
        } ns[] = { { CLONE_NEWUSER, "CLONE_NEWUSER" }, { CLONE_NEWNS, "CLONE_NEWNS" },
                   { CLONE_NEWPID, "CLONE_NEWPID" },   { CLONE_NEWNET, "CLONE_NEWNET" },
                   { CLONE_NEWIPC, "CLONE_NEWIPC" },   { CLONE_NEWUTS, "CLONE_NEWUTS" },
                   { CLONE_NEWCGROUP, "CLONE_NEWCGROUP" } };
        int legacy = -1, st;
        FILE *f;

        expect(&NONE, p_ordinary, 0, "getpid, open, mmap, threads, fork, execve");
        expect(&LOOP, p_ordinary, 0, "getpid, open, mmap, threads, fork, execve");
        expect(&NONE, p_unshare_user, EPERM, "unshare(CLONE_NEWUSER)");
        expect(&NONE, p_unshare_files, EPERM, "unshare(CLONE_FILES) (unshare denied entirely)");
        for (size_t i = 0; i < ELEMENTSOF(ns); i++) {
                char d[64];
                clone_flag = ns[i].flag;
                snprintf(d, sizeof(d), "clone(%s|SIGCHLD)", ns[i].name);
                expect(&NONE, p_clone_flag, EPERM, d);
        }
        clone_flag = 0;
        expect(&NONE, p_clone_flag, 0, "clone(SIGCHLD) without namespace flags");
        expect(&NONE, p_clone3, ENOSYS, "clone3");

        f = fopen("/proc/sys/dev/tty/legacy_tiocsti", "re");
        if (f) {
                if (fscanf(f, "%d", &legacy) != 1)
                        legacy = -1;
                fclose(f);
        }
        st = in_child(NULL, p_tiocsti);
        diag("dev.tty.legacy_tiocsti=%d; TIOCSTI on own pty without filter: %s", legacy,
             WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "works" : strerror(WEXITSTATUS(st)));
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
                ok(1, "control: TIOCSTI on our controlling pty works without the filter");
        else
                skip("control: TIOCSTI disabled by the kernel here (%s)",
                   strerror(WEXITSTATUS(st)));
        expect(&NONE, p_tiocsti, EPERM, "ioctl(TIOCSTI) on our controlling pty");
        tiocsti_upper = 1UL << 32;
        expect(&NONE, p_tiocsti, EPERM, "ioctl(TIOCSTI | 1<<32): only the low 32 bits count");
        tiocsti_upper = 0;
        expect(NULL, p_tioclinux, ENOTTY, "control: TIOCLINUX on a pty reaches the kernel");
        expect(&NONE, p_tioclinux, EPERM, "ioctl(TIOCLINUX)");

}

static void live_tests_calls(void)
{
        int st;

        expect(&NONE, p_keyctl, EPERM, "keyctl");
        expect(&NONE, p_add_key, EPERM, "add_key");
        expect(&NONE, p_request_key, EPERM, "request_key");
        expect(&NONE, p_bpf, EPERM, "bpf(BPF_MAP_CREATE)");
        expect(&NONE, p_perf, EPERM, "perf_event_open");
        expect(&NONE, p_userfaultfd, EPERM, "userfaultfd");
        expect(NULL, p_ptrace, 0, "control: ptrace(PTRACE_TRACEME) works without the filter");
        expect(&NONE, p_ptrace, EPERM, "ptrace(PTRACE_TRACEME)");
        expect(NULL, p_vm_readv, 0, "control: process_vm_readv of self works without the filter");
        expect(&NONE, p_vm_readv, EPERM, "process_vm_readv");
        expect(&NONE, p_mount, EPERM, "mount");
        expect(&NONE, p_umount, EPERM, "umount2");
        expect(&NONE, p_pivot_root, EPERM, "pivot_root");
        expect(&NONE, p_chroot, EPERM, "chroot");
        expect(&NONE, p_setns, EPERM, "setns");
        expect(&NONE, p_kexec, EPERM, "kexec_load");
        expect(&NONE, p_open_by_handle, EPERM, "open_by_handle_at");
        expect(NULL, p_io_uring, 0, "control: io_uring_setup works without the filter");
        expect(&NONE, p_io_uring, EPERM, "io_uring_setup");
        expect(&NONE, p_pers_linux32, EPERM, "personality(PER_LINUX32)");
        expect(&NONE, p_pers_norandom, EPERM, "personality(ADDR_NO_RANDOMIZE)");
        expect(&NONE, p_pers_norandom_upper, EPERM, "personality(1<<32 | ADDR_NO_RANDOMIZE)");
        expect(&NONE, p_pers_query, 0, "personality(0xffffffff) (query)");
        expect(&NONE, p_pers_linux, 0, "personality(PER_LINUX)");

        domain = AF_INET;
        expect(&NONE, p_socket, EPERM, "socket(AF_INET)");
        expect(&LOOP, p_socket, 0, "socket(AF_INET)");
        expect(&NONE, p_socket_upper, EPERM, "socket(1<<32 | AF_INET)");
        domain = AF_INET6;
        expect(&NONE, p_socket, EPERM, "socket(AF_INET6)");
        expect(&LOOP, p_socket, 0, "socket(AF_INET6)");
        domain = AF_UNIX;
        expect(&NONE, p_socket, 0, "socket(AF_UNIX)");
        expect(&LOOP, p_socket, 0, "socket(AF_UNIX)");
        expect(&NONE, p_socketpair, 0, "socketpair(AF_UNIX)");
        domain = AF_INET;
        expect(&NONE, p_socketpair, EPERM, "socketpair(AF_INET)");
        domain = AF_NETLINK, proto = NETLINK_ROUTE;
        expect(&NONE, p_socket_raw, EPERM, "socket(AF_NETLINK, NETLINK_ROUTE)");
        expect(&LOOP, p_socket_raw, 0, "socket(AF_NETLINK, NETLINK_ROUTE)");
        proto = NETLINK_NETFILTER;
        expect(&LOOP, p_socket_raw, EPERM, "socket(AF_NETLINK, NETLINK_NETFILTER)");
        domain = AF_PACKET, proto = 0;
        expect(&LOOP, p_socket_raw, EPERM, "socket(AF_PACKET)");

        expect_kill(&NONE, p_x32, SIGSYS, "an x32 syscall (getpid | __X32_SYSCALL_BIT)");
        st = in_child(NULL, p_int80);
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
                expect_kill(&NONE, p_int80, SIGSYS, "an i386 syscall (int 0x80)");
        else
                skip("i386 emulation is off in this kernel (int 0x80 -> %s); "
                      "covered by the BPF table below",
                   WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "error");
}

static void extra_deny_tests(void)
{
        char *deny[] = { (char *)"getcwd", (char *)"lsm_list_modules", (char *)"vm86",
                         (char *)"clone3", (char *)"socket", NULL };
        char *bad[] = { (char *)"getcwd", (char *)"no_such_call", NULL };
        acs_filter_opts o = { .net_none = true, .extra_deny = deny };
        acs_filter_opts b = { .net_none = true, .extra_deny = bad };
        acs_filter_prog prog = { 0 };
        acs_error err = { 0 };
        int r;

        expect(&o, p_getcwd, EPERM, "[seccomp] deny = getcwd ...: getcwd");
        domain = AF_UNIX;
        expect(&o, p_socket, EPERM, "[seccomp] deny = socket overrides the AF_UNIX exception");
        expect(&o, p_clone3, ENOSYS, "[seccomp] deny = clone3 keeps ENOSYS");
        expect(&o, p_ordinary, 0, "[seccomp] deny: ordinary calls still work");

        is_int(acs_filter_validate_names(deny, &err), 0, "validate: known names pass");
        r = acs_filter_validate_names(bad, &err);
        ok(r < 0 && strstr(err.msg, "'no_such_call'"), "validate: unknown name is named: %s", err.msg);
        memset(&err, 0, sizeof(err));
        r = acs_filter_prepare(&b, &prog, &err); /* builds only, loads nothing */
        ok(r < 0 && strstr(err.msg, "no_such_call"), "prepare: unknown name is named: %s", err.msg);
}

/* ---- the generated BPF, run in a small cBPF interpreter --------------- */

static uint32_t bpf_run(const struct sock_filter *p, size_t n, const struct seccomp_data *d)
{
        uint32_t A = 0, X = 0, M[BPF_MEMWORDS] = { 0 };
        const unsigned char *data = (const unsigned char *)d;

        for (size_t pc = 0; pc < n; pc++) {
                const struct sock_filter *i = &p[pc];
                uint32_t src = BPF_SRC(i->code) == BPF_X ? X : i->k;
                switch (BPF_CLASS(i->code)) {
                case BPF_LD:
                        if (i->code == (BPF_LD | BPF_W | BPF_ABS) && i->k + 4 <= sizeof(*d))
                                memcpy(&A, data + i->k, 4);
                        else if (i->code == (BPF_LD | BPF_IMM))
                                A = i->k;
                        else if (i->code == (BPF_LD | BPF_MEM))
                                A = M[i->k % BPF_MEMWORDS];
                        else
                                return 0xdeadbeef;
                        break;
                case BPF_LDX:
                        X = BPF_MODE(i->code) == BPF_MEM ? M[i->k % BPF_MEMWORDS] : i->k;
                        break;
                case BPF_ST: M[i->k % BPF_MEMWORDS] = A; break;
                case BPF_STX: M[i->k % BPF_MEMWORDS] = X; break;
                case BPF_ALU:
                        switch (BPF_OP(i->code)) {
                        case BPF_AND: A &= src; break;
                        case BPF_OR: A |= src; break;
                        case BPF_ADD: A += src; break;
                        case BPF_SUB: A -= src; break;
                        case BPF_LSH: A <<= src; break;
                        case BPF_RSH: A >>= src; break;
                        default: return 0xdeadbeef;
                        }
                        break;
                case BPF_JMP: {
                        bool c;
                        if (BPF_OP(i->code) == BPF_JA) {
                                pc += i->k;
                                continue;
                        }
                        switch (BPF_OP(i->code)) {
                        case BPF_JEQ: c = A == src; break;
                        case BPF_JGT: c = A > src; break;
                        case BPF_JGE: c = A >= src; break;
                        case BPF_JSET: c = (A & src) != 0; break;
                        default: return 0xdeadbeef;
                        }
                        pc += c ? i->jt : i->jf;
                        break;
                }
                case BPF_RET: return BPF_RVAL(i->code) == BPF_A ? A : i->k;
                case BPF_MISC: if (BPF_MISCOP(i->code) == BPF_TAX) X = A; else A = X; break;
                default: return 0xdeadbeef;
                }
        }
        return 0xdeadbeef; /* fell off the end: invalid */
}

#define ALLOW SECCOMP_RET_ALLOW
#define DENY(e) (SECCOMP_RET_ERRNO | (e))
#define KILLP SECCOMP_RET_KILL_PROCESS

static uint32_t eval(bool net_none, uint32_t arch, int nr, uint64_t a0, uint64_t a1, uint64_t a2)
{
        struct seccomp_data d = { .nr = nr, .arch = arch, .args = { a0, a1, a2 } };
        if (net_none)
                return bpf_run(acs_bpf_net_none, ELEMENTSOF(acs_bpf_net_none), &d);
        return bpf_run(acs_bpf_net_loopback, ELEMENTSOF(acs_bpf_net_loopback), &d);
}

static void bpf_tests(void)
{
        /* Every syscall Docker's default profile (moby, 2026) does not allow on
         * x86_64 without capabilities, plus the security model's additions. */
        static const char *docker_denied[] = {
                "syslog", "uselib", "ustat", "sysfs", "vhangup", "pivot_root", "_sysctl",
                "chroot", "acct", "settimeofday", "mount", "umount2", "swapon", "swapoff",
                "reboot", "sethostname", "setdomainname", "iopl", "ioperm", "create_module",
                "init_module", "delete_module", "get_kernel_syms", "query_module", "quotactl",
                "nfsservctl", "getpmsg", "putpmsg", "afs_syscall", "tuxcall", "security",
                "lookup_dcookie", "clock_settime", "vserver", "mbind", "set_mempolicy",
                "get_mempolicy", "kexec_load", "add_key", "request_key", "keyctl",
                "migrate_pages", "unshare", "move_pages", "perf_event_open", "fanotify_init",
                "open_by_handle_at", "setns", "kcmp", "finit_module", "kexec_file_load", "bpf",
                "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
                "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick",
                "pidfd_getfd", "process_madvise", "mount_setattr", "quotactl_fd",
                "set_mempolicy_home_node", "lsm_get_self_attr", "lsm_set_self_attr",
                "lsm_list_modules", "open_tree_attr", "futex_requeue", "file_getattr",
                "file_setattr",
                /* security model */
                "ptrace", "process_vm_readv", "process_vm_writev", "name_to_handle_at",
                "clock_adjtime", "modify_ldt",
        };
        const uint32_t x64 = AUDIT_ARCH_X86_64;
        int bad = 0;

        for (int m = 0; m < 2; m++)
                for (size_t i = 0; i < ELEMENTSOF(docker_denied); i++) {
                        int nr = acs_filter_resolve(docker_denied[i]);
                        uint32_t r = nr < 0 ? 0 : eval(m, x64, nr, 0, 0, 0);
                        if (nr < 0 || (r & SECCOMP_RET_ACTION_FULL) != SECCOMP_RET_ERRNO) {
                                diag("%s (nr %d): 0x%x", docker_denied[i], nr, r);
                                bad++;
                        }
                }
        is_int(bad, 0, "BPF: every syscall Docker denies is denied, both network modes");
        is_int(eval(1, x64, SYS_clone3, 0, 0, 0), DENY(ENOSYS), "BPF: clone3 -> ENOSYS");
        is_int(eval(1, x64, 470, 0, 0, 0), DENY(ENOSYS), "BPF: a future syscall (470) -> ENOSYS");
        is_int(eval(1, x64, SYS_getpid, 0, 0, 0), ALLOW, "BPF: getpid allowed");
        is_int(eval(1, AUDIT_ARCH_I386, 20, 0, 0, 0), KILLP, "BPF: i386 ABI kills the process");
        is_int(eval(0, AUDIT_ARCH_I386, 20, 0, 0, 0), KILLP, "BPF: i386 ABI kills (loopback)");
        is_int(eval(1, x64, __X32_SYSCALL_BIT | SYS_getpid, 0, 0, 0), KILLP,
               "BPF: x32 ABI kills the process");
        is_int(eval(1, 0x12345678, SYS_getpid, 0, 0, 0), KILLP, "BPF: unknown arch kills");

}

static void bpf_arg_tests(void)
{
        const uint32_t x64 = AUDIT_ARCH_X86_64;
        int bad = 0;

        /* personality: exactly 0 and 0xffffffff in the low 32 bits pass */
        {
                static const uint64_t vals[] = { 0, 0xffffffff, UINT64_C(0xffffffff00000000),
                                                 8, 0x20000, 0x20008, 0x0040000, 0x0400000, 1,
                                                 0x80000000, 0x7fffffff, 0xfffffffe,
                                                 UINT64_C(0x100400000) };
                bad = 0;
                for (size_t i = 0; i < ELEMENTSOF(vals); i++) {
                        uint32_t lo = (uint32_t)vals[i];
                        uint32_t want = lo == 0 || lo == 0xffffffff ? ALLOW : DENY(EPERM);
                        if (eval(1, x64, SYS_personality, vals[i], 0, 0) != want) {
                                diag("personality(0x%llx)", (unsigned long long)vals[i]);
                                bad++;
                        }
                }
                for (uint32_t b = 0; b < 32; b++) /* every single bit, and all-but-one */
                        if (eval(1, x64, SYS_personality, 1u << b, 0, 0) != DENY(EPERM) ||
                            eval(1, x64, SYS_personality, ~(1u << b), 0, 0) != DENY(EPERM))
                                bad++;
                is_int(bad, 0, "BPF: personality allows only 0 and 0xffffffff (low 32 bits)");
        }
        /* ioctl: the upper half of cmd does not hide TIOCSTI */
        is_int(eval(1, x64, SYS_ioctl, 0, TIOCSTI | (UINT64_C(0xdead) << 32), 0), DENY(EPERM),
               "BPF: ioctl(TIOCSTI with upper bits) denied");
        is_int(eval(1, x64, SYS_ioctl, 0, TIOCSETD, 0), DENY(EPERM), "BPF: ioctl(TIOCSETD) denied");
        is_int(eval(1, x64, SYS_ioctl, 0, TCGETS, 0), ALLOW, "BPF: ioctl(TCGETS) allowed");
        /* clone: any namespace flag, also mixed with thread flags */
        is_int(eval(1, x64, SYS_clone, CLONE_VM | CLONE_THREAD | CLONE_SIGHAND | CLONE_NEWNET, 0, 0),
               DENY(EPERM), "BPF: clone(thread flags | CLONE_NEWNET) denied");
        is_int(eval(1, x64, SYS_clone, CLONE_VM | CLONE_THREAD | CLONE_SIGHAND | CLONE_SETTLS, 0, 0),
               ALLOW, "BPF: clone(thread flags) allowed");
        /* sockets, every family */
        bad = 0;
        for (uint64_t f = 0; f < 64; f++) {
                /* proto 0 is NETLINK_ROUTE */
                bool loop_ok = f == AF_UNIX || f == AF_INET || f == AF_INET6 || f == AF_NETLINK;
                if (eval(1, x64, SYS_socket, f, SOCK_STREAM, 0) != (f == AF_UNIX ? ALLOW : DENY(EPERM)) ||
                    eval(0, x64, SYS_socket, f, SOCK_STREAM, 0) != (loop_ok ? ALLOW : DENY(EPERM)) ||
                    eval(1, x64, SYS_socketpair, f, SOCK_STREAM, 0) != (f == AF_UNIX ? ALLOW : DENY(EPERM))) {
                        diag("family %llu", (unsigned long long)f);
                        bad++;
                }
        }
        is_int(bad, 0, "BPF: socket families: none = unix only; loopback = unix, inet, inet6, netlink");
        is_int(eval(0, x64, SYS_socket, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE), ALLOW,
               "BPF: loopback allows NETLINK_ROUTE");
        is_int(eval(0, x64, SYS_socket, AF_NETLINK, SOCK_RAW, NETLINK_AUDIT), DENY(EPERM),
               "BPF: loopback denies other netlink protocols");
        is_int(eval(0, x64, SYS_socket, (UINT64_C(1) << 32) | AF_INET, SOCK_STREAM, 0), DENY(EPERM),
               "BPF: loopback: junk in the upper half is denied, not misread");
}

/* The header generated at build time is what the rules produce now. */
static void generated_matches_runtime(void)
{
        for (int m = 0; m < 2; m++) {
                acs_filter_opts o = { .net_none = m };
                acs_filter_prog rt = { 0 }, pre = { 0 };
                acs_error err = { 0 };
                int r1 = acs_filter_prepare_runtime(&o, &rt, &err);
                int r2 = acs_filter_prepare(&o, &pre, &err);
                ok(r1 == 0 && r2 == 0 && pre.owned == NULL && rt.fprog.len == pre.fprog.len &&
                           memcmp(rt.fprog.filter, pre.fprog.filter,
                                  rt.fprog.len * sizeof(struct sock_filter)) == 0,
                   "generated BPF (%s, %u insns) equals the run-time build", m ? "none" : "loopback",
                   pre.fprog.len);
                acs_filter_prog_done(&rt);
        }
}

/*
 * A profile's deny list goes in front of the baked program as a jump table
 * (filter.c). It must answer every call exactly as libseccomp building the
 * whole filter would: every syscall number, every ABI, a set of arguments.
 */
static void prefixed_matches_runtime(void)
{
        static char *sets[][8] = {
                { "getcwd", NULL },
                { "socket", "clone3", "uname", "personality", NULL },
                { "lsm_list_modules", "vm86", "ioctl", "clone", "getcwd", "getcwd", NULL },
                { "execve", "bpf", "futex_requeue", NULL },
        };
        static const uint64_t argsets[][3] = {
                { 0, 0, 0 }, { AF_INET, SOCK_STREAM, 0 }, { AF_NETLINK, SOCK_RAW, NETLINK_ROUTE },
                { AF_UNIX, SOCK_STREAM, 0 }, { CLONE_NEWUSER | SIGCHLD, 0, 0 }, { 8, TIOCSTI, 0 },
                { 0xffffffff, TCGETS, 0 },
        };
        static const uint32_t arches[] = { AUDIT_ARCH_X86_64, AUDIT_ARCH_I386, 0x12345678 };

        /* the shared-memory denials (no memory cgroup) go the same way */
        for (size_t s = 0; s < ELEMENTSOF(sets) + 3; s++)
                for (int m = 0; m < 2; m++) {
                        size_t u = s < ELEMENTSOF(sets) ? 0 : s - ELEMENTSOF(sets) + 1;
                        acs_filter_opts o = { .net_none = m, .extra_deny = u ? sets[u] : sets[s],
                                              .deny_memfd = u & 1, .deny_sysv = u >= 2 };
                        acs_filter_prog pre = { 0 }, rt = { 0 };
                        acs_error err = { 0 };
                        long diffs = 0, checked = 0;

                        if (acs_filter_prepare(&o, &pre, &err) < 0 ||
                            acs_filter_prepare_runtime(&o, &rt, &err) < 0) {
                                ok(0, "deny set %zu: prepare: %s", s, err.msg);
                                continue;
                        }
                        for (size_t a = 0; a < ELEMENTSOF(arches); a++)
                                for (int x32 = 0; x32 < 2; x32++)
                                        for (int nr = 0; nr < 520; nr++)
                                                for (size_t g = 0; g < ELEMENTSOF(argsets); g++) {
                                                        struct seccomp_data d = {
                                                                .nr = nr | (x32 ? __X32_SYSCALL_BIT : 0),
                                                                .arch = arches[a],
                                                                .args = { argsets[g][0], argsets[g][1], argsets[g][2] },
                                                        };
                                                        uint32_t r1 = bpf_run(pre.fprog.filter, pre.fprog.len, &d);
                                                        uint32_t r2 = bpf_run(rt.fprog.filter, rt.fprog.len, &d);
                                                        checked++;
                                                        if (r1 != r2 && diffs++ < 3)
                                                                diag("arch 0x%x nr %d args %zu: table 0x%x, libseccomp 0x%x",
                                                                     arches[a], d.nr, g, r1, r2);
                                                }
                        ok(diffs == 0 && pre.owned, "deny set %zu (%s): jump table == libseccomp on %ld inputs",
                           s, m ? "none" : "loopback", checked);
                        acs_filter_prog_done(&pre);
                        acs_filter_prog_done(&rt);
                }
}

/* pid 1's own filter: only what init does; anything else kills it */
static void init_filter_tests(void)
{
#if defined(__x86_64__)
        static const struct {
                int nr;
                uint64_t a0, a1;
                bool exec, allowed;
        } t[] = {
                { __NR_wait4, 0, 0, false, true },       { __NR_sendto, 0, 0, false, true },
                { __NR_exit_group, 0, 0, false, true },  { __NR_rt_sigreturn, 0, 0, false, true },
                { __NR_prctl, PR_SET_DUMPABLE, 0, false, true },
                { __NR_prctl, PR_SET_DUMPABLE, 1, false, false },
                { __NR_prctl, PR_SET_NO_NEW_PRIVS, 0, false, false },
                { __NR_execveat, 0, 0, false, false },   { __NR_execveat, 0, 0, true, true },
                { __NR_execve, 0, 0, true, false },      { __NR_openat, 0, 0, false, false },
                { __NR_io_uring_setup, 0, 0, false, false }, { __NR_keyctl, 0, 0, false, false },
                { __NR_socket, AF_PACKET, 0, false, false }, { __NR_unshare, 0, 0, false, false },
                { __NR_ptrace, 0, 0, false, false },     { __NR_write, 1, 0, false, false },
                { __NR_kill, (uint32_t)-1, SIGKILL, false, true }, { __NR_kill, 0xffffffffffffffffull, SIGKILL, true, true },
                { __NR_kill, (uint32_t)-1, SIGTERM, false, false }, { __NR_kill, 2, SIGKILL, false, false },
                { __NR_kill, 0, SIGKILL, false, false },  { __NR_tkill, 2, SIGKILL, false, false },
        };
        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                struct sock_fprog p;
                acs_filter_init_prog(t[i].exec, &p);
                struct seccomp_data d = { .nr = t[i].nr, .arch = AUDIT_ARCH_X86_64, .args = { t[i].a0, t[i].a1 } };
                uint32_t r = bpf_run(p.filter, p.len, &d);
                uint32_t want = t[i].allowed ? SECCOMP_RET_ALLOW : SECCOMP_RET_KILL_PROCESS;
                ok((r & SECCOMP_RET_ACTION_FULL) == want, "init filter%s: syscall %d (%llu, %llu) %s", t[i].exec ? " (exec)" : "",
                   t[i].nr, (unsigned long long)t[i].a0, (unsigned long long)t[i].a1, t[i].allowed ? "allowed" : "kills");
        }
        struct sock_fprog p;
        acs_filter_init_prog(false, &p);
        struct seccomp_data x32 = { .nr = __NR_wait4 | __X32_SYSCALL_BIT, .arch = AUDIT_ARCH_X86_64 };
        struct seccomp_data i386 = { .nr = 7, .arch = AUDIT_ARCH_I386 };
        ok((bpf_run(p.filter, p.len, &x32) & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_KILL_PROCESS, "init filter: x32 kills");
        ok((bpf_run(p.filter, p.len, &i386) & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_KILL_PROCESS, "init filter: i386 kills");
#endif
}

int main(void)
{
        init_filter_tests();
        generated_matches_runtime();
        prefixed_matches_runtime();
        bpf_tests();
        bpf_arg_tests();
        live_tests();
        live_tests_calls();
        extra_deny_tests();
        return tap_done();
}
