/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The seccomp rule set, expressed with libseccomp.
 *
 * Model: default ALLOW plus a deny list. The sandboxed program is a general
 * Python interpreter (and, for `exec`, a shell and coreutils): an allow list
 * tight enough to mean something would break ordinary programs and would
 * have to track every glibc and CPython release. The other layers (user,
 * mount, pid, net, ipc, uts namespaces; no capabilities; no_new_privs) already
 * confine what an allowed syscall can reach. The deny list removes the kernel
 * surface that those layers do not cover or that has a record of exploits.
 *
 * It is at least as strict as Docker's default profile: every syscall Docker
 * does not allow to a container without capabilities is denied here too
 * (checked against moby's profiles/seccomp/default.json), and the security
 * model adds ptrace, process_vm_*, io_uring, personality changes, TIOCSTI
 * and TIOCLINUX on top. Deliberate differences are noted where they occur.
 *
 * A denied call fails with EPERM. Exceptions: clone3 fails with ENOSYS so
 * that glibc falls back to clone, whose flags (unlike clone3's, which live in
 * memory) the filter can inspect; syscalls newer than this table fail with
 * ENOSYS, which is what an older kernel would answer and what libcs expect
 * before they fall back. Non-native ABIs (i386 via int 0x80, x32 via
 * __X32_SYSCALL_BIT) kill the whole process: the rules below are written in
 * native numbers, so any other ABI would see none of them.
 */
#include <errno.h>
#include <signal.h>
#include <linux/sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/netlink.h>

#include "filter-rules.h"

#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#ifndef TIOCSTI
#define TIOCSTI 0x5412
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#ifndef TIOCSETD
#define TIOCSETD 0x5423
#endif

/*
 * Syscalls newer than libseccomp 2.5.4's table (Debian 12). From 424 on,
 * syscall numbers are the same on every architecture that uses the unified
 * table, so the numbers below are used only there (see unified_numbers()).
 */
static const struct {
        const char *name;
        int nr;
} newer_syscalls[] = {
        { "futex_requeue", 456 },     { "statmount", 457 },       { "listmount", 458 },
        { "lsm_get_self_attr", 459 }, { "lsm_set_self_attr", 460 }, { "lsm_list_modules", 461 },
        { "mseal", 462 },             { "setxattrat", 463 },      { "getxattrat", 464 },
        { "listxattrat", 465 },       { "removexattrat", 466 },   { "open_tree_attr", 467 },
        { "file_getattr", 468 },      { "file_setattr", 469 },
};
/* First number after newer_syscalls[]; [FUTURE_FIRST, FUTURE_LAST] fail with ENOSYS. */
#define FUTURE_FIRST 470
#define FUTURE_LAST 511

/* Unconditional denials. errno 0 means EPERM. */
static const struct {
        const char *name;
        int errno_ret;
} baseline_deny[] = {
        /* Kernel modules, kexec, reboot, swap, accounting, clock: host-global
         * state. All need capabilities we do not have; denied so the attempt
         * never reaches the code path (Docker: needs CAP_SYS_MODULE, _BOOT,
         * _PACCT, _TIME). */
        { "init_module", 0 }, { "finit_module", 0 }, { "delete_module", 0 },
        { "create_module", 0 }, { "get_kernel_syms", 0 }, { "query_module", 0 },
        { "kexec_load", 0 }, { "kexec_file_load", 0 }, { "reboot", 0 },
        { "swapon", 0 }, { "swapoff", 0 }, { "acct", 0 },
        { "settimeofday", 0 }, { "stime", 0 }, { "clock_settime", 0 },
        /* clock_adjtime: Docker allows it (read-only without CAP_SYS_TIME);
         * we deny it, nothing a Python program needs reads the NTP state. */
        { "clock_adjtime", 0 },
        /* Raw I/O ports and the LDT: direct hardware access, and modify_ldt has
         * a history of kernel bugs (Docker allows modify_ldt; we do not, only
         * 16-bit emulators such as Wine use it). */
        { "iopl", 0 }, { "ioperm", 0 }, { "modify_ldt", 0 },
        /* The mount family, old and new API, and the root switchers: the
         * sandbox's mount tree is fixed before exec. open_tree_attr is 6.15's
         * addition. statmount/listmount only read, Docker allows them. */
        { "mount", 0 }, { "umount", 0 }, { "umount2", 0 }, { "pivot_root", 0 },
        { "chroot", 0 }, { "mount_setattr", 0 }, { "move_mount", 0 },
        { "open_tree", 0 }, { "open_tree_attr", 0 }, { "fsopen", 0 },
        { "fsconfig", 0 }, { "fsmount", 0 }, { "fspick", 0 },
        /* Namespaces: creating a user namespace regains a full capability set
         * over new namespaces, the door to most unprivileged kernel exploits;
         * setns could join another namespace through an inherited fd.
         * unshare is denied entirely (as Docker does without CAP_SYS_ADMIN);
         * clone is filtered by flags below; clone3 hides its flags in memory. */
        { "unshare", 0 }, { "setns", 0 }, { "clone3", ENOSYS },
        /* Kernel keyrings are not namespaced: keys are shared with the host
         * user (and a long list of CVEs). */
        { "keyctl", 0 }, { "add_key", 0 }, { "request_key", 0 },
        /* Large kernel attack surface with repeated privilege-escalation bugs:
         * eBPF, perf, userfaultfd (race widening for exploits), fanotify. */
        { "bpf", 0 }, { "perf_event_open", 0 }, { "userfaultfd", 0 },
        { "fanotify_init", 0 }, { "lookup_dcookie", 0 },
        /* io_uring performs operations (socket, connect, openat...) without
         * passing through seccomp, so it would bypass every rule here. */
        { "io_uring_setup", 0 }, { "io_uring_enter", 0 }, { "io_uring_register", 0 },
        /* Looking into or controlling other processes: the pid namespace
         * already hides the host, but inside the sandbox ptrace would let the
         * program patch any process it runs and defeat future in-sandbox
         * policy. Docker allows ptrace/process_vm_* on >= 4.8; we do not. */
        { "ptrace", 0 }, { "process_vm_readv", 0 }, { "process_vm_writev", 0 },
        { "kcmp", 0 }, { "pidfd_getfd", 0 }, { "process_madvise", 0 },
        /* File handles bypass path-based checks (the "shocker" container
         * escape). name_to_handle_at is allowed by Docker; it is only useful
         * together with open_by_handle_at, so we deny both. */
        { "open_by_handle_at", 0 }, { "name_to_handle_at", 0 },
        /* NUMA placement: host-level memory policy (Docker: CAP_SYS_NICE). */
        { "mbind", 0 }, { "set_mempolicy", 0 }, { "get_mempolicy", 0 },
        { "set_mempolicy_home_node", 0 }, { "migrate_pages", 0 }, { "move_pages", 0 },
        /* Quotas, the kernel log, the tty hangup, uts names (the profile sets the
         * hostname), old or unimplemented interfaces Docker does not allow. */
        { "quotactl", 0 }, { "quotactl_fd", 0 }, { "syslog", 0 }, { "vhangup", 0 },
        { "sethostname", 0 }, { "setdomainname", 0 }, { "uselib", 0 },
        { "ustat", 0 }, { "sysfs", 0 }, { "_sysctl", 0 }, { "nfsservctl", 0 },
        { "vm86", 0 }, { "vm86old", 0 }, { "getpmsg", 0 }, { "putpmsg", 0 },
        { "afs_syscall", 0 }, { "tuxcall", 0 }, { "security", 0 }, { "vserver", 0 },
        /* LSM self-attributes: Docker requires CAP_SYS_ADMIN. */
        { "lsm_get_self_attr", 0 }, { "lsm_set_self_attr", 0 }, { "lsm_list_modules", 0 },
        /* Newer than Docker's list; glibc does not use them; ENOSYS lets a
         * future libc fall back (file_getattr/setattr have ioctl equivalents). */
        { "futex_requeue", ENOSYS }, { "file_getattr", ENOSYS }, { "file_setattr", ENOSYS },
        /*
         * Allowed on purpose although a deny list might be expected to name
         * them: landlock_* (can only restrict the caller), memfd_secret (memory
         * hidden even from the kernel, harms no one else; Docker allows it),
         * seccomp (can only add restrictions), statmount/listmount (read the
         * sandbox's own mount tree, like /proc/self/mountinfo), pidfd_open and
         * pidfd_send_signal (the pid namespace bounds them), memfd_create and
         * execveat (whatever is executed is still in the sandbox).
         */
};

/* Architectures whose syscall numbers from 424 on follow the unified table. */
static bool unified_numbers(void)
{
        uint32_t a = seccomp_arch_native();
        return a == SCMP_ARCH_X86_64 || a == SCMP_ARCH_AARCH64 || a == SCMP_ARCH_RISCV64;
}

int acs_filter_resolve(const char *name)
{
        int nr;

        if (!name || !*name)
                return -ENOENT;
        nr = seccomp_syscall_resolve_name(name);
        if (nr >= 0)
                return nr;
        if (nr != __NR_SCMP_ERROR)
                return -EDOM; /* a pseudo number: not a syscall of the native ABI */
        if (unified_numbers())
                for (size_t i = 0; i < ELEMENTSOF(newer_syscalls); i++)
                        if (strcmp(newer_syscalls[i].name, name) == 0)
                                return newer_syscalls[i].nr;
        return -ENOENT;
}

bool acs_filter_baseline_denies(const char *name)
{
        for (size_t i = 0; i < ELEMENTSOF(baseline_deny); i++)
                if (strcmp(baseline_deny[i].name, name) == 0)
                        return true;
        return false;
}

static int deny_name(scmp_filter_ctx ctx, const char *name, int errno_ret, acs_error *err)
{
        int nr = acs_filter_resolve(name), r;

        if (nr == -EDOM)
                return 0; /* only reachable through a foreign ABI, which is killed */
        if (nr < 0)
                return acs_error_set(err, -EINVAL, "seccomp", "unknown syscall '%s'", name);
        r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(errno_ret ? errno_ret : EPERM), nr, 0);
        /* -EEXIST: an identical rule is already there (a profile repeating the baseline) */
        if (r < 0 && r != -EEXIST)
                return acs_error_errno(err, r, "seccomp", "cannot add a rule for '%s'", name);
        return 0;
}

