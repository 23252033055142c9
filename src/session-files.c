/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Files in and out of a session, the launcher's half (session-files.h):
 * hand the request to the session's interpreter between two calls and take
 * its answer. The interpreter is the sandbox's and is not trusted: every
 * step has a deadline, the answer's size is checked against the cap, and
 * an interpreter that does not answer as it should loses its sandbox (the
 * session ends; the next call says so) rather than leave the protocol out
 * of step.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>

#include "clip.h"
#include "run-warm.h"
#include "session-files.h"

/* A request waits this long for the interpreter; a file of ACS_SESSION_FILE_MAX takes milliseconds. */
#define FILE_DEADLINE_MS 10000

static long long now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Send or receive len bytes on the scan socket by the deadline; -ETIMEDOUT, -EPIPE when the sandbox is gone. */
static int xfer(acs_run_warm *w, void *buf, size_t len, bool out, long long deadline)
{
        int fd = w->scanp[0];
        for (size_t off = 0; off < len;) {
                ssize_t n = out ? send(fd, (char *)buf + off, len - off, MSG_DONTWAIT | MSG_NOSIGNAL)
                                : recv(fd, (char *)buf + off, len - off, MSG_DONTWAIT);
                if (n > 0) {
                        off += (size_t)n;
                        continue;
                }
                if (n == 0 || (errno != EAGAIN && errno != EINTR))
                        return n == 0 ? -EPIPE : -errno;
                long long left = deadline - now_ms();
                if (left <= 0)
                        return -ETIMEDOUT;
                struct pollfd p[2] = { { .fd = fd, .events = out ? POLLOUT : POLLIN },
                                       { .fd = w->sb.pidfd, .events = POLLIN } };
                if (poll(p, 2, (int)left) < 0 && errno != EINTR)
                        return -errno;
                if (p[1].revents && !(p[0].revents & (out ? POLLOUT : POLLIN)))
                        return -EPIPE;
        }
        return 0;
}

/* The answer's line "F N\n", read a byte at a time: nothing of the data after it is taken. */
static int read_answer(acs_run_warm *w, long *res, long long deadline)
{
        char line[32];
        size_t n = 0;
        int r;
        for (;;) {
                if (n + 1 >= sizeof line)
                        return -EPROTO;
                if ((r = xfer(w, line + n, 1, false, deadline)) < 0)
                        return r;
                if (line[n] == '\n')
                        break;
                n++;
        }
        line[n] = '\0';
        char *end;
        errno = 0;
        if (n < 3 || line[0] != 'F' || line[1] != ' ')
                return -EPROTO;
        *res = strtol(line + 2, &end, 10);
        return *end || errno ? -EPROTO : 0;
}

static void lose_sandbox(acs_run_warm *w)
{
        acs_sandbox_kill(&w->sb);
        if (w->sb.pid > 0) {
                siginfo_t si;
                while (waitid(P_PIDFD, w->sb.pidfd, &si, WEXITED) < 0 && errno == EINTR)
                        ;
                w->sb.pid = -1;
        }
}

static int exchange(acs_run_warm *w, uint32_t op, const char *path, const void *data, size_t len, char **ret,
                    long *res)
{
        long long deadline = now_ms() + FILE_DEADLINE_MS;
        uint32_t plen = (uint32_t)strlen(path), dlen = (uint32_t)len;
        int r;
        if ((r = xfer(w, &op, sizeof op, true, deadline)) < 0 || (r = xfer(w, &plen, sizeof plen, true, deadline)) < 0 ||
            (r = xfer(w, (char *)path, plen, true, deadline)) < 0)
                return r;
        if (op == ACS_SESSION_OP_WRITE &&
            ((r = xfer(w, &dlen, sizeof dlen, true, deadline)) < 0 || (r = xfer(w, (void *)data, len, true, deadline)) < 0))
                return r;
        if ((r = read_answer(w, res, deadline)) < 0)
                return r;
        if (*res < 0)
                return *res >= -4095 ? 0 : -EPROTO;
        if (op == ACS_SESSION_OP_WRITE)
                return (size_t)*res == len ? 0 : -EPROTO;
        if ((unsigned long)*res > ACS_SESSION_FILE_MAX)
                return -EPROTO; /* more than the cap: an interpreter not to be believed */
        if (!(*ret = malloc((size_t)*res + 1)))
                return -ENOMEM;
        (*ret)[*res] = '\0';
        return xfer(w, *ret, (size_t)*res, false, deadline);
}

int acs_run_session_file(acs_run_warm *w, bool write, const char *path, const void *data, size_t len, char **ret,
                         size_t *ret_len, acs_error *err)
{
        const char *rel = path ? acs_session_file_rel(path, strlen(path)) : NULL;
        long res = 0;
        *ret = NULL;
        *ret_len = 0;
        if (!rel)
                return acs_error_set(err, -EINVAL, "file",
                                     "%s: not a file path in /workspace (relative to it, or /workspace/...)",
                                     path ? path : "(none)");
        if (len > ACS_SESSION_FILE_MAX)
                return acs_error_set(err, -EFBIG, "file", "%s: %zu bytes, more than the %u MiB a file may have",
                                     rel, len, ACS_SESSION_FILE_MAX >> 20);
        if (w->sb.pid < 0)
                return acs_error_set(err, -ESRCH, "session", "the session has ended: its sandbox is gone");
        int r = exchange(w, write ? ACS_SESSION_OP_WRITE : ACS_SESSION_OP_READ, rel, data, len, ret, &res);
        if (r < 0) {
                free(*ret);
                *ret = NULL;
                lose_sandbox(w);
                return acs_error_set(err, -ESRCH, "session",
                                     "the session's interpreter did not answer the file request (%s): the session "
                                     "has ended",
                                     strerror(-r));
        }
        if (res < 0) {
                r = (int)res;
                const char *why = r == -EXDEV || r == -ELOOP ? "it leads out of /workspace (\"..\" or a symlink)"
                                  : r == -EINVAL || r == -ENXIO ? "not a regular file (a fifo, device or socket)"
                                  : r == -EFBIG ? "larger than the 2 MiB that files in and out may have"
                                  : r == -ENOENT         ? "no such file or directory"
                                                         : strerror(-r);
                return acs_error_set(err, r, "file", "/workspace/%s: %s", rel, why);
        }
        *ret_len = write ? 0 : (size_t)res;
        return 0;
}
