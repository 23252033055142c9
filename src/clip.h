/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The token shield: captures stdout and stderr with memory bounded by the
 * budget, clips to a head and a tail at line boundaries, folds repeats and
 * carriage-return progress bars. Pure: fed bytes, returns bytes.
 */
#pragma once

#include "common.h"
#include "report.h"

enum { ACS_STDOUT = 0, ACS_STDERR = 1 };

typedef struct acs_shield acs_shield;

/* max_tokens: budget for both streams together. strip_ansi: drop escape sequences. */
acs_shield *acs_shield_new(uint64_t max_tokens, bool strip_ansi);
void acs_shield_free(acs_shield *s);

/*
 * Feed a chunk the program wrote on stream (ACS_STDOUT/ACS_STDERR).
 * Returns how many leading bytes of buf lie within the live head and may be
 * passed through to the terminal immediately (streaming mode); the rest is
 * held back for the tail. Never fails; memory stays bounded.
 */
size_t acs_shield_feed(acs_shield *s, int stream, const char *buf, size_t len);

/*
 * After the program ended: fill the report's stream results (clipped text,
 * counts). Then, for streaming mode, ret_epilogue receives what must still
 * be printed on that stream after the live head (marker + tail), or NULL.
 */
int acs_shield_finish(acs_shield *s, acs_stream_result *ret_out, acs_stream_result *ret_err);
char *acs_shield_epilogue(acs_shield *s, int stream, size_t *ret_len);

/* The token estimate used everywhere (documented in acs-launch(1)). */
uint64_t acs_estimate_tokens(const char *buf, size_t len);
