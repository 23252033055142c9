/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The token shield (see clip.h for the rules and the contract).
 *
 * Per stream, bytes go: UTF-8 repair -> ANSI state machine -> line assembly
 * (with "\r" collapse) -> either the live head, or the folder (runs of
 * identical lines) -> the tail ring. The ring keeps only as many of the
 * newest entries as the budget could ever show, so memory is O(budget):
 * what falls out of it is counted, never stored.
 */
#include <stdio.h>
#include <string.h>

#include "clip-internal.h"

/* ---- shield ----------------------------------------------------------- */

acs_shield *acs_shield_new(uint64_t max_tokens, bool strip_ansi)
{
        acs_shield *s = calloc(1, sizeof *s);
        if (!s)
                return NULL;
        if (max_tokens > ACS_SHIELD_MAX_TOKENS)
                max_tokens = ACS_SHIELD_MAX_TOKENS;
        s->budget = max_tokens * UNITS_PER_TOKEN;
        s->head_max = s->budget * HEAD_PERCENT / 100;
        s->grace = s->budget * GRACE_PERCENT / 100;
        /* a longer line is kept cut (and never streamed live): real text
         * has 3 to 6 bytes per token, this keeps memory O(budget) */
        s->linecap = max_tokens * LINECAP_PER_TOKEN > MIN_LINECAP ? max_tokens * LINECAP_PER_TOKEN : MIN_LINECAP;
        s->strip_ansi = strip_ansi;
        for (int i = 0; i < 2; i++)
                s->st[i].live = true;
        return s;
}

void acs_shield_free(acs_shield *s)
{
        if (!s)
                return;
        for (int i = 0; i < 2; i++) {
                stream *t = &s->st[i];
                acs_strbuf_free(&t->cur.text);
                acs_strbuf_free(&t->prev.text);
                acs_strbuf_free(&t->head);
                acs_strbuf_free(&t->ring);
                free(t->epi);
        }
        free(s);
}

size_t acs_shield_memory(const acs_shield *s)
{
        size_t m = sizeof *s;
        for (int i = 0; i < 2; i++) {
                const stream *t = &s->st[i];
                m += t->cur.text.cap + t->prev.text.cap + t->head.cap + t->ring.cap;
        }
        return m;
}
/* The head closed: seed the folder with the head's last line so a run that
 * started in the head folds across the boundary. */
static void head_close(acs_shield *s, stream *t)
{
        t->live = false;
        if (!t->head_has_last || t->head_cut)
                return;
        line *p = &t->prev;
        p->text.len = 0;
        if (acs_strbuf_add(&p->text, t->head.p + t->head_last_off, t->head_last_len) < 0)
                return;
        p->len = t->head_last_len;
        p->tok = (acs_tok){};
        p->units = acs_tok_units(&p->tok, p->text.p, p->text.len);
        p->xhash = 0;
        p->raw = 0;
        t->prev_nl = true;
        t->have_prev = true;
        t->run = t->shown = t->head_run;
}
/* ---- line assembly ---------------------------------------------------- */

static void line_reset(line *l)
{
        l->text.len = 0;
        l->len = l->units = l->xhash = l->raw = 0;
        l->tok = (acs_tok){};
}
static void line_append_cp(acs_shield *s, stream *t, uint32_t cp, chunk *c);

static void line_complete(acs_shield *s, stream *t, bool nl, chunk *c)
{
        line *l = &t->cur;
        uint64_t u = l->units + (nl ? acs_clip_nl_units(l) : 0);
        if (t->skip_line) {
                t->om_bytes += l->raw;
                t->om_units += u;
                t->skip_line = false;
                t->total_units += u;
                line_reset(l);
                return;
        }
        t->total_units += u;
        if (t->live) {
                bool here = c && c->line_off >= 0;
                bool repeat = t->head_has_last && nl && l->len == t->head_last_len && l->text.len == l->len &&
                              (l->len == 0 || memcmp(l->text.p, t->head.p + t->head_last_off, l->len) == 0);
                if (repeat && here && t->head_run >= 2) {
                        /* a run starts: fold it instead of streaming it */
                        c->live_end = (size_t)c->line_off;
                        head_close(s, t);
                } else if (acs_strbuf_reserve(&t->head, l->text.len + 1) >= 0) {
                        t->head_last_off = t->head.len;
                        t->head_last_len = l->text.len;
                        t->head_run = repeat ? t->head_run + 1 : 1;
                        t->head_has_last = nl && l->text.len == l->len;
                        acs_strbuf_add(&t->head, l->text.p, l->text.len);
                        if (nl)
                                acs_strbuf_add(&t->head, "\n", 1);
                        t->head_units += u;
                        t->head_lines++;
                        line_reset(l);
                        return;
                } else {
                        /* out of memory: stop streaming, keep counting */
                        if (c)
                                c->live_end = here ? (size_t)c->line_off : c->off + 1;
                        head_close(s, t);
                }
        }
        acs_clip_fold_push(s, t, nl);
        line_reset(l);
}

