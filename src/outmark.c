/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* See outmark.h: the program's lines that could pass for ours, marked. */
#include <string.h>

#include "outmark.h"

#define OURS_LEN (sizeof ACS_OUTMARK_OURS - 1)

typedef struct out {
        char buf[4096];
        size_t n;
        acs_outmark_emit emit;
        void *ud;
} out;

static void put(out *o, const char *p, size_t n)
{
        while (n > 0) {
                size_t k = sizeof o->buf - o->n < n ? sizeof o->buf - o->n : n;
                memcpy(o->buf + o->n, p, k);
                o->n += k;
                p += k;
                n -= k;
                if (o->n == sizeof o->buf) {
                        o->emit(o->ud, o->buf, o->n);
                        o->n = 0;
                }
        }
}

static void drain(out *o)
{
        if (o->n)
                o->emit(o->ud, o->buf, o->n);
        o->n = 0;
}

/* Escape sequences (ECMA-48) pass through whole; their end may be column 1. */
static void esc_byte(acs_outmark *m, unsigned char c)
{
        switch (m->esc) {
        case 1:
                m->esc = c == '[' ? 2 : (c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_') ? 3 : 0;
                m->esc_st = false;
                break;
        case 2:
                if (c >= 0x40 && c <= 0x7e)
                        m->esc = 0;
                else if (c < 0x20 || c > 0x3f)
                        m->esc = 0; /* malformed: the sequence is over */
                break;
        case 3:
                if (c == 0x07 || (m->esc_st && c == '\\'))
                        m->esc = 0;
                m->esc_st = c == 0x1b;
                break;
        }
        if (m->esc == 0)
                m->line_start = true;
}

static void byte(acs_outmark *m, out *o, unsigned char c)
{
        if (m->esc) {
                put(o, (const char *)&c, 1);
                esc_byte(m, c);
                return;
        }
        if (m->line_start) {
                if (c == (unsigned char)ACS_OUTMARK_OURS[m->held]) {
                        if (++m->held == OURS_LEN) {
                                put(o, ACS_OUTMARK_ESCAPE, sizeof ACS_OUTMARK_ESCAPE - 1);
                                put(o, ACS_OUTMARK_OURS, OURS_LEN);
                                m->held = 0;
                                m->line_start = false;
                        }
                        return;
                }
                if (m->held) { /* not ours after all: what was held goes out as it was */
                        put(o, ACS_OUTMARK_OURS, m->held);
                        m->held = 0;
                        m->line_start = false;
                }
        }
        put(o, (const char *)&c, 1);
        if (c == 0x1b) {
                m->esc = 1;
                m->line_start = false;
        } else
                m->line_start = (c < 0x20 && c != '\t') || c == 0x7f;
}

void acs_outmark_feed(acs_outmark *m, const char *buf, size_t len, acs_outmark_emit emit, void *userdata)
{
        out o = { .emit = emit, .ud = userdata };
        for (size_t i = 0; i < len; i++)
                byte(m, &o, (unsigned char)buf[i]);
        drain(&o);
}

void acs_outmark_flush(acs_outmark *m, acs_outmark_emit emit, void *userdata)
{
        if (m->held) {
                emit(userdata, ACS_OUTMARK_OURS, m->held);
                m->held = 0;
                m->line_start = false;
        }
}