#define ADD(ctx, act, nr, ...)                                                              \
        do {                                                                                \
                int _r = seccomp_rule_add((ctx), (act), (nr), __VA_ARGS__);                 \
                if (_r < 0)                                                                 \
                        return acs_error_errno(err, _r, "seccomp", "cannot add rule %s",  \
                                               #nr " " #__VA_ARGS__);                       \
        } while (0)

/*
 * clone with a CLONE_NEW* flag, and ioctls that reach other processes'
 * terminals. Both compare only the bits the kernel reads: clone uses the low
 * 32 bits of its flags, ioctl's cmd is an unsigned int, so a rule on the full
 * 64-bit value could be bypassed by setting the upper half (CVE-2019-10063).
 */
static int add_arg_rules(scmp_filter_ctx ctx, acs_error *err)
{
        static const uint64_t ns_flags[] = { CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS,
                                             CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID,
                                             CLONE_NEWNET };
        /* TIOCSTI/TIOCLINUX push input into a terminal the sandbox shares
         * with its caller (CVE-2017-5226); TIOCSETD loads line disciplines,
         * the entry point of several tty exploits (CVE-2017-2636). */
        static const uint64_t tty_cmds[] = { TIOCSTI, TIOCLINUX, TIOCSETD };

        for (size_t i = 0; i < ELEMENTSOF(ns_flags); i++)
#if defined(__s390x__) || defined(__s390__)
                ADD(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                    SCMP_A1(SCMP_CMP_MASKED_EQ, ns_flags[i], ns_flags[i]));
#else
                ADD(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                    SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[i], ns_flags[i]));
#endif
        for (size_t i = 0; i < ELEMENTSOF(tty_cmds); i++)
                ADD(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
                    SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, tty_cmds[i]));

        /*
         * personality: only 0 (PER_LINUX, what we already run) and 0xffffffff
         * (query) are allowed. Changing it can switch off ASLR
         * (ADDR_NO_RANDOMIZE) or make all reads executable (READ_IMPLIES_EXEC).
         * Stricter than Docker, which also allows PER_LINUX32 and UNAME26
         * (they only change uname's answer): the security model denies
         * personality changes and nothing here needs them. The kernel reads
         * an unsigned int. libseccomp cannot AND two comparisons of the same
         * argument, so "neither all zeros nor all ones in the low 32 bits" is
         * written as: some bit i is set while bit i+1 (cyclically) is clear.
         */
        for (unsigned i = 0; i < 32; i++) {
                uint64_t bi = UINT64_C(1) << i, bj = UINT64_C(1) << ((i + 1) % 32);
                ADD(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(personality), 1,
                    SCMP_A0(SCMP_CMP_MASKED_EQ, bi | bj, bi));
        }
        return 0;
}

