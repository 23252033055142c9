/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small shared helpers: cleanup attributes, ownership transfer, the error record. */
#pragma once

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _noreturn_ __attribute__((noreturn))
#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

/* Move ownership out of a cleanup variable: *ret = TAKE_PTR(p); */
#define TAKE_PTR(p)                                                                 \
        ({                                                                          \
                __typeof__(p) _p_ = (p);                                            \
                (p) = NULL;                                                         \
                _p_;                                                                \
        })
#define TAKE_FD(fd)                                                                 \
        ({                                                                          \
                int _fd_ = (fd);                                                    \
                (fd) = -1;                                                          \
                _fd_;                                                               \
        })

static inline void freep(void *p) { free(*(void **)p); }
static inline void closep(int *fd)
{
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)

/* NULL-terminated string vectors (profile lists, argv). */
void acs_strv_free(char **v);
static inline void acs_strv_freep(char ***v) { acs_strv_free(*v); }
#define _cleanup_strv_free_ _cleanup_(acs_strv_freep)
size_t acs_strv_length(char *const *v);
bool acs_strv_contains(char *const *v, const char *s);
int acs_strv_push(char ***v, const char *s); /* copies s; -ENOMEM */
char **acs_strv_copy(char *const *v);

/* fd itself if > 2, else an O_CLOEXEC copy above 2 (fd is closed): for fds a
 * sandboxed program inherits next to its stdio. Returns the fd or -errno. */
int acs_fd_above_stdio(int fd);
/* Do fds a and b write to the same file or terminal? */
bool acs_same_file(int a, int b);

/*
 * The error record. Fallible functions return >= 0 on success and -errno on
 * failure, and fill this record with the stage and a message for the user.
 * It is fixed-size so a child after clone can fill it and send it to the
 * parent over the sync socket without allocating.
 */
typedef struct acs_error {
        int code;        /* negative errno, or 0 */
        int exit_status; /* 125 unless the stage says otherwise (127: not found) */
        char stage[32];  /* "profile", "usage", "userns", "mount", "seccomp", ... */
        char msg[1024];
} acs_error;

/* Fill err (if not NULL) and return code (a negative errno). */
int acs_error_set(acs_error *err, int code, const char *stage, const char *fmt, ...) _printf_(4, 5);
/* Like acs_error_set, appending ": strerror(-code)". */
int acs_error_errno(acs_error *err, int code, const char *stage, const char *fmt, ...) _printf_(4, 5);
/* What to tell the user about a failure: err's message; else the errno of
 * err or, when a step returned r < 0 without filling err, of r; never
 * strerror(0)'s "Success". */
const char *acs_error_text(const acs_error *err, int r);

/*
 * A growing byte buffer, NUL-terminated past len once anything is in it (p
 * stays NULL until then; cap counts the NUL). A failed add returns -ENOMEM
 * and leaves the buffer as it was; a caller that must not go on with a
 * hole in the middle keeps its own flag. Zero-initialise; free with
 * acs_strbuf_free (or _cleanup_strbuf_).
 */
typedef struct acs_strbuf {
        char *p;
        size_t len, cap;
} acs_strbuf;

int acs_strbuf_grow(acs_strbuf *b, size_t extra);
/* Room for extra more bytes (and the NUL) without another allocation. */
static inline int acs_strbuf_reserve(acs_strbuf *b, size_t extra)
{
        return extra < b->cap - b->len ? 0 : acs_strbuf_grow(b, extra);
}
static inline int acs_strbuf_add(acs_strbuf *b, const void *s, size_t n)
{
        if (n == 0)
                return 0;
        int r = acs_strbuf_reserve(b, n);
        if (r < 0)
                return r;
        __builtin_memcpy(b->p + b->len, s, n);
        b->len += n;
        b->p[b->len] = '\0';
        return 0;
}
int acs_strbuf_addf(acs_strbuf *b, const char *fmt, ...) _printf_(2, 3);
int acs_strbuf_vaddf(acs_strbuf *b, const char *fmt, va_list ap) _printf_(2, 0);
void acs_strbuf_free(acs_strbuf *b);
#define _cleanup_strbuf_ _cleanup_(acs_strbuf_free)

/* Small kernel files (procfs, cgroupfs; dfd may be AT_FDCWD): read at most
 * size-1 bytes of dfd/name into buf, NUL-terminated, returning the length;
 * or write s in one write() (a short write is -EIO). -errno on failure. */
int acs_read_small_at(int dfd, const char *name, char *buf, size_t size);
int acs_write_str_at(int dfd, const char *name, const char *s);
/* Small fixed buffers from an open fd: like acs_read_small_at. */
int acs_read_small(int fd, char *buf, size_t size);
/*
 * Read fd to its end or to max bytes, whichever comes first, into a new
 * NUL-terminated buffer (*ret, freed by the caller; the length in *ret_len).
 * Across EINTR and short reads; a regular file is read into one allocation
 * of its size. A caller that refuses more than N bytes passes N + 1 and
 * checks the length. Returns 0 or -errno (nothing is returned on failure).
 */
int acs_read_all(int fd, size_t max, char **ret, size_t *ret_len);
/* Write all of p, across EINTR, short writes and (waiting in poll) EAGAIN. */
int acs_write_all(int fd, const void *p, size_t len);

/*
 * Open a file the user named for output (--report, --patch) for writing, from
 * its start. Refused, with err naming path: a symbolic link at path (never
 * followed), an existing entry that is not a regular file (a FIFO would block,
 * a device would be written), and an existing file that belongs to another
 * user or has other hard links (either may have been planted to redirect what
 * we write). An existing regular file of ours is truncated. Returns the fd
 * (O_CLOEXEC) or -errno.
 */
int acs_open_output(const char *path, acs_error *err);

/*
 * This binary and its siblings (acs-launch-full next to acs-launch, the
 * build tree's modules): the path of /proc/self/exe into buf, NUL-terminated,
 * or -errno (-ENAMETOOLONG if it does not fit); "DIR/name" for the file name
 * next to exe (pure), and the same next to this binary.
 */
int acs_self_exe(char *buf, size_t size);
int acs_sibling_of(const char *exe, const char *name, char *buf, size_t size);
int acs_self_sibling(const char *name, char *buf, size_t size);

/* Parsers shared by the CLI and the profile: "128M", "1.5" (seconds). */
#define ACS_SECONDS_MAX 1e9 /* about 31 years: far below what timerfd and rlimits hold */
int acs_parse_size(const char *s, uint64_t *ret);
int acs_parse_seconds(const char *s, double *ret);
int acs_parse_uint(const char *s, uint64_t *ret);

#include "log.h" /* acs_log, acs_trace_to */
