/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared by diff*.c, apply*.c and patch*.c only. */
#pragma once

#include <nettle/sha2.h>

#include "diff.h"

/*
 * SHA-256 is nettle's, linked in: no start-up cost (it is plain code, no
 * constructors or provider loading), and it links statically into the
 * static acs-launch. The table is kept so that callers stay independent of
 * the library; acs_crypto_load cannot fail. The patch's blob ids are
 * nettle's SHA-1 (acs_git_blob_buf) and its body udiff.c's: no libgit2.
 */
typedef struct sha256_ctx acs_sha256_ctx;
typedef struct acs_crypto {
        int (*init)(acs_sha256_ctx *);
        int (*update)(acs_sha256_ctx *, const void *, size_t);
        int (*final)(unsigned char *, acs_sha256_ctx *);
} acs_crypto;

int acs_crypto_load(acs_crypto *ret, acs_error *err);
/* sha256 of everything readable from fd (from its current offset) as hex */
int acs_sha256_fd(const acs_crypto *cr, int fd, char hex[static 65], uint64_t *ret_size);
int acs_sha256_buf(const acs_crypto *cr, const void *buf, size_t n, char hex[static 65]);
void acs_sha256_hex(const unsigned char md[static 32], char hex[static 65]);
/* sha256 and git blob id (sha1 of "blob SIZE\0" + content) of a regular file
 * in one read; -EAGAIN when it changed size while read. */
int acs_hash_fd_git(int fd, char sha[static 65], char blob[static 41]);
void acs_git_blob_buf(const void *p, size_t n, char blob[static 41]);

/* Read a whole regular file opened at dirfd/path (beneath, no symlinks). */
int acs_read_beneath(int dirfd, const char *path, char **ret, size_t *ret_len);

/*
 * Open path below dirfd without following any symlink and without leaving
 * dirfd: openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|RESOLVE_NO_MAGICLINKS),
 * or, on kernels without openat2, a component-wise walk with
 * O_NOFOLLOW|O_DIRECTORY on each parent. The last component is opened with
 * flags | O_NOFOLLOW | O_CLOEXEC. "" or "." opens dirfd itself.
 */
int acs_open_beneath(int dirfd, const char *path, int flags, mode_t mode);
/* Open the parent directory of path (O_PATH) and point *ret_name at the last component. */
int acs_open_parent_beneath(int dirfd, const char *path, const char **ret_name);

/* Growable list used while walking. */
int acs_change_list_push(acs_change **v, size_t *n, size_t *cap, acs_change *ch);
void acs_change_done(acs_change *ch);
