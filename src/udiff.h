/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The body of one file's git patch, without libgit2 (pure: buffers in,
 * text out through a callback): unified-diff hunks for text, a "GIT binary
 * patch" of literals for binary content. git apply accepts both.
 */
#pragma once

#include "common.h"

/* Receives the output piece by piece; a negative return stops and is returned. */
typedef int (*acs_udiff_out)(void *u, const char *s, size_t n);

/* As git decides: a NUL byte in the first 8000 bytes. */
bool acs_udiff_is_binary(const char *buf, size_t len);

/*
 * Hunks turning a[0..alen) into b[0..blen), with context lines around each
 * change, preceded by "--- old_name\n+++ new_name\n" when there is a hunk;
 * nothing when the two are equal. Lines end at '\n'; a last line without
 * one is followed by "\ No newline at end of file". The edit script is
 * Myers's shortest one after the common head and tail are set aside; past
 * ACS_UDIFF_MAX_EDITS edits it stops looking and replaces the whole middle
 * (still a correct patch, just a longer one), so time and memory stay
 * bounded whatever the files hold. 0, -ENOMEM, or what out returned.
 */
#define ACS_UDIFF_MAX_EDITS 1000
int acs_udiff_hunks(const char *a, size_t alen, const char *b, size_t blen, unsigned context,
                    const char *old_name, const char *new_name, acs_udiff_out out, void *u);

/*
 * "GIT binary patch" with the new content as a literal, then the old one
 * (git apply -R uses it): zlib streams of stored blocks (no compression, so
 * no zlib), base85 in lines of at most 52 bytes, as git writes them.
 */
int acs_udiff_binary(const char *a, size_t alen, const char *b, size_t blen, acs_udiff_out out, void *u);
