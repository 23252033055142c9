/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Hashing (nettle), and symlink-free path resolution below a directory fd. */
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <nettle/sha1.h>

#include "diff-internal.h"

static int sha_init(acs_sha256_ctx *c)
{
        sha256_init(c);
        return 1;
}

static int sha_update(acs_sha256_ctx *c, const void *p, size_t n)
{
        sha256_update(c, n, p);
        return 1;
}

static int sha_final(unsigned char *md, acs_sha256_ctx *c)
{
        sha256_digest(c, SHA256_DIGEST_SIZE, md);
        return 1;
}

int acs_crypto_load(acs_crypto *ret, acs_error *err)
{
        *ret = (acs_crypto){ .init = sha_init, .update = sha_update, .final = sha_final };
        return 0;
}

void acs_sha256_hex(const unsigned char md[static 32], char hex[static 65])
{
        static const char x[] = "0123456789abcdef";

        for (unsigned i = 0; i < 32; i++) {
                hex[2 * i] = x[md[i] >> 4];
                hex[2 * i + 1] = x[md[i] & 15];
        }
        hex[64] = 0;
}

int acs_sha256_fd(const acs_crypto *cr, int fd, char hex[static 65], uint64_t *ret_size)
{
        unsigned char md[32];
        uint64_t total = 0;
        char buf[64 * 1024];
        acs_sha256_ctx ctx;

        if (cr->init(&ctx) != 1)
                return -EIO;
        for (;;) {
                ssize_t k = read(fd, buf, sizeof buf);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        break;
                total += (uint64_t)k;
                if (cr->update(&ctx, buf, (size_t)k) != 1)
                        return -EIO;
        }
        if (cr->final(md, &ctx) != 1)
                return -EIO;
        acs_sha256_hex(md, hex);
        if (ret_size)
                *ret_size = total;
        return 0;
}

int acs_hash_fd_git(int fd, char sha[static 65], char blob[static 41])
{
        struct sha256_ctx c256;
        struct sha1_ctx c1;
        unsigned char md[32];
        char buf[64 * 1024];
        uint64_t total = 0;
        struct stat st;
        int n;

        if (fstat(fd, &st) < 0)
                return -errno;
        sha256_init(&c256);
        sha1_init(&c1);
        n = snprintf(buf, sizeof buf, "blob %llu", (unsigned long long)st.st_size);
        sha1_update(&c1, (size_t)n + 1, (const uint8_t *)buf); /* with its NUL */
        for (;;) {
                ssize_t k = read(fd, buf, sizeof buf);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        break;
                total += (uint64_t)k;
                sha256_update(&c256, (size_t)k, (const uint8_t *)buf);
                sha1_update(&c1, (size_t)k, (const uint8_t *)buf);
        }
        if (total != (uint64_t)st.st_size)
                return -EAGAIN; /* changed while read */
        sha256_digest(&c256, SHA256_DIGEST_SIZE, md);
        acs_sha256_hex(md, sha);
        sha1_digest(&c1, SHA1_DIGEST_SIZE, md);
        acs_sha256_hex(md, buf); /* 64 hex digits of which 40 are the sha1's */
        memcpy(blob, buf, 40);
        blob[40] = 0;
        return 0;
}

void acs_git_blob_buf(const void *p, size_t n, char blob[static 41])
{
        struct sha1_ctx c1;
        unsigned char md[32] = {};
        char hdr[32], hex[65];
        int k = snprintf(hdr, sizeof hdr, "blob %zu", n);

        sha1_init(&c1);
        sha1_update(&c1, (size_t)k + 1, (const uint8_t *)hdr);
        sha1_update(&c1, n, p);
        sha1_digest(&c1, SHA1_DIGEST_SIZE, md);
        acs_sha256_hex(md, hex);
        memcpy(blob, hex, 40);
        blob[40] = 0;
}

int acs_sha256_buf(const acs_crypto *cr, const void *buf, size_t n, char hex[static 65])
{
        unsigned char md[32];
        acs_sha256_ctx ctx;

        if (cr->init(&ctx) != 1 || cr->update(&ctx, buf, n) != 1 || cr->final(md, &ctx) != 1)
                return -EIO;
        acs_sha256_hex(md, hex);
        return 0;
}

/* Fallback for kernels without openat2: walk one component at a time. */
static int open_walk(int dirfd, const char *path, int flags, mode_t mode)
{
        _cleanup_free_ char *copy = strdup(path);
        _cleanup_close_ int cur = -1;
        char *p, *slash;

        if (!copy)
                return -ENOMEM;
        cur = openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (cur < 0)
                return -errno;
        for (p = copy; (slash = strchr(p, '/')); p = slash + 1) {
                int next;

                *slash = 0;
                if (!*p || strcmp(p, ".") == 0 || strcmp(p, "..") == 0)
                        return -EXDEV;
                next = openat(cur, p, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (next < 0)
                        return errno == ENOTDIR ? -ELOOP : -errno;
                closep(&cur);
                cur = next;
        }
        if (strcmp(p, "..") == 0)
                return -EXDEV;
        if (!*p)
                p = ".";
        {
                int fd = openat(cur, p, flags | O_NOFOLLOW | O_CLOEXEC, mode);

                return fd < 0 ? -errno : fd;
        }
}

int acs_open_beneath(int dirfd, const char *path, int flags, mode_t mode)
{
        struct open_how how = {
                .flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
                .mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
                .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
        };
        long fd;

        if (path[0] == '/')
                return -EXDEV;
        if (!*path)
                path = ".";
        fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
        if (fd >= 0)
                return (int)fd;
        if (errno == ENOSYS || errno == EPERM /* seccomp */)
                return open_walk(dirfd, path, flags, mode);
        return -errno;
}

int acs_open_parent_beneath(int dirfd, const char *path, const char **ret_name)
{
        const char *slash = strrchr(path, '/');
        _cleanup_free_ char *parent = NULL;

        if (!slash) {
                *ret_name = path;
                return acs_open_beneath(dirfd, "", O_PATH | O_DIRECTORY, 0);
        }
        parent = strndup(path, (size_t)(slash - path));
        if (!parent)
                return -ENOMEM;
        *ret_name = slash + 1;
        return acs_open_beneath(dirfd, parent, O_PATH | O_DIRECTORY, 0);
}

int acs_read_beneath(int dirfd, const char *path, char **ret, size_t *ret_len)
{
        /* O_NONBLOCK: opening a FIFO must not wait for a writer */
        _cleanup_close_ int fd = acs_open_beneath(dirfd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
        struct stat st;

        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        return acs_read_all(fd, SIZE_MAX, ret, ret_len);
}

int acs_change_list_push(acs_change **v, size_t *n, size_t *cap, acs_change *ch)
{
        if (*n == *cap) {
                size_t nc = *cap ? *cap * 2 : 16;
                acs_change *nv = realloc(*v, nc * sizeof **v);

                if (!nv)
                        return -ENOMEM;
                *v = nv;
                *cap = nc;
        }
        (*v)[(*n)++] = *ch;
        memset(ch, 0, sizeof *ch);
        return 0;
}

void acs_change_done(acs_change *ch)
{
        free(ch->path);
        free(ch->target);
        free(ch->old_target);
        memset(ch, 0, sizeof *ch);
}
