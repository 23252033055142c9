/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared by diff*.c, apply*.c and patch*.c only. */
#pragma once

#include <openssl/sha.h>

#include "diff.h"

/*
 * libcrypto and libgit2 are loaded with dlopen on first use: linking them
 * costs every acs-launch start ~2.4 ms (libcrypto) and ~3 ms (libgit2) of
 * relocation and constructors, measured with hyperfine, while most runs
 * hash nothing and produce no patch. The tables live on the caller's stack
 * (no global state); dlopen of an already-loaded library is cheap and
 * RTLD_NODELETE keeps it mapped for the next call.
 */
/*
 * SHA-256 through OpenSSL's low-level SHA256_* functions, not EVP: in
 * OpenSSL 3 the first EVP digest loads the provider and openssl.cnf
 * (~2.2 ms here), the low-level call costs ~0.08 ms on first use.
 */
typedef struct acs_crypto {
        int (*init)(SHA256_CTX *);
        int (*update)(SHA256_CTX *, const void *, size_t);
        int (*final)(unsigned char *, SHA256_CTX *);
} acs_crypto;

int acs_crypto_load(acs_crypto *ret, acs_error *err);
/* sha256 of everything readable from fd (from its current offset) as hex */
int acs_sha256_fd(const acs_crypto *cr, int fd, char hex[static 65], uint64_t *ret_size);
int acs_sha256_buf(const acs_crypto *cr, const void *buf, size_t n, char hex[static 65]);
void acs_sha256_hex(const unsigned char md[static 32], char hex[static 65]);

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
