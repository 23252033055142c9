/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Files in and out of a session, the sandbox's half (session-files.h): run
 * by the session's interpreter between two calls, so every open is the
 * sandbox's -- its mount namespace, its uid, its seccomp filter and Landlock
 * domain -- and resolved by openat2 below /workspace, which refuses ".."
 * escapes, absolute and escaping symlinks (one the code planted included)
 * and /proc's magic links in the kernel. A fifo or device is opened
 * non-blocking and refused: only regular files are moved.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "session-files.h"

#define BENEATH (RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV)

static int xfer(int fd, void *buf, size_t len, bool out)
{
        for (size_t off = 0; off < len;) {
                ssize_t n = out ? write(fd, (char *)buf + off, len - off) : read(fd, (char *)buf + off, len - off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return n < 0 ? -errno : -EPIPE;
                off += (size_t)n;
        }
        return 0;
}

static int open_beneath(int dfd, const char *path, int flags, unsigned mode)
{
        /* openat2 takes with O_PATH only the flags that mean something to it */
        int extra = flags & O_PATH ? O_CLOEXEC : O_CLOEXEC | O_NOCTTY;
        struct open_how how = { .flags = (unsigned)(flags | extra), .mode = mode, .resolve = BENEATH };
        long fd = syscall(SYS_openat2, dfd, path, &how, sizeof how);
        return fd < 0 ? -errno : (int)fd;
}

/* mkdir -p of path's parent directories, each resolved below ws like the file. */
static int make_parents(int ws, char *path)
{
        for (char *s = strchr(path, '/'); s; s = strchr(s + 1, '/')) {
                *s = '\0';
                int fd = open_beneath(ws, path, O_PATH | O_DIRECTORY, 0);
                if (fd == -ENOENT) {
                        char *last = strrchr(path, '/');
                        int pfd = last ? (*last = '\0', open_beneath(ws, path, O_PATH | O_DIRECTORY, 0)) : dup(ws);
                        if (last)
                                *last = '/';
                        if (pfd < 0) {
                                *s = '/';
                                return pfd;
                        }
                        int r = mkdirat(pfd, last ? last + 1 : path, 0755) < 0 && errno != EEXIST ? -errno : 0;
                        close(pfd);
                        fd = r < 0 ? r : open_beneath(ws, path, O_PATH | O_DIRECTORY, 0);
                }
                *s = '/';
                if (fd < 0)
                        return fd;
                close(fd);
        }
        return 0;
}

static long do_write(int ws, char *path, const char *data, size_t len)
{
        int r = make_parents(ws, path);
        if (r < 0)
                return r;
        /* O_NONBLOCK: a fifo without a reader fails (ENXIO) instead of waiting for one */
        int fd = open_beneath(ws, path, O_WRONLY | O_CREAT | O_NONBLOCK, 0644);
        struct stat st = { 0 };
        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
                r = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
        else if (ftruncate(fd, 0) < 0)
                r = -errno;
        else
                r = xfer(fd, (char *)data, len, true);
        close(fd);
        return r < 0 ? r : (long)len;
}

/* The file's bytes in *buf; its size, or -errno. */
static long do_read(int ws, const char *path, char **buf)
{
        int fd = open_beneath(ws, path, O_RDONLY | O_NONBLOCK, 0);
        struct stat st = { 0 };
        if (fd < 0)
                return fd;
        long r = 0;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
                r = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
        else if ((uint64_t)st.st_size > ACS_SESSION_FILE_MAX)
                r = -EFBIG;
        else if (!(*buf = malloc(ACS_SESSION_FILE_MAX + 1)))
                r = -ENOMEM;
        size_t len = 0;
        while (r == 0) {
                ssize_t n = read(fd, *buf + len, ACS_SESSION_FILE_MAX + 1 - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        r = -errno;
                else if (n == 0)
                        break;
                else if ((len += (size_t)n) > ACS_SESSION_FILE_MAX)
                        r = -EFBIG; /* it grew while we read */
        }
        close(fd);
        return r < 0 ? r : (long)len;
}

int acs_session_file_serve(int fd, uint32_t op)
{
        uint32_t plen = 0, dlen = 0;
        char *path = NULL, *data = NULL;
        long res;
        int r;
        if ((r = xfer(fd, &plen, sizeof plen, false)) < 0 || plen > ACS_SESSION_PATH_MAX)
                return r < 0 ? r : -EPROTO;
        if (!(path = calloc(1, plen + 1)) || (r = xfer(fd, path, plen, false)) < 0)
                goto out;
        if (op == ACS_SESSION_OP_WRITE &&
            ((r = xfer(fd, &dlen, sizeof dlen, false)) < 0 || dlen > ACS_SESSION_FILE_MAX ||
             !(data = malloc(dlen ? dlen : 1)) || (r = xfer(fd, data, dlen, false)) < 0)) {
                r = r < 0 ? r : -EPROTO;
                goto out;
        }
        const char *rel = acs_session_file_rel(path, plen);
        int ws = open("/workspace", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (ws < 0)
                ws = -errno;
        if (!rel)
                res = -EINVAL;
        else if (ws < 0)
                res = ws;
        else if (op == ACS_SESSION_OP_WRITE)
                res = do_write(ws, (char *)rel, data, dlen);
        else {
                free(data);
                data = NULL;
                res = do_read(ws, rel, &data);
        }
        if (ws >= 0)
                close(ws);
        char line[32];
        int n = snprintf(line, sizeof line, "F %ld\n", res);
        r = xfer(fd, line, (size_t)n, true);
        if (r == 0 && op == ACS_SESSION_OP_READ && res > 0)
                r = xfer(fd, data, (size_t)res, true);
out:
        free(path);
        free(data);
        return r;
}