/*
 * Sockets. With network none, only AF_UNIX (the network namespace has no
 * interface anyway; this also closes netlink, packet, vsock, bluetooth...,
 * the families with a kernel-bug record). With loopback, also AF_INET,
 * AF_INET6 and NETLINK_ROUTE (glibc's getaddrinfo and if_nameindex use it to
 * look at the sandbox's own interfaces). The family is an int; a compare on
 * the full 64 bits only over-denies values with junk in the upper half.
 */
static int add_socket_rules(scmp_filter_ctx ctx, bool net_none, acs_error *err)
{
        static const int calls[] = { SCMP_SYS(socket), SCMP_SYS(socketpair) };

        for (size_t c = 0; c < ELEMENTSOF(calls); c++) {
                int nr = calls[c];
                if (net_none) {
                        ADD(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1, SCMP_A0(SCMP_CMP_NE, AF_UNIX));
                        continue;
                }
                /* deny every family except 1 (unix), 2 (inet), 10 (inet6), 16 (netlink) */
                for (uint64_t f = 0; f < AF_NETLINK; f++)
                        if (f != AF_UNIX && f != AF_INET && f != AF_INET6)
                                ADD(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1, SCMP_A0(SCMP_CMP_EQ, f));
                ADD(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1, SCMP_A0(SCMP_CMP_GT, AF_NETLINK));
                ADD(ctx, SCMP_ACT_ERRNO(EPERM), nr, 2, SCMP_A0(SCMP_CMP_EQ, AF_NETLINK),
                    SCMP_A2(SCMP_CMP_NE, NETLINK_ROUTE));
        }
        return 0;
}

