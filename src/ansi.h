/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What `[output] ansi = strip` removes, in one place: the token shield uses
 * it for the report's text (and so for the tail printed at the end), the
 * supervise loop for the head it streams live to the caller's terminal.
 * Pure: fed code points or bytes, returns decisions or bytes.
 *
 * Dropped: escape sequences (ESC Fe/Fs/Fp/nF, CSI, OSC, DCS, SOS, PM, APC,
 * introduced by ESC or by their C1 code points, ended by their final byte,
 * BEL or ST), every other C1 control (U+0080..U+009F), DEL, and the C0
 * controls but tab, newline, carriage return and NUL (terminals ignore NUL).
 * So what is left can neither move the cursor beyond a line nor ring, switch
 * charsets, set a title, write the clipboard (OSC 52) or ask the terminal to
 * answer into the shell's input.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An escape that grows longer than this (code points) was garbage: it is
 * dropped up to here and what follows is judged as text again. */
#define ACS_ANSI_MAX 4096

typedef struct acs_ansi {
        uint8_t state; /* 0: in text */
        unsigned len;  /* code points of the escape so far */
} acs_ansi;

/* Does cp belong to an escape sequence, or is it a control, to drop? */
bool acs_ansi_eat(acs_ansi *a, uint32_t cp);
static inline bool acs_ansi_idle(const acs_ansi *a)
{
        return a->state == 0;
}
static inline void acs_ansi_reset(acs_ansi *a)
{
        *a = (acs_ansi){ 0 };
}

/*
 * The live filter for one stream: bytes as the program wrote them, in as
 * many chunks as it takes, out as valid UTF-8 with acs_ansi_eat applied
 * (invalid sequences, raw 8-bit C1 bytes included, become U+FFFD). State
 * carries over between chunks, so an escape or a character split across two
 * reads is handled as if it came in one.
 */
typedef struct acs_term_filter {
        acs_ansi ansi;
        uint32_t cp;
        uint8_t need, lo, hi;
} acs_term_filter;

/* Room the output needs for len input bytes. */
#define ACS_TERM_FILTER_OUT(len) (3 * (size_t)(len) + 3)

/* Filter in[0..len) into out (ACS_TERM_FILTER_OUT(len) bytes); returns the
 * bytes written. A character still incomplete at the end waits for the next
 * chunk. */
size_t acs_term_filter_feed(acs_term_filter *f, const char *in, size_t len, char *out);

/* Is s[0..n) one harmless line for a terminal: valid UTF-8, no newline or
 * carriage return, nothing acs_ansi_eat drops? For the launcher's own
 * messages that quote model-written code (scan findings): when not, print
 * them escaped (acs_quote_c). */
bool acs_ansi_plain(const char *s, size_t n);
