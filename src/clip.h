/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The token shield: captures stdout and stderr with memory bounded by the
 * budget, clips to a head and a tail at line boundaries, folds repeats and
 * carriage-return progress bars. Pure: fed bytes, returns bytes.
 *
 * Token estimate (the only one used anywhere in acs-launch, clip-tokens.c):
 *   an upper bound on the cl100k_base and o200k_base counts, from a cost
 *   per code point that depends on its class and the one before it on the
 *   line, in units of 1/256 token; tokens = ceil(units / 256). Lines are
 *   independent: a text's estimate is the sum over its lines.
 *
 * What the program wrote goes through, per stream:
 *   UTF-8 repair (each invalid sequence becomes U+FFFD, so the text is always
 *   valid UTF-8) -> escape sequences and terminal controls dropped (unless
 *   kept; ansi.h says which) -> a bare
 *   "\r" restarts the line (a progress bar keeps only its last state; "\r\n"
 *   is a newline) -> lines.
 * The budget (units = 256 * max_tokens, for both streams together) is split:
 *   - a head shared by both streams, first come first served, of 40% of the
 *     budget, streamed live (a line that began inside it may finish up to
 *     10% of the budget past it; a longer one is cut there);
 *   - the rest goes to the tails, at the end. When both tails do not fit,
 *     stderr is guaranteed half of what is left (or all it needs, if less),
 *     and never less than 64 tokens (its last line is cut to fit when it is
 *     longer): the end of a traceback always survives, even if this overruns
 *     a tiny budget (stdout gives way to that floor first).
 *   Lines are never split, except a single line bigger than what is left.
 *   Runs of 4 or more identical lines after the head show two copies and
 *   "… repeated N more times". When lines were dropped, one marker line
 *   "… [omitted L lines, B bytes, ~T tokens] …" sits between head and tail
 *   (L, B counted on what the program wrote, T on the cleaned text); markers
 *   are counted in the budget (reserved at their longest possible numbers).
 * Memory is O(budget) per shield, whatever is fed: a flood costs CPU only.
 * A line longer than 16 bytes per token of budget (text has 3 to 6) is kept
 * cut. Measured (tests/unit/test-clip.c): about 50 KiB at 1000 tokens, never
 * above 48 bytes per quarter token of budget (+1 KiB) on random input.
 *
 * Contract with the supervise loop:
 *   s = acs_shield_new(max_tokens, strip_ansi);
 *   for every chunk read from a pipe:
 *           n = acs_shield_feed(s, stream, buf, len);
 *           if streaming: write buf[0..n) to the terminal now.
 *     Once feed returned n < len for a stream, it returns 0 for every later
 *     chunk of that stream: the live part is always a prefix of the stream.
 *     The live part is the program's raw bytes (escapes included: unless
 *     ansi is kept, the loop passes them through acs_term_filter); it ends
 *     at a line boundary except when a line that started in an earlier chunk
 *     overflowed the head and its grace (then the epilogue starts with "\n").
 *     Live streaming also stops where a run of identical lines may start
 *     (two equal lines at the end of the head), so that the run can fold.
 *   at EOF of both pipes (or when the program ended and the pipes are
 *   drained): acs_shield_finish(s, &rep->out, &rep->err);   (once)
 *   if streaming: for each stream, e = acs_shield_epilogue(s, stream, &n);
 *           write e[0..n) to that stream; free(e).  NULL means nothing left.
 *     The epilogue is the marker + tail when something was dropped, or the
 *     held-back remainder when everything fit; so live part + epilogue is
 *     what the report's text says (modulo escapes, \r and bad UTF-8, which
 *     only the report and the epilogue clean).
 *   acs_shield_free(s).
 */
#pragma once

#include "common.h"
#include "report.h"

enum { ACS_STDOUT = 0, ACS_STDERR = 1 };

/* Budgets above this are clamped (16 MiB of text per run). */
#define ACS_SHIELD_MAX_TOKENS (UINT64_C(4) << 20)

typedef struct acs_shield acs_shield;

/*
 * max_tokens: budget for both streams together (clamped to
 * ACS_SHIELD_MAX_TOKENS; 0 keeps only markers and the end of stderr).
 * strip_ansi: drop escape sequences. NULL on out of memory.
 */
acs_shield *acs_shield_new(uint64_t max_tokens, bool strip_ansi);
void acs_shield_free(acs_shield *s);
static inline void acs_shield_freep(acs_shield **s)
{
        acs_shield_free(*s);
}
#define _cleanup_shield_ _cleanup_(acs_shield_freep)

/*
 * Feed a chunk the program wrote on stream (ACS_STDOUT/ACS_STDERR).
 * Returns how many leading bytes of buf lie within the live head and may be
 * passed through to the terminal immediately (streaming mode); the rest is
 * held back for the tail. Never fails; memory stays bounded (on allocation
 * failure text is dropped and counted as omitted). Returns 0 after finish.
 */
size_t acs_shield_feed(acs_shield *s, int stream, const char *buf, size_t len);

/*
 * After the program ended: fill the report's stream results (clipped text,
 * counts); ret_out/ret_err receive malloc'ed text (released by
 * acs_report_done) and may be NULL. Returns 0 or -ENOMEM. Call once.
 * Then, for streaming mode, acs_shield_epilogue returns (malloc'ed, caller
 * frees) what must still be printed on that stream after the live head
 * (marker + tail, or the held-back remainder), or NULL when nothing is left.
 */
int acs_shield_finish(acs_shield *s, acs_stream_result *ret_out, acs_stream_result *ret_err);
char *acs_shield_epilogue(acs_shield *s, int stream, size_t *ret_len);

/* Bytes of memory the shield holds now (for tests of the memory bound). */
size_t acs_shield_memory(const acs_shield *s);

/* The token estimate used everywhere (clip-tokens.c, acs-launch(1)). */
uint64_t acs_estimate_tokens(const char *buf, size_t len);
/* The same in units (256 per token) of valid UTF-8 text. */
uint64_t acs_estimate_units(const char *buf, size_t len);
/*
 * For fitting the estimate (tests/tokens): how often each of its events
 * occurs in valid UTF-8 text (counts[0..ncounts) are incremented), the
 * units it adds besides them (*ret_fixed) and the estimate this way
 * (*ret_units, if not NULL: acs_estimate_units takes shortcuts, this does
 * not). Returns the number of events.
 */
size_t acs_tok_events(const char *buf, size_t len, uint64_t *counts, size_t ncounts, uint64_t *ret_fixed,
                      uint64_t *ret_units);