int acs_filter_build(const acs_filter_opts *o, scmp_filter_ctx *ret, acs_error *err)
{
        scmp_filter_ctx ctx;
        int r;

        ctx = seccomp_init(SCMP_ACT_ALLOW);
        if (!ctx)
                return acs_error_set(err, -ENOMEM, "seccomp", "seccomp_init failed");

        /* Only the native ABI is in the filter; i386 (int 0x80) and x32 (nr |
         * __X32_SYSCALL_BIT, which libseccomp checks for on x86_64) take the
         * bad-arch action: kill the whole process, not just the thread. */
        r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
        /* A binary tree of syscall numbers: a denied call costs a few compares
         * instead of a walk through the list. (Allowed calls without argument
         * rules are answered from the kernel's per-syscall cache anyway.) */
        if (r >= 0)
                r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
        if (r < 0)
                goto fail_errno;
        /* SCMP_FLTATR_CTL_NNP stays at libseccomp's default (set no_new_privs
         * on load): the caller has set it already; setting it twice is harmless. */

        for (size_t i = 0; i < ELEMENTSOF(baseline_deny); i++) {
                r = deny_name(ctx, baseline_deny[i].name, baseline_deny[i].errno_ret, err);
                if (r < 0)
                        goto fail;
        }
        if (unified_numbers())
                for (int nr = FUTURE_FIRST; nr <= FUTURE_LAST; nr++) {
                        r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
                        if (r < 0)
                                goto fail_errno;
                }
        r = add_arg_rules(ctx, err);
        if (r >= 0)
                r = add_socket_rules(ctx, o->net_none, err);
        if (r < 0)
                goto fail;
        const char *unbounded[4];
        size_t n_unbounded = acs_filter_unbounded_names(o, unbounded);
        for (size_t i = 0; i < n_unbounded; i++) {
                r = deny_name(ctx, unbounded[i], 0, err);
                if (r < 0)
                        goto fail;
        }
        for (char **n = o->extra_deny; n && *n; n++) {
                r = deny_name(ctx, *n, 0, err);
                if (r < 0)
                        goto fail;
        }
        *ret = ctx;
        return 0;

fail_errno:
        acs_error_errno(err, r, "seccomp", "cannot build the filter");
fail:
        seccomp_release(ctx);
        return r;
}

