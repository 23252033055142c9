/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * clone3() with a function to run on a new stack, as clone() has: glibc
 * 2.36 exports no clone3 wrapper, and a raw syscall() cannot be used for a
 * child that shares our memory (CLONE_VM | CLONE_VFORK) -- it would return
 * into frames the parent still needs. The child calls fn(arg) on the stack
 * given in args and exits with its return value.
 */
#include <errno.h>
#include <linux/sched.h>

#include "cgroup.h"

#if defined(__x86_64__)
long acs_clone3_raw(struct clone_args *args, size_t size, int (*fn)(void *), void *arg);
/* rdi = args, rsi = size, rdx = fn, rcx = arg. syscall clobbers rcx and r11
 * only; the child starts with the parent's registers on the new stack. */
__asm__(".text\n"
        ".globl acs_clone3_raw\n"
        ".hidden acs_clone3_raw\n"
        ".type acs_clone3_raw, @function\n"
        "acs_clone3_raw:\n"
        "        endbr64\n"
        "        mov %rcx, %r8\n"
        "        mov $435, %eax\n" /* __NR_clone3 */
        "        syscall\n"
        "        test %rax, %rax\n"
        "        jz 1f\n"
        "        ret\n" /* the parent: a pid or -errno */
        "1:      xor %ebp, %ebp\n"
        "        and $-16, %rsp\n"
        "        mov %r8, %rdi\n"
        "        call *%rdx\n"
        "        mov %eax, %edi\n"
        "        mov $60, %eax\n" /* __NR_exit */
        "        syscall\n"
        "        hlt\n"
        ".size acs_clone3_raw, .-acs_clone3_raw\n");

pid_t acs_clone3(struct clone_args *args, size_t size, int (*fn)(void *), void *arg)
{
        long r = acs_clone3_raw(args, size, fn, arg);

        if (r < 0) {
                errno = (int)-r;
                return -1;
        }
        return (pid_t)r;
}
#else
pid_t acs_clone3(struct clone_args *args, size_t size, int (*fn)(void *), void *arg)
{
        (void)args, (void)size, (void)fn, (void)arg;
        errno = ENOSYS;
        return -1;
}
#endif
