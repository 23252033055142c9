/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * acs-init: the sandbox's pid 1 (x86-64 and aarch64). The launcher's
 * child sets the sandbox up inside the launcher's own address space (a
 * vfork-style clone: no page tables copied), starts the program, and then
 * execs this tiny freestanding binary, which releases the launcher and
 * stays behind as init: it reaps every process; when the program has ended
 * it kills what is left in the pid namespace, reaps it, reports the
 * program's wait status and the sandbox's usage on the sync socket
 * (sync-proto.h), then exits.
 *
 *   acs-init SYNC_FD PROGRAM_PID
 *
 * No libc: it is embedded in acs-launch (src/init-blob.h) and exec'd from
 * the scratch tmpfs, and must start in microseconds.
 *
 * It is never reachable from the program (security-model.md): the file is
 * exec-only (mode 0100) and init holds no capability when it execs it, so
 * the kernel makes the new image non-dumpable in the exec itself -- there
 * is no window in which /proc/1/mem could be opened. It starts under the
 * program's seccomp filter plus init's own, which allows only wait4,
 * sendto, kill(-1, SIGKILL), prctl(PR_SET_DUMPABLE, 0) and exit
 * (src/filter-rules.c).
 */
#include "sync-proto.h"

#define SIGKILL 9
#define ECHILD 10
#define PR_SET_DUMPABLE 4
#define EINTR 4
#define WALL 0x40000000
#define MSG_NOSIGNAL 0x4000

#if defined(__x86_64__)
#define SYS_sendto 44
#define SYS_kill 62
#define SYS_exit_group 231
#define SYS_wait4 61
#define SYS_prctl 157

static long sys6(long n, long a, long b, long c, long d, long e, long f)
{
        long ret;
        register long r10 __asm__("r10") = d;
        register long r8 __asm__("r8") = e;
        register long r9 __asm__("r9") = f;
        __asm__ volatile("syscall"
                         : "=a"(ret)
                         : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                         : "rcx", "r11", "memory");
        return ret;
}

/* The kernel's entry: the stack pointer points at argc (the x86-64 ELF ABI). */
__asm__(".text\n"
        ".global _start\n"
        "_start:\n"
        "        mov %rsp, %rdi\n"
        "        and $-16, %rsp\n"
        "        call acs_init_main\n"
        "        hlt\n");
#elif defined(__aarch64__)
/* asm-generic numbers */
#define SYS_sendto 206
#define SYS_kill 129
#define SYS_exit_group 94
#define SYS_wait4 260
#define SYS_prctl 167

static long sys6(long n, long a, long b, long c, long d, long e, long f)
{
        register long x8 __asm__("x8") = n;
        register long x0 __asm__("x0") = a;
        register long x1 __asm__("x1") = b;
        register long x2 __asm__("x2") = c;
        register long x3 __asm__("x3") = d;
        register long x4 __asm__("x4") = e;
        register long x5 __asm__("x5") = f;
        __asm__ volatile("svc #0"
                         : "+r"(x0)
                         : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
                         : "memory");
        return x0;
}

/* The kernel's entry: sp points at argc and is 16-byte aligned (the AArch64 ELF ABI). */
__asm__(".text\n"
        ".global _start\n"
        "_start:\n"
        "        mov x0, sp\n"
        "        bl acs_init_main\n"
        "        brk #0\n");
#else
#error "acs-init is written for x86-64 and aarch64 (configure builds it only there)"
#endif

static long to_long(const char *s)
{
        long v = 0;
        if (!s || !*s)
                return -1;
        for (; *s; s++) {
                if (*s < '0' || *s > '9')
                        return -1;
                v = v * 10 + (*s - '0');
        }
        return v;
}

__attribute__((noreturn, used)) void acs_init_main(long *sp);
__attribute__((noreturn, used)) void acs_init_main(long *sp)
{
        long argc = sp[0];
        char **argv = (char **)(sp + 1);
        /* already non-dumpable from the exec (see the top); belt and braces */
        sys6(SYS_prctl, PR_SET_DUMPABLE, 0, 0, 0, 0, 0);
        long fd = argc > 2 ? to_long(argv[1]) : -1, pid = argc > 2 ? to_long(argv[2]) : -1;
        if (fd < 0 || pid <= 0)
                sys6(SYS_exit_group, 125, 0, 0, 0, 0, 0);
        int pstatus = 0, ended = 0;
        long long pcpu = 0, usr = 0, sys = 0, rss = 0;
        for (;;) {
                int status = 0;
                long ru[18]; /* struct rusage: utime, stime (timevals), maxrss, 13 more longs */
                long r = sys6(SYS_wait4, -1, (long)&status, WALL, (long)ru, 0, 0);
                if (r == -EINTR)
                        continue;
                if (r == -ECHILD && ended)
                        break;
                if (r < 0)
                        sys6(SYS_exit_group, 125, 0, 0, 0, 0, 0);
                usr += ru[0] * 1000000LL + ru[1];
                sys += ru[2] * 1000000LL + ru[3];
                if (ru[4] > rss)
                        rss = ru[4];
                if (r == pid) {
                        pstatus = status;
                        pcpu = (ru[0] + ru[2]) * 1000000LL + ru[1] + ru[3];
                        ended = 1;
                        /* the program's end is the sandbox's: nothing may
                         * touch the workspace once the launcher is told */
                        sys6(SYS_kill, -1, SIGKILL, 0, 0, 0, 0);
                }
        }
        unsigned char msg[ACS_MSG_STATUS_LEN] = { ACS_MSG_STATUS };
        long long v[4] = { pcpu, usr, sys, rss };
        unsigned char *p = (unsigned char *)&pstatus, *q = (unsigned char *)v;
        for (int i = 0; i < 4; i++)
                msg[1 + i] = p[i];
        for (int i = 0; i < 32; i++)
                msg[5 + i] = q[i];
        sys6(SYS_sendto, fd, (long)msg, sizeof msg, MSG_NOSIGNAL, 0, 0);
        sys6(SYS_exit_group, 0, 0, 0, 0, 0, 0);
        __builtin_unreachable();
}
