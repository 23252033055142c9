/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Files in and out of a session, the sandbox's half (session-files.h): run
 * by the session's interpreter between two calls, so every open is the
 * sandbox's -- its mount namespace, its uid, its seccomp filter and Landlock
 * domain -- and resolved by openat2 below /workspace, which refuses ".."
 * escapes, absolute and escaping symlinks (one the code planted included)
 * and /proc's magic links in the kernel. A fifo or device is opened
 * non-blocking and refused: only regular files are moved. A session's
 * execute_command runs /bin/sh as the interpreter's child, in the same
 * sandbox.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

/*
 * The file's bytes, either way, go through one buffer of the cap that
 * stays: a fresh 2 MiB for every request was faulted in page by page,
 * about 10 ms of a 2 MiB transfer on these VMs. It is the session's
 * interpreter's memory, allocated on its first file request.
 */
static char *file_buf(void)
{
        static char *buf;
        if (!buf)
                buf = malloc(ACS_SESSION_FILE_MAX + 1);
        return buf;
}

/* The file's bytes in *buf (file_buf()); its size, or -errno. */
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
        else if (!(*buf = file_buf()))
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
             !(data = file_buf()) || (r = xfer(fd, data, dlen, false)) < 0)) {
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
        else
                res = do_read(ws, rel, &data);
        if (ws >= 0)
                close(ws);
        char line[32];
        int n = snprintf(line, sizeof line, "F %ld\n", res);
        r = xfer(fd, line, (size_t)n, true);
        if (r == 0 && op == ACS_SESSION_OP_READ && res > 0)
                r = xfer(fd, data, (size_t)res, true);
out:
        free(path);
        return r;
}

/* One length-prefixed string of the request (at most max bytes), NUL-terminated. */
static int read_str(int fd, size_t max, char **ret)
{
        uint32_t n = 0;
        int r;
        if ((r = xfer(fd, &n, sizeof n, false)) < 0)
                return r;
        if (n > max || !(*ret = malloc((size_t)n + 1)))
                return n > max ? -EPROTO : -ENOMEM;
        (*ret)[n] = '\0';
        return xfer(fd, *ret, n, false);
}

_Noreturn static void command_child(const char *cmd, const char *cwd, char **env)
{
        /* the interpreter's dispositions are not the command's (python3 ignores SIGPIPE, SIGXFSZ) */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        for (int s = 1; s < NSIG; s++)
                if (s != SIGKILL && s != SIGSTOP)
                        signal(s, SIG_DFL);
        /* nothing of the interpreter's but stdio: the scan socket stays the launcher's */
        close_range(3, ~0U, 0);
        for (char **e = env; e && *e; e++)
                (void)putenv(*e);
        if (cwd && *cwd && chdir(cwd) < 0) {
                dprintf(STDERR_FILENO, "acs-launch: cwd %s: %s\n", cwd, strerror(errno));
                _exit(126);
        }
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        dprintf(STDERR_FILENO, "acs-launch: /bin/sh: %s\n", strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
}

int acs_session_command_run(int fd)
{
        char *cmd = NULL, *cwd = NULL, **env = NULL;
        uint32_t n = 0;
        int r, st = 0;
        if ((r = read_str(fd, ACS_SESSION_CMD_MAX, &cmd)) < 0 || (r = read_str(fd, ACS_SESSION_PATH_MAX, &cwd)) < 0 ||
            (r = xfer(fd, &n, sizeof n, false)) < 0)
                goto out;
        if (n > 1024 || !(env = calloc(n + 1, sizeof *env))) {
                r = n > 1024 ? -EPROTO : -ENOMEM;
                goto out;
        }
        for (uint32_t i = 0; i < n; i++)
                if ((r = read_str(fd, 1u << 20, &env[i])) < 0)
                        goto out;
        pid_t pid = fork();
        if (pid == 0)
                command_child(cmd, cwd, env);
        if (pid < 0) {
                dprintf(STDERR_FILENO, "acs-launch: cannot start /bin/sh: %s\n", strerror(errno));
                r = 126;
                goto out;
        }
        while (waitpid(pid, &st, 0) < 0)
                if (errno != EINTR) {
                        st = 126 << 8;
                        break;
                }
        r = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 126;
out:
        free(cmd);
        free(cwd);
        for (char **e = env; e && *e; e++)
                free(*e);
        free(env);
        return r;
}
