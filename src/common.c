/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"

void acs_strv_free(char **v)
{
        if (!v)
                return;
        for (char **p = v; *p; p++)
                free(*p);
        free(v);
}

size_t acs_strv_length(char *const *v)
{
        size_t n = 0;
        while (v && v[n])
                n++;
        return n;
}

bool acs_strv_contains(char *const *v, const char *s)
{
        for (; v && *v; v++)
                if (strcmp(*v, s) == 0)
                        return true;
        return false;
}

int acs_strv_push(char ***v, const char *s)
{
        size_t n = acs_strv_length(*v);
        char *copy = strdup(s);
        if (!copy)
                return -ENOMEM;
        char **nv = realloc(*v, (n + 2) * sizeof(char *));
        if (!nv) {
                free(copy);
                return -ENOMEM;
        }
        nv[n] = copy;
        nv[n + 1] = NULL;
        *v = nv;
        return 0;
}

char **acs_strv_copy(char *const *v)
{
        size_t n = acs_strv_length(v);
        char **c = calloc(n + 1, sizeof(char *));
        if (!c)
                return NULL;
        for (size_t i = 0; i < n; i++)
                if (!(c[i] = strdup(v[i]))) {
                        acs_strv_free(c);
                        return NULL;
                }
        return c;
}

static int error_vset(acs_error *err, int code, const char *stage, bool with_errno,
                      const char *fmt, va_list ap)
{
        if (!err)
                return code;
        err->code = code;
        if (err->exit_status == 0)
                err->exit_status = 125;
        snprintf(err->stage, sizeof err->stage, "%s", stage ? stage : "");
        int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        if (with_errno && n >= 0 && (size_t)n < sizeof err->msg)
                snprintf(err->msg + n, sizeof err->msg - n, ": %s", strerror(code < 0 ? -code : code));
        return code;
}

int acs_error_set(acs_error *err, int code, const char *stage, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        error_vset(err, code, stage, false, fmt, ap);
        va_end(ap);
        return code;
}

int acs_error_errno(acs_error *err, int code, const char *stage, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        error_vset(err, code, stage, true, fmt, ap);
        va_end(ap);
        return code;
}

const char *acs_error_text(const acs_error *err, int r)
{
        if (err && err->msg[0])
                return err->msg;
        int code = err && err->code < 0 ? err->code : r;
        return code < 0 ? strerror(-code) : "failed, and the failing step gave no reason (an internal error)";
}

static int check_output(const char *path, const struct stat *st, acs_error *err)
{
        if (S_ISLNK(st->st_mode))
                return acs_error_set(err, -ELOOP, "output", "'%s' is a symbolic link: not writing through it", path);
        if (!S_ISREG(st->st_mode))
                return acs_error_set(err, -EINVAL, "output", "'%s' exists and is not a regular file", path);
        if (st->st_uid != geteuid())
                return acs_error_set(err, -EPERM, "output", "'%s' belongs to another user (uid %u): not writing into it",
                                     path, (unsigned)st->st_uid);
        if (st->st_nlink > 1)
                return acs_error_set(err, -EPERM, "output", "'%s' has other hard links: not writing into it", path);
        return 0;
}

int acs_open_output(const char *path, acs_error *err)
{
        struct stat st;
        int r;

        /* a first look, so that a FIFO or a device is never even opened */
        if (lstat(path, &st) == 0 && (r = check_output(path, &st, err)) < 0)
                return r;
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
        if (fd < 0 && errno == ELOOP)
                return acs_error_set(err, -ELOOP, "output", "'%s' is a symbolic link: not writing through it", path);
        if (fd < 0)
                return acs_error_errno(err, -errno, "output", "cannot write '%s'", path);
        /* what was really opened (the entry may have changed since the lstat) */
        if (fstat(fd, &st) < 0)
                return acs_error_errno(err, -errno, "output", "cannot write '%s'", path);
        if ((r = check_output(path, &st, err)) < 0)
                return r;
        if (ftruncate(fd, 0) < 0 || fcntl(fd, F_SETFL, 0) < 0)
                return acs_error_errno(err, -errno, "output", "cannot write '%s'", path);
        return TAKE_FD(fd);
}

int acs_self_exe(char *buf, size_t size)
{
        if (size < 2)
                return -ENAMETOOLONG;
        ssize_t n = readlink("/proc/self/exe", buf, size);
        if (n < 0)
                return -errno;
        if (n == 0)
                return -ENOENT;
        if ((size_t)n >= size)
                return -ENAMETOOLONG; /* readlink cut it short */
        buf[n] = '\0';
        return 0;
}

int acs_sibling_of(const char *exe, const char *name, char *buf, size_t size)
{
        const char *slash = strrchr(exe, '/');
        if (!slash)
                return -EINVAL; /* /proc/self/exe is always absolute */
        int n = snprintf(buf, size, "%.*s/%s", (int)(slash - exe), exe, name);
        return n >= 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

int acs_self_sibling(const char *name, char *buf, size_t size)
{
        char exe[PATH_MAX];
        int r = acs_self_exe(exe, sizeof exe);
        return r < 0 ? r : acs_sibling_of(exe, name, buf, size);
}

/* Decimal digits only: no sign, no space, no 0x (strtoull would take all three). */
int acs_parse_uint(const char *s, uint64_t *ret)
{
        char *end;
        if (!s || !isdigit((unsigned char)*s))
                return -EINVAL;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno || *end)
                return -EINVAL;
        *ret = v;
        return 0;
}