/* The head has no room for the current line any more. */
static void head_overflow(acs_shield *s, stream *t, chunk *c)
{
        if (c->line_off >= 0) {
                /* the line began in this chunk: cut cleanly before it */
                c->live_end = (size_t)c->line_off;
                head_close(s, t);
                return;
        }
        /* its beginning is already on the terminal: the head ends mid-line */
        line *l = &t->cur;
        if (acs_strbuf_add(&t->head, l->text.p, l->text.len) >= 0)
                t->head_units += l->units;
        t->head_lines++;
        t->head_cut = true;
        t->skip_line = true;
        t->total_units += l->units;
        c->live_end = c->cp_off;
        head_close(s, t);
        line_reset(l);
}

static void line_append_cp(acs_shield *s, stream *t, uint32_t cp, chunk *c)
{
        char enc[4];
        size_t n;
        if (cp < 0x80) {
                enc[0] = (char)cp;
                n = 1;
        } else if (cp < 0x800) {
                enc[0] = (char)(0xC0 | (cp >> 6));
                enc[1] = (char)(0x80 | (cp & 0x3F));
                n = 2;
        } else if (cp < 0x10000) {
                enc[0] = (char)(0xE0 | (cp >> 12));
                enc[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
                enc[2] = (char)(0x80 | (cp & 0x3F));
                n = 3;
        } else {
                enc[0] = (char)(0xF0 | (cp >> 18));
                enc[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
                enc[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
                enc[3] = (char)(0x80 | (cp & 0x3F));
                n = 4;
        }
        line *l = &t->cur;
        unsigned u = acs_tok_cp(&l->tok, cp);
        if (t->live && !t->skip_line && c) {
                /* the line's newline must fit too */
                uint64_t want = head_used(s) + l->units + u + UNITS_PER_TOKEN;
                if (c->line_off >= 0 && l->len == 0 && t->head_run >= 2 && t->head_last_len > 0 &&
                    (char)cp == t->head.p[t->head_last_off]) {
                        /* maybe a run of identical lines starts: hold it
                         * back so it can fold (if not, it is just shown at
                         * the end instead of live) */
                        c->live_end = (size_t)c->line_off;
                        head_close(s, t);
                } else if ((want > s->head_max && (c->line_off >= 0 || want > s->head_max + s->grace)) ||
                           l->len + n > s->linecap) {
                        head_overflow(s, t, c);
                }
        }
        if (t->skip_line) {
                l->units += u;
                l->len += n;
                return;
        }
        if (l->text.len + n <= s->linecap && l->len == l->text.len) {
                acs_strbuf_add(&l->text, enc, n);
        } else {
                for (size_t i = 0; i < n; i++)
                        l->xhash = (l->xhash ^ (unsigned char)enc[i]) * UINT64_C(0x100000001b3);
        }
        l->len += n;
        l->units += u;
}

/* ---- escapes (ansi.c), carriage returns, UTF-8 ------------------------- */

static void cp_in(acs_shield *s, stream *t, uint32_t cp, chunk *c)
{
        if (s->strip_ansi && acs_ansi_eat(&t->ansi, cp))
                return;
        if (t->pending_cr) {
                t->pending_cr = false;
                if (cp != '\n') {
                        /* "\r" not followed by "\n": the line starts over
                         * (keep raw: those bytes were still written) */
                        t->cur.text.len = 0;
                        t->cur.len = t->cur.units = t->cur.xhash = 0;
                        t->cur.tok = (acs_tok){};
                }
        }
        if (cp == '\r') {
                t->pending_cr = true;
        } else if (cp == '\n') {
                line_complete(s, t, true, c);
                if (c)
                        c->line_off = (ssize_t)c->off + 1;
        } else {
                line_append_cp(s, t, cp, c);
        }
}

static void decode(acs_shield *s, stream *t, unsigned char b, chunk *c)
{
        if (t->need) {
                if (b >= t->lo && b <= t->hi) {
                        t->cp = (t->cp << 6) | (b & 0x3F);
                        t->lo = 0x80;
                        t->hi = 0xBF;
                        if (--t->need == 0)
                                cp_in(s, t, t->cp, c);
                        return;
                }
                /* a truncated sequence: one U+FFFD, then b on its own */
                t->need = 0;
                cp_in(s, t, 0xFFFD, c);
        }
        if (c)
                c->cp_off = c->off;
        t->lo = 0x80;
        t->hi = 0xBF;
        if (b < 0x80) {
                cp_in(s, t, b, c);
                return;
        }
        if (b >= 0xC2 && b <= 0xDF) {
                t->need = 1;
                t->cp = b & 0x1F;
        } else if (b >= 0xE0 && b <= 0xEF) {
                t->need = 2;
                t->cp = b & 0x0F;
                if (b == 0xE0)
                        t->lo = 0xA0; /* overlong */
                else if (b == 0xED)
                        t->hi = 0x9F; /* surrogates */
        } else if (b >= 0xF0 && b <= 0xF4) {
                t->need = 3;
                t->cp = b & 0x07;
                if (b == 0xF0)
                        t->lo = 0x90; /* overlong */
                else if (b == 0xF4)
                        t->hi = 0x8F; /* above U+10FFFF */
        } else {
                cp_in(s, t, 0xFFFD, c);
        }
}

static inline bool plain_byte(unsigned char b)
{
        return (b >= 0x20 && b < 0x7F) || b == '\t';
}

/* Fast path for a run of printable ASCII after the head: no state to track. */
static void add_plain_run(acs_shield *s, stream *t, const char *p, size_t n)
{
        line *l = &t->cur;
        size_t keep = 0;
        if (l->len == l->text.len && l->text.len < s->linecap) {
                keep = s->linecap - l->text.len;
                if (keep > n)
                        keep = n;
                if (acs_strbuf_add(&l->text, p, keep) < 0)
                        keep = 0;
        }
        for (size_t i = keep; i < n; i++)
                l->xhash = (l->xhash ^ (unsigned char)p[i]) * UINT64_C(0x100000001b3);
        l->len += n;
        l->units += acs_tok_units(&l->tok, p, n);
        l->raw += n;
        t->bytes += n;
}

size_t acs_shield_feed(acs_shield *s, int stream_id, const char *buf, size_t len)
{
        if (!s || s->finished || (stream_id != ACS_STDOUT && stream_id != ACS_STDERR))
                return 0;
        stream *t = &s->st[stream_id];
        bool was_live = t->live;
        chunk c = {
                .line_off = (t->cur.len == 0 && !t->pending_cr && !t->skip_line) ? 0 : -1,
                .live_end = len,
        };
        const unsigned char *p = (const unsigned char *)buf;
        while (c.off < len) {
                if (!t->live && !t->need && acs_ansi_idle(&t->ansi) && !t->pending_cr && !t->skip_line) {
                        size_t j = c.off;
                        while (j < len && plain_byte(p[j]))
                                j++;
                        if (j > c.off) {
                                add_plain_run(s, t, buf + c.off, j - c.off);
                                c.off = j;
                                continue;
                        }
                        if (p[c.off] == '\n') {
                                t->bytes++;
                                t->cur.raw++;
                                line_complete(s, t, true, &c);
                                c.off++;
                                continue;
                        }
                }
                t->bytes++;
                t->cur.raw++;
                decode(s, t, p[c.off], &c);
                c.off++;
        }
        if (!was_live)
                return 0;
        return t->live ? len : c.live_end;
}

/* ---- end of input ---------------------------------------------------- */

static void stream_flush(acs_shield *s, stream *t)
{
        if (t->need) {
                t->need = 0;
                cp_in(s, t, 0xFFFD, NULL);
        }
        acs_ansi_reset(&t->ansi);
        t->pending_cr = false; /* a bar's last state stays */
        if (t->cur.len > 0 || t->skip_line)
                line_complete(s, t, false, NULL);
        acs_clip_fold_flush(s, t);
}

int acs_shield_finish(acs_shield *s, acs_stream_result *ret_out, acs_stream_result *ret_err)
{
        if (s->finished)
                return -EALREADY;
        s->finished = true;
        for (int i = 0; i < 2; i++)
                stream_flush(s, &s->st[i]);
        return acs_clip_build(s, ret_out, ret_err);
}
