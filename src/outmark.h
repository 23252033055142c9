/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Our words and the program's, apart on one terminal. Every line acs-launch
 * writes on its stderr starts with "acs-launch: "; a line of the program's
 * output that acs-launch passes through to the same place and that starts
 * with "acs-launch:" is written as "[program] acs-launch:", so it cannot
 * pass for ours. Pure: fed bytes, hands bytes to a callback.
 *
 * "Starts a line" is meant as a terminal shows it: at the start of the
 * stream, after a newline, after any other C0 control character but tab
 * (carriage return and backspace move the cursor back) and after a complete
 * escape sequence (one may move the cursor to column 1).
 */
#pragma once

#include "common.h"

#define ACS_OUTMARK_OURS "acs-launch:"
#define ACS_OUTMARK_ESCAPE "[program] "

typedef void (*acs_outmark_emit)(void *userdata, const char *buf, size_t len);

typedef struct acs_outmark {
        bool line_start;  /* the next printable byte starts a line */
        unsigned held;    /* bytes of ACS_OUTMARK_OURS matched at a line start, not yet emitted */
        int esc;          /* inside an escape sequence: 0 no, 1 after ESC, 2 CSI, 3 string */
        bool esc_st;      /* string sequence: ESC seen, '\\' ends it */
} acs_outmark;

#define ACS_OUTMARK_INIT ((acs_outmark){ .line_start = true })

/* Pass buf through, marked; emit may be called several times. */
void acs_outmark_feed(acs_outmark *m, const char *buf, size_t len, acs_outmark_emit emit, void *userdata);
/* At the end of the stream: emit what is held back (a partial match). */
void acs_outmark_flush(acs_outmark *m, acs_outmark_emit emit, void *userdata);
/* After a flush: does the destination stand at the start of a line? */
static inline bool acs_outmark_at_line_start(const acs_outmark *m)
{
        return m->line_start && m->held == 0 && m->esc == 0;
}