/*
 * Shared memory that no limit of this run bounds (security-model.md):
 * memfd_create files live on the kernel's internal shm mount, whose only
 * bound is the memory cgroup; SysV segments, message queues and semaphore
 * sets are bounded by the IPC namespace's sysctls, which an unprivileged
 * sandbox cannot set. The launcher asks for these to be denied when neither
 * bounds them on this run (see acs_filter_opts).
 */
static const char *const memfd_calls[] = { "memfd_create" };
static const char *const sysv_calls[] = { "shmget", "msgget", "semget" };

size_t acs_filter_unbounded_names(const acs_filter_opts *o, const char *ret[static 4])
{
        size_t n = 0;
        for (size_t i = 0; o->deny_memfd && i < ELEMENTSOF(memfd_calls); i++)
                ret[n++] = memfd_calls[i];
        for (size_t i = 0; o->deny_sysv && i < ELEMENTSOF(sysv_calls); i++)
                ret[n++] = sysv_calls[i];
        return n;
}

/*
 * pid 1's own filter, loaded on top of the program's once the program runs.
 * Init only reaps (wait4), ends what is left once the program has ended
 * (kill(-1, SIGKILL): every process of its pid namespace but itself),
 * reports (sendto) and exits; the fast path's init also execs acs-init
 * (execveat), which clears its dumpable flag (prctl).
 * Anything else kills it, and with it the whole sandbox: a pid 1 that does
 * anything else has been taken over.
 */
int acs_filter_build_init(bool exec, scmp_filter_ctx *ret, acs_error *err)
{
        static const int calls[] = { SCMP_SYS(wait4),        SCMP_SYS(waitid), SCMP_SYS(sendto),
                                     SCMP_SYS(sendmsg),      SCMP_SYS(exit),   SCMP_SYS(exit_group),
                                     SCMP_SYS(rt_sigreturn), SCMP_SYS(restart_syscall) };
        scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
        int r;

        if (!ctx)
                return acs_error_set(err, -ENOMEM, "seccomp", "seccomp_init failed");
        r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(calls); i++)
                r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, calls[i], 0);
        /* prctl(PR_SET_DUMPABLE, 0) only; the option is an int */
        if (r >= 0)
                r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 2,
                                     SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu, PR_SET_DUMPABLE),
                                     SCMP_A1(SCMP_CMP_EQ, 0));
        /* kill(-1, SIGKILL) only; pid and signal are ints */
        if (r >= 0)
                r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(kill), 2,
                                     SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu, 0xffffffffu),
                                     SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, SIGKILL));
        if (r >= 0 && exec)
                r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(execveat), 0);
        if (r < 0) {
                seccomp_release(ctx);
                return acs_error_errno(err, r, "seccomp", "cannot build init's filter");
        }
        *ret = ctx;
        return 0;
}

int acs_filter_export(scmp_filter_ctx ctx, struct sock_filter **ret, size_t *ret_len, acs_error *err)
{
        _cleanup_close_ int fd = -1;
        _cleanup_free_ struct sock_filter *insns = NULL;
        struct stat st;
        ssize_t n;
        int r;

        /* libseccomp 2.5 exports only to an fd; a memfd keeps it off the disk. */
        fd = memfd_create("acs-seccomp-bpf", MFD_CLOEXEC);
        if (fd < 0)
                return acs_error_errno(err, -errno, "seccomp", "memfd_create");
        r = seccomp_export_bpf(ctx, fd);
        if (r < 0)
                return acs_error_errno(err, r, "seccomp", "seccomp_export_bpf");
        if (fstat(fd, &st) < 0)
                return acs_error_errno(err, -errno, "seccomp", "fstat");
        if (st.st_size <= 0 || st.st_size % sizeof(struct sock_filter) != 0 ||
            st.st_size / sizeof(struct sock_filter) > BPF_MAXINSNS)
                return acs_error_set(err, -E2BIG, "seccomp", "bad BPF program size %lld",
                                     (long long)st.st_size);
        insns = malloc(st.st_size);
        if (!insns)
                return acs_error_set(err, -ENOMEM, "seccomp", "out of memory");
        n = pread(fd, insns, st.st_size, 0);
        if (n != st.st_size)
                return acs_error_errno(err, n < 0 ? -errno : -EIO, "seccomp", "reading the BPF program");
        *ret_len = st.st_size / sizeof(struct sock_filter);
        *ret = TAKE_PTR(insns);
        return 0;
}
