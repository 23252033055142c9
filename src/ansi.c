/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What `ansi = strip` removes (see ansi.h), and the live filter built on it. */
#include <stdlib.h>
#include <string.h>

#include "ansi.h"

enum { A_NORMAL, A_ESC, A_ESC_INTER, A_CSI, A_STRING, A_STRING_ESC };

/* A control a terminal acts on. Tab, newline and carriage return are text;
 * NUL is ignored by terminals and kept (the report counts what was written). */
static bool is_control(uint32_t cp)
{
        if (cp < 0x20)
                return cp != '\t' && cp != '\n' && cp != '\r' && cp != 0;
        return cp >= 0x7F && cp <= 0x9F;
}

bool acs_ansi_eat(acs_ansi *a, uint32_t cp)
{
        if (a->state != A_NORMAL && ++a->len > ACS_ANSI_MAX) {
                /* not an escape after all: what follows is text again, and is
                 * judged as text (an ESC here still starts a new escape) */
                acs_ansi_reset(a);
                return acs_ansi_eat(a, cp);
        }
        switch (a->state) {
        case A_NORMAL:
                a->len = 0;
                if (cp == 0x1B)
                        a->state = A_ESC;
                else if (cp == 0x9B)
                        a->state = A_CSI;
                else if (cp == 0x90 || cp == 0x9D || cp == 0x98 || cp == 0x9E || cp == 0x9F)
                        a->state = A_STRING;
                else
                        return is_control(cp);
                return true;
        case A_STRING_ESC:
                if (cp == '\\') {
                        a->state = A_NORMAL;
                        return true;
                }
                a->state = A_ESC;
                __attribute__((fallthrough));
        case A_ESC:
                if (cp == '[')
                        a->state = A_CSI;
                else if (cp == ']' || cp == 'P' || cp == 'X' || cp == '^' || cp == '_')
                        a->state = A_STRING;
                else if (cp >= 0x20 && cp <= 0x2F)
                        a->state = A_ESC_INTER;
                else if (cp >= 0x30 && cp <= 0x7E)
                        a->state = A_NORMAL;
                else
                        break;
                return true;
        case A_ESC_INTER:
                if (cp >= 0x20 && cp <= 0x2F)
                        return true;
                if (cp >= 0x30 && cp <= 0x7E) {
                        a->state = A_NORMAL;
                        return true;
                }
                break;
        case A_CSI:
                if (cp >= 0x20 && cp <= 0x3F)
                        return true;
                if (cp >= 0x40 && cp <= 0x7E) {
                        a->state = A_NORMAL;
                        return true;
                }
                break;
        case A_STRING:
                if (cp == 0x07 || cp == 0x9C) {
                        a->state = A_NORMAL;
                        return true;
                }
                if (cp == 0x1B) {
                        a->state = A_STRING_ESC;
                        return true;
                }
                if (cp != '\n')
                        return true;
                break; /* a title never spans lines: this was garbage */
        }
        /* malformed: drop what we had, judge cp as text */
        a->state = A_NORMAL;
        return acs_ansi_eat(a, cp);
}

static size_t put(acs_term_filter *f, uint32_t cp, char *out)
{
        if (acs_ansi_eat(&f->ansi, cp))
                return 0;
        if (cp < 0x80) {
                out[0] = (char)cp;
                return 1;
        }
        if (cp < 0x800) {
                out[0] = (char)(0xC0 | (cp >> 6));
                out[1] = (char)(0x80 | (cp & 0x3F));
                return 2;
        }
        if (cp < 0x10000) {
                out[0] = (char)(0xE0 | (cp >> 12));
                out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
                out[2] = (char)(0x80 | (cp & 0x3F));
                return 3;
        }
        out[0] = (char)(0xF0 | (cp >> 18));
        out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[3] = (char)(0x80 | (cp & 0x3F));
        return 4;
}

/* The decoder accepts exactly what the shield's does (clip.c): no overlong
 * forms, no surrogates, nothing above U+10FFFF; a raw 0x80..0x9F byte is
 * never a C1 control here, only U+FFFD. */
size_t acs_term_filter_feed(acs_term_filter *f, const char *in, size_t len, char *out)
{
        const unsigned char *p = (const unsigned char *)in;
        size_t o = 0;
        for (size_t i = 0; i < len; i++) {
                unsigned char b = p[i];
                if (f->need) {
                        if (b >= f->lo && b <= f->hi) {
                                f->cp = (f->cp << 6) | (b & 0x3F);
                                f->lo = 0x80;
                                f->hi = 0xBF;
                                if (--f->need == 0)
                                        o += put(f, f->cp, out + o);
                                continue;
                        }
                        f->need = 0; /* truncated: one U+FFFD, then b on its own */
                        o += put(f, 0xFFFD, out + o);
                }
                f->lo = 0x80;
                f->hi = 0xBF;
                if (b < 0x80) {
                        o += put(f, b, out + o);
                } else if (b >= 0xC2 && b <= 0xDF) {
                        f->need = 1;
                        f->cp = b & 0x1F;
                } else if (b >= 0xE0 && b <= 0xEF) {
                        f->need = 2;
                        f->cp = b & 0x0F;
                        if (b == 0xE0)
                                f->lo = 0xA0;
                        else if (b == 0xED)
                                f->hi = 0x9F;
                } else if (b >= 0xF0 && b <= 0xF4) {
                        f->need = 3;
                        f->cp = b & 0x07;
                        if (b == 0xF0)
                                f->lo = 0x90;
                        else if (b == 0xF4)
                                f->hi = 0x8F;
                } else {
                        o += put(f, 0xFFFD, out + o);
                }
        }
        return o;
}

bool acs_ansi_plain(const char *s, size_t n)
{
        if (memchr(s, '\n', n) || memchr(s, '\r', n))
                return false;
        char *out = malloc(ACS_TERM_FILTER_OUT(n));
        if (!out)
                return false;
        acs_term_filter f = { 0 };
        size_t m = acs_term_filter_feed(&f, s, n, out);
        bool same = m == n && f.need == 0 && memcmp(out, s, n) == 0;
        free(out);
        return same;
}
