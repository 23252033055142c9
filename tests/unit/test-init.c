/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * acs-init's protocol (src/init.c, sync-proto.h), for each build of it this
 * machine can run: the native one, and an aarch64 one under qemu-aarch64
 * when the build made it (a cross compiler) and qemu-user is installed.
 * This harness makes acs-init pid 1 of a fresh user and pid namespace, as
 * the sandbox does, with a program that exits 7, a process left behind
 * that holds a pipe open, and an orphan; then checks that exactly one
 * status message comes, with the program's wait status and usage, that
 * the leftover was already dead when it came (killed and reaped first),
 * and that acs-init exits 0.
 *
 *   test-init [NATIVE_ACS_INIT [AARCH64_ACS_INIT]]   (the build's, by default)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sync-proto.h"
#include "tap.h"

#define CHECKS 6

/* pid 1 of a new user+pid namespace: start the program, a leftover and an orphan, become acs-init. */
_Noreturn static void be_init(char *const *cmd, size_t n, int sync_fd, int hold_fd)
{
        pid_t prog = fork();
        if (prog == 0) {
                close(hold_fd);
                usleep(100 * 1000);
                _exit(7);
        }
        pid_t left = fork();
        if (left == 0) { /* holds the pipe until it is killed */
                for (;;)
                        pause();
        }
        close(hold_fd);
        if (fork() == 0) { /* its child is reparented to pid 1 */
                if (fork() == 0) {
                        usleep(50 * 1000);
                        _exit(0);
                }
                _exit(0);
        }
        char fd_arg[16], pid_arg[16];
        snprintf(fd_arg, sizeof fd_arg, "%d", sync_fd);
        snprintf(pid_arg, sizeof pid_arg, "%d", (int)prog);
        char *argv[8];
        size_t i = 0;
        for (; i < n && i < 5; i++)
                argv[i] = cmd[i];
        argv[i++] = fd_arg;
        argv[i++] = pid_arg;
        argv[i] = NULL;
        execvp(argv[0], argv);
        _exit(95);
}

static void run(const char *what, char *const *cmd, size_t n)
{
        int sv[2], hold[2];
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 || pipe2(hold, O_CLOEXEC) < 0) {
                ok(0, "%s: socketpair, pipe: %s", what, strerror(errno));
                return;
        }
        pid_t c = fork();
        if (c == 0) {
                close(sv[0]);
                close(hold[0]);
                if (fcntl(sv[1], F_SETFD, 0) < 0 || unshare(CLONE_NEWUSER | CLONE_NEWPID) < 0)
                        _exit(90);
                pid_t g = fork();
                if (g == 0)
                        be_init(cmd, n, sv[1], hold[1]);
                close(hold[1]); /* only the leftover holds it now */
                close(sv[1]);
                int st;
                while (waitpid(g, &st, 0) < 0 && errno == EINTR)
                        ;
                _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
        }
        close(sv[1]);
        close(hold[1]);
        unsigned char msg[256];
        struct pollfd p = { .fd = sv[0], .events = POLLIN };
        ssize_t len = poll(&p, 1, 30000) == 1 ? recv(sv[0], msg, sizeof msg, 0) : -1;
        /* the leftover held hold[1]: killed and reaped before the report, the pipe is at EOF now */
        struct pollfd h = { .fd = hold[0], .events = POLLIN };
        bool hup = poll(&h, 1, 0) == 1 && (h.revents & POLLHUP);
        ok(len == ACS_MSG_STATUS_LEN && msg[0] == ACS_MSG_STATUS, "%s: one status message (%zd bytes)", what, len);
        int32_t wst = 0;
        int64_t v[4] = { 0 };
        if (len == ACS_MSG_STATUS_LEN) {
                memcpy(&wst, msg + 1, 4);
                memcpy(v, msg + 5, sizeof v);
        }
        ok(WIFEXITED(wst) && WEXITSTATUS(wst) == 7, "%s: the program's wait status (exit 7), got %#x", what, wst);
        ok(hup, "%s: the process left behind was dead before the report", what);
        ok(v[0] >= 0 && v[1] >= 0 && v[2] >= 0 && v[3] > 0,
           "%s: CPU time and usage (cpu %lld us, user %lld us, sys %lld us, rss %lld KiB)", what, (long long)v[0],
           (long long)v[1], (long long)v[2], (long long)v[3]);
        ssize_t more = recv(sv[0], msg, sizeof msg, MSG_DONTWAIT);
        int st = -1;
        while (waitpid(c, &st, 0) < 0 && errno == EINTR)
                ;
        ok(more <= 0, "%s: nothing after the status", what);
        ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: acs-init exits 0 (status %#x)", what, st);
        close(sv[0]);
        close(hold[0]);
}

static bool in_path(const char *name)
{
        char cmd[256];
        snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", name);
        return system(cmd) == 0;
}

int main(int argc, char **argv)
{
        const char *native = argc > 1 ? argv[1] : ACS_INIT_NATIVE, *a64 = argc > 2 ? argv[2] : ACS_INIT_AARCH64;
#if defined(__aarch64__)
        a64 = NULL; /* the native one is aarch64's */
#endif
        if (access(native, X_OK) == 0)
                run("native", (char *[]){ (char *)native }, 1);
        else
                for (int i = 0; i < CHECKS; i++)
                        skip("native: no acs-init for this CPU (the launcher's C loop is pid 1)");
        if (a64 && access(a64, X_OK) == 0 && in_path("qemu-aarch64"))
                run("aarch64 under qemu-aarch64", (char *[]){ "qemu-aarch64", (char *)a64 }, 2);
        else
                for (int i = 0; i < CHECKS; i++)
                        skip("aarch64: %s", !a64                      ? "this CPU is aarch64: checked natively"
                                            : access(a64, X_OK) != 0 ? "not built (configure found no aarch64-linux-gnu-gcc)"
                                                                     : "no qemu-aarch64 (Debian: qemu-user)");
        return tap_done();
}