int acs_parse_size(const char *s, uint64_t *ret)
{
        char *end;
        if (!s || !isdigit((unsigned char)*s))
                return -EINVAL;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno || end == s)
                return -EINVAL;
        unsigned shift = 0;
        switch (*end) {
        case '\0': break;
        case 'k': case 'K': shift = 10; end++; break;
        case 'm': case 'M': shift = 20; end++; break;
        case 'g': case 'G': shift = 30; end++; break;
        case 't': case 'T': shift = 40; end++; break;
        default: return -EINVAL;
        }
        if (*end == 'i' || *end == 'B')
                end += (*end == 'i' && end[1] == 'B') ? 2 : 1;
        if (*end)
                return -EINVAL;
        if (shift && v > (UINT64_MAX >> shift))
                return -ERANGE;
        *ret = (uint64_t)v << shift;
        return 0;
}

/*
 * Decimal seconds with an optional fraction and an optional "s": "5", "0.25",
 * "1.", "3s". Not what strtod also takes (0x10, 1e3, inf, leading space), and
 * at most ACS_SECONDS_MAX, which every timer and rlimit can hold.
 */
int acs_parse_seconds(const char *s, double *ret)
{
        if (!s)
                return -EINVAL;
        size_t ip = strspn(s, "0123456789"), fp = 0;
        const char *p = s + ip;
        if (*p == '.') {
                fp = strspn(p + 1, "0123456789");
                p += 1 + fp;
        }
        if (ip + fp == 0 || (*p == 's' ? p[1] != '\0' : *p != '\0'))
                return -EINVAL;
        double v = strtod(s, NULL); /* the launcher's locale is always "C" */
        if (!isfinite(v) || v > ACS_SECONDS_MAX)
                return -ERANGE;
        *ret = v;
        return 0;
}

bool acs_same_file(int a, int b)
{
        struct stat sa, sb;
        return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int acs_fd_above_stdio(int fd)
{
        if (fd > 2)
                return fd;
        int hi = fcntl(fd, F_DUPFD_CLOEXEC, 3), r = -errno;
        close(fd);
        return hi < 0 ? r : hi;
}

int acs_read_small_at(int dfd, const char *name, char *buf, size_t size)
{
        _cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);

        if (fd < 0)
                return -errno;
        return acs_read_small(fd, buf, size);
}

int acs_read_small(int fd, char *buf, size_t size)
{
        size_t n = 0;

        while (n + 1 < size) {
                ssize_t k = read(fd, buf + n, size - 1 - n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        break;
                n += (size_t)k;
        }
        if (size)
                buf[n] = '\0';
        return (int)n;
}

int acs_read_all(int fd, size_t max, char **ret, size_t *ret_len)
{
        _cleanup_free_ char *buf = NULL;
        size_t len = 0, cap = 0;
        struct stat st;

        if (max > SIZE_MAX / 2)
                max = SIZE_MAX / 2; /* cap below stays representable */
        /* A regular file's size, plus one byte to see its end in the same buffer. */
        size_t first = 4096;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
                first = ((uint64_t)st.st_size < max ? (size_t)st.st_size + 1 : max) + 1;
        while (len < max) {
                if (len + 1 >= cap) {
                        size_t ncap = !buf ? first : cap * 2;
                        if (ncap > max + 1)
                                ncap = max + 1;
                        char *nb = realloc(buf, ncap);
                        if (!nb)
                                return -ENOMEM;
                        buf = nb;
                        cap = ncap;
                }
                size_t room = cap - 1 - len;
                ssize_t k = read(fd, buf + len, room < max - len ? room : max - len);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        break;
                len += (size_t)k;
        }
        if (!buf && !(buf = malloc(1)))
                return -ENOMEM;
        buf[len] = '\0';
        *ret = TAKE_PTR(buf);
        *ret_len = len;
        return 0;
}

int acs_strbuf_grow(acs_strbuf *b, size_t extra)
{
        if (extra >= SIZE_MAX / 2 - b->len)
                return -ENOMEM;
        size_t need = b->len + extra + 1, c = b->cap ? b->cap : 64;
        while (c < need)
                c *= 2;
        char *p = realloc(b->p, c);
        if (!p)
                return -ENOMEM;
        if (!b->p)
                p[0] = '\0'; /* NUL-terminated from the first allocation */
        b->p = p;
        b->cap = c;
        return 0;
}

int acs_strbuf_vaddf(acs_strbuf *b, const char *fmt, va_list ap)
{
        va_list aq;
        va_copy(aq, ap);
        int n = vsnprintf(NULL, 0, fmt, aq);
        va_end(aq);
        if (n < 0)
                return -EINVAL;
        if (n == 0)
                return 0;
        int r = acs_strbuf_reserve(b, (size_t)n);
        if (r < 0)
                return r;
        vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
        b->len += (size_t)n;
        return 0;
}

int acs_strbuf_addf(acs_strbuf *b, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        int r = acs_strbuf_vaddf(b, fmt, ap);
        va_end(ap);
        return r;
}

void acs_strbuf_free(acs_strbuf *b)
{
        free(b->p);
        *b = (acs_strbuf){};
}

int acs_write_str_at(int dfd, const char *name, const char *s)
{
        _cleanup_close_ int fd = openat(dfd, name, O_WRONLY | O_CLOEXEC);
        size_t len = strlen(s);

        if (fd < 0)
                return -errno;
        ssize_t k = write(fd, s, len);
        if (k < 0)
                return -errno;
        return (size_t)k == len ? 0 : -EIO;
}

int acs_write_all(int fd, const void *p, size_t len)
{
        const char *c = p;

        while (len > 0) {
                ssize_t n = write(fd, c, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN) {
                        /* a non-blocking fd (a client may make our stdout one): wait for room */
                        struct pollfd pfd = { .fd = fd, .events = POLLOUT };
                        poll(&pfd, 1, -1);
                        continue;
                }
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return -EIO; /* no progress: never spin */
                c += n;
                len -= (size_t)n;
        }
        return 0;
}
