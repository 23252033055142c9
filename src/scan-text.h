/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Finding text that is safe to show. A finding's name and message quote the
 * scanned code (a module name, an attribute, a string), and the code is
 * untrusted: it must not be able to write terminal escapes into `check`'s
 * output, invalid UTF-8 into JSON, or megabytes into a report. Pure: no
 * syscalls, no libpython (linked into libacs and into both scan modules).
 */
#pragma once

#include <stddef.h>

/* Caps on a finding's name and message, in bytes, the ellipsis included. */
#define ACS_FINDING_NAME_MAX 200
#define ACS_FINDING_MESSAGE_MAX 1000

/*
 * A malloc'ed copy of s that is valid UTF-8 without control characters:
 * C0 controls (newline and tab too), DEL, C1 controls (U+0080-U+009F) and the
 * invisible format characters that reorder or hide text (bidi marks,
 * embeddings, overrides and isolates, zero-width characters, U+2028/U+2029,
 * BOM) are written as \xNN or \uNNNN; a byte that is not part of valid UTF-8
 * is written as \xNN. At most max bytes (max >= 4): a longer result is cut
 * at a character boundary, never inside an escape, and ends in "…".
 * NULL only when out of memory.
 */
char *acs_scan_clean_text(const char *s, size_t max);
