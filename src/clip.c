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

#include "clip.h"

#define UNITS_PER_TOKEN 4
#define HEAD_PERCENT 40
#define GRACE_PERCENT 10
#define MARKER_RESERVE (25 * UNITS_PER_TOKEN) /* the marker line, counted in the budget */
#define STDERR_FLOOR 256                      /* units the end of stderr always gets */
#define MIN_LINECAP 256                       /* bytes of one line kept, at least */
#define ANSI_MAX 4096                         /* longest escape we swallow, in code points */
#define ENTRY_SPECIAL 0x80000000u             /* ring entry header flag */
#define FOLD_MIN 4                            /* runs this long or longer are folded */
#define ELLIPSIS "\xe2\x80\xa6"               /* U+2026 */

typedef struct sbuf {
        char *p;
        size_t len, cap;
} sbuf;

/* The line being assembled. */
typedef struct line {
        sbuf text;       /* cleaned content, at most linecap bytes kept */
        uint64_t len;    /* cleaned bytes, including those not kept */
        uint64_t units;  /* units of all of it */
        uint64_t xhash;  /* hash of the bytes beyond linecap */
        uint64_t raw;    /* bytes the program wrote for this line so far */
} line;

/* Ring entry header for entries that are not a plain line (fold, cleaned, cut). */
typedef struct entry_extra {
        uint64_t raw;    /* bytes the program wrote for it */
        uint64_t lines;  /* lines it stands for */
        uint64_t units;  /* units of all those lines, had they been shown */
} entry_extra;

enum { A_NORMAL, A_ESC, A_ESC_INTER, A_CSI, A_STRING, A_STRING_ESC };

typedef struct stream {
        /* UTF-8 decoder */
        uint32_t cp;
        int need;
        uint8_t lo, hi;
        /* ANSI escapes */
        int ansi;
        unsigned ansi_len;
        bool pending_cr;
        line cur;
        /* live head */
        bool live;         /* every byte so far went to the terminal */
        bool head_cut;     /* the head ends inside a line */
        bool skip_line;    /* dropping the rest of the line cut at the head */
        sbuf head;
        uint64_t head_units, head_lines;
        size_t head_last_off; /* last complete line in head (without "\n") */
        size_t head_last_len;
        bool head_has_last;
        unsigned head_run;    /* how many identical lines end the head */
        /* folder: the current run of identical lines */
        bool have_prev;
        line prev;         /* its text (raw = sum over the run) */
        bool prev_nl;
        uint64_t run, shown; /* lines in the run; of those already in the head */
        /* tail ring: entries [ring_start, ring.len) */
        sbuf ring;
        size_t ring_start;
        uint64_t ring_units, ring_entries;
        /* counters */
        uint64_t bytes, total_units;
        uint64_t om_lines, om_bytes, om_units;
        /* results */
        char *epi;
        size_t epi_len;
} stream;

struct acs_shield {
        uint64_t budget;   /* units */
        uint64_t head_max; /* units, both streams' heads together */
        uint64_t grace;    /* a line that began live may finish past head_max by this */
        size_t linecap;
        bool strip_ansi;
        bool finished;
        stream st[2];
};

/* ---- small buffers ---------------------------------------------------- */

static bool sbuf_reserve(sbuf *b, size_t extra)
{
        if (b->len + extra <= b->cap)
                return true;
        size_t n = b->cap ? b->cap : 64;
        while (n < b->len + extra)
                n *= 2;
        char *p = realloc(b->p, n);
        if (!p)
                return false;
        b->p = p;
        b->cap = n;
        return true;
}

static bool sbuf_add(sbuf *b, const void *d, size_t n)
{
        if (n == 0)
                return true;
        if (!sbuf_reserve(b, n))
                return false;
        memcpy(b->p + b->len, d, n);
        b->len += n;
        return true;
}

static void sbuf_free(sbuf *b)
{
        free(b->p);
        *b = (sbuf){};
}

/* ---- token estimate --------------------------------------------------- */

static inline unsigned byte_units(unsigned char c)
{
        /* ASCII 1; a UTF-8 lead byte stands for one code point = one token */
        return c < 0x80 ? 1 : c >= 0xC0 ? UNITS_PER_TOKEN : 0;
}

uint64_t acs_estimate_units(const char *buf, size_t len)
{
        uint64_t u = 0;
        for (size_t i = 0; i < len; i++)
                u += byte_units((unsigned char)buf[i]);
        return u;
}

static inline uint64_t units_to_tokens(uint64_t u)
{
        return (u + UNITS_PER_TOKEN - 1) / UNITS_PER_TOKEN;
}

uint64_t acs_estimate_tokens(const char *buf, size_t len)
{
        return units_to_tokens(acs_estimate_units(buf, len));
}

/* Longest prefix of valid UTF-8 text s[0..len) whose units fit in max. */
static size_t prefix_within(const char *s, size_t len, uint64_t max)
{
        uint64_t u = 0;
        size_t i = 0;
        while (i < len) {
                size_t j = i + 1;
                while (j < len && ((unsigned char)s[j] & 0xC0) == 0x80)
                        j++;
                u += byte_units((unsigned char)s[i]);
                if (u > max)
                        break;
                i = j;
        }
        return i;
}

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
        /* units >= bytes for valid UTF-8, so a line longer than the budget
         * in bytes could never be shown whole anyway */
        s->linecap = s->budget > MIN_LINECAP ? s->budget : MIN_LINECAP;
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
                sbuf_free(&t->cur.text);
                sbuf_free(&t->prev.text);
                sbuf_free(&t->head);
                sbuf_free(&t->ring);
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

static inline uint64_t head_used(const acs_shield *s)
{
        return s->st[0].head_units + s->st[1].head_units;
}

/* ---- the tail ring ---------------------------------------------------- */

/*
 * Entry layout: uint32 text length | ENTRY_SPECIAL, uint32 units of the
 * text, [entry_extra when special], text. A plain entry is one line shown
 * as written: raw bytes = text length, units = its units.
 */
typedef struct entry_head {
        uint32_t len;
        uint32_t units;
} entry_head;

static size_t entry_size(const sbuf *r, size_t off, size_t *ret_text_off, uint32_t *ret_len,
                         uint32_t *ret_units, entry_extra *ret_x)
{
        entry_head h;
        memcpy(&h, r->p + off, sizeof h);
        size_t t = off + sizeof h;
        uint32_t n = h.len & ~ENTRY_SPECIAL;
        entry_extra x = { n, 1, h.units };
        if (h.len & ENTRY_SPECIAL) {
                memcpy(&x, r->p + t, sizeof x);
                t += sizeof x;
        }
        *ret_text_off = t;
        *ret_len = n;
        *ret_units = h.units;
        if (ret_x)
                *ret_x = x;
        return t + n - off;
}

static void ring_drop_oldest(stream *t)
{
        size_t toff;
        uint32_t n, u;
        entry_extra x;
        t->ring_start += entry_size(&t->ring, t->ring_start, &toff, &n, &u, &x);
        t->ring_units -= u;
        t->ring_entries--;
        t->om_lines += x.lines;
        t->om_bytes += x.raw;
        t->om_units += x.units;
}

/* Keep only what the budget could still show (but at least the stderr floor). */
static void ring_trim(acs_shield *s, stream *t)
{
        uint64_t avail = s->budget > head_used(s) ? s->budget - head_used(s) : 0;
        uint64_t keep = avail > STDERR_FLOOR ? avail : STDERR_FLOOR;
        while (t->ring_entries > 1) {
                size_t toff;
                uint32_t n, u;
                entry_size(&t->ring, t->ring_start, &toff, &n, &u, NULL);
                if (t->ring_units - u < keep)
                        break;
                ring_drop_oldest(t);
        }
        /* compact: the live part never exceeds about twice the budget */
        if (t->ring_start > 4096 && t->ring_start > t->ring.len / 2) {
                memmove(t->ring.p, t->ring.p + t->ring_start, t->ring.len - t->ring_start);
                t->ring.len -= t->ring_start;
                t->ring_start = 0;
        }
}

/* Append an entry: pieces of text, and what it stands for. */
static void ring_push(acs_shield *s, stream *t, const char *a, size_t alen, const char *b,
                      size_t blen, const entry_extra *x)
{
        size_t n = alen + blen;
        uint64_t units = acs_estimate_units(a, alen) + acs_estimate_units(b, blen);
        bool special = x->lines != 1 || x->raw != n || x->units != units;
        entry_head h = { (uint32_t)n | (special ? ENTRY_SPECIAL : 0), (uint32_t)units };

        if (n >= ENTRY_SPECIAL || units > UINT32_MAX ||
            !sbuf_reserve(&t->ring, sizeof h + sizeof *x + n)) {
                t->om_lines += x->lines;
                t->om_bytes += x->raw;
                t->om_units += x->units;
                return;
        }
        sbuf_add(&t->ring, &h, sizeof h);
        if (special)
                sbuf_add(&t->ring, x, sizeof *x);
        sbuf_add(&t->ring, a, alen);
        sbuf_add(&t->ring, b, blen);
        t->ring_units += units;
        t->ring_entries++;
        ring_trim(s, t);
}

/* ---- the folder ------------------------------------------------------- */

static void fmt_count(char *out, size_t size, uint64_t v)
{
        char digits[32];
        int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
        size_t o = 0;
        for (int i = 0; i < n && o + 2 < size; i++) {
                if (i > 0 && (n - i) % 3 == 0)
                        out[o++] = ',';
                out[o++] = digits[i];
        }
        out[o] = '\0';
}

/* The text of a line as stored: kept bytes, a cut mark, its newline. */
static void line_display(const line *l, bool nl, sbuf *out)
{
        out->len = 0;
        sbuf_add(out, l->text.p, l->text.len);
        if (l->len > l->text.len)
                sbuf_add(out, ELLIPSIS, strlen(ELLIPSIS));
        if (nl)
                sbuf_add(out, "\n", 1);
}

/* Emit the folder's run into the ring. */
static void fold_flush(acs_shield *s, stream *t)
{
        if (!t->have_prev)
                return;
        t->have_prev = false;
        uint64_t todo = t->run - t->shown;
        if (todo == 0)
                return;
        /* prev.raw sums the lines not yet shown; they are equal, so share it */
        uint64_t raw1 = t->prev.raw / todo;
        uint64_t u1 = t->prev.units + (t->prev_nl ? 1 : 0);
        _cleanup_(sbuf_free) sbuf d = {};
        const char *a = t->prev.text.p, *b = t->prev_nl ? "\n" : NULL;
        size_t alen = t->prev.text.len, blen = t->prev_nl;
        if (t->prev.len > t->prev.text.len) {
                /* a line cut at linecap: show where */
                line_display(&t->prev, t->prev_nl, &d);
                a = d.p;
                alen = d.len;
                b = NULL;
                blen = 0;
        }
        if (!a && alen) {
                t->om_lines += todo;
                t->om_bytes += t->prev.raw;
                t->om_units += u1 * todo;
                return;
        }
        /* copies still to show before the fold line */
        uint64_t copies = t->shown >= 2 ? 0 : 2 - t->shown;
        if (t->run < FOLD_MIN || todo < copies + 2)
                copies = todo; /* a fold line would not be shorter */
        for (uint64_t i = 0; i < copies; i++) {
                entry_extra x = { raw1, 1, u1 };
                ring_push(s, t, a, alen, b, blen, &x);
        }
        uint64_t folded = todo - copies;
        if (folded == 0)
                return;
        char num[40], msg[96];
        fmt_count(num, sizeof num, folded);
        int n = snprintf(msg, sizeof msg, ELLIPSIS " repeated %s more times\n", num);
        entry_extra x = { t->prev.raw - raw1 * copies, folded, u1 * folded };
        ring_push(s, t, msg, (size_t)n, NULL, 0, &x);
}

static bool line_equal(const line *a, bool anl, const line *b, bool bnl)
{
        return anl == bnl && a->len == b->len && a->xhash == b->xhash &&
               a->text.len == b->text.len && memcmp(a->text.p, b->text.p, a->text.len) == 0;
}

static bool line_copy(line *dst, const line *src)
{
        dst->text.len = 0;
        if (!sbuf_add(&dst->text, src->text.p, src->text.len))
                return false;
        dst->len = src->len;
        dst->units = src->units;
        dst->xhash = src->xhash;
        dst->raw = src->raw;
        return true;
}

/* A complete line after the head: into the folder (and so the ring). */
static void fold_push(acs_shield *s, stream *t, bool nl)
{
        line *l = &t->cur;
        if (t->have_prev && line_equal(&t->prev, t->prev_nl, l, nl)) {
                t->run++;
                t->prev.raw += l->raw;
                return;
        }
        fold_flush(s, t);
        if (!line_copy(&t->prev, l)) {
                t->om_lines++;
                t->om_bytes += l->raw;
                t->om_units += l->units + (nl ? 1 : 0);
                return;
        }
        t->have_prev = true;
        t->prev_nl = nl;
        t->run = 1;
        t->shown = 0;
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
        if (!sbuf_add(&p->text, t->head.p + t->head_last_off, t->head_last_len))
                return;
        p->len = t->head_last_len;
        p->units = acs_estimate_units(p->text.p, p->text.len);
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
}

/* Feed context: where we are in the caller's chunk. */
typedef struct chunk {
        size_t off;        /* offset of the byte being processed */
        size_t cp_off;     /* offset where the current code point began */
        ssize_t line_off;  /* offset where the current line began, -1: earlier chunk */
        size_t live_end;   /* result of feed */
} chunk;

static void line_append_cp(acs_shield *s, stream *t, uint32_t cp, chunk *c);

static void line_complete(acs_shield *s, stream *t, bool nl, chunk *c)
{
        line *l = &t->cur;
        uint64_t u = l->units + (nl ? 1 : 0);
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
                bool repeat = t->head_has_last && nl && l->len == t->head_last_len &&
                              l->text.len == l->len &&
                              memcmp(l->text.p, t->head.p + t->head_last_off, l->len) == 0;
                if (repeat && here && t->head_run >= 2) {
                        /* a run starts: fold it instead of streaming it */
                        c->live_end = (size_t)c->line_off;
                        head_close(s, t);
                } else if (sbuf_reserve(&t->head, l->text.len + 1)) {
                        t->head_last_off = t->head.len;
                        t->head_last_len = l->text.len;
                        t->head_run = repeat ? t->head_run + 1 : 1;
                        t->head_has_last = nl && l->text.len == l->len;
                        sbuf_add(&t->head, l->text.p, l->text.len);
                        if (nl)
                                sbuf_add(&t->head, "\n", 1);
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
        fold_push(s, t, nl);
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
        if (sbuf_add(&t->head, l->text.p, l->text.len))
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
        unsigned u = cp < 0x80 ? 1 : UNITS_PER_TOKEN;
        line *l = &t->cur;
        if (t->live && !t->skip_line && c) {
                /* + 1: the line's newline must fit too */
                uint64_t want = head_used(s) + l->units + u + 1;
                if (c->line_off >= 0 && l->len == 0 && t->head_run >= 2 &&
                    t->head_last_len > 0 && (char)cp == t->head.p[t->head_last_off]) {
                        /* maybe a run of identical lines starts: hold it
                         * back so it can fold (if not, it is just shown at
                         * the end instead of live) */
                        c->live_end = (size_t)c->line_off;
                        head_close(s, t);
                } else if (want > s->head_max &&
                           (c->line_off >= 0 || want > s->head_max + s->grace))
                        head_overflow(s, t, c);
        }
        if (t->skip_line) {
                l->units += u;
                l->len += n;
                return;
        }
        if (l->text.len + n <= s->linecap && l->len == l->text.len) {
                sbuf_add(&l->text, enc, n);
        } else {
                for (size_t i = 0; i < n; i++)
                        l->xhash = (l->xhash ^ (unsigned char)enc[i]) * UINT64_C(0x100000001b3);
        }
        l->len += n;
        l->units += u;
}

/* ---- escapes, carriage returns, UTF-8 --------------------------------- */

/* Returns true when cp belongs to an escape sequence being dropped. */
static bool ansi_eat(stream *t, uint32_t cp)
{
        if (t->ansi != A_NORMAL && ++t->ansi_len > ANSI_MAX) {
                t->ansi = A_NORMAL; /* not an escape after all: let the text through */
                return false;
        }
        switch (t->ansi) {
        case A_NORMAL:
                t->ansi_len = 0;
                if (cp == 0x1B)
                        t->ansi = A_ESC;
                else if (cp == 0x9B)
                        t->ansi = A_CSI;
                else if (cp == 0x90 || cp == 0x9D || cp == 0x98 || cp == 0x9E || cp == 0x9F)
                        t->ansi = A_STRING;
                else
                        return false;
                return true;
        case A_STRING_ESC:
                if (cp == '\\') {
                        t->ansi = A_NORMAL;
                        return true;
                }
                t->ansi = A_ESC;
                __attribute__((fallthrough));
        case A_ESC:
                if (cp == '[')
                        t->ansi = A_CSI;
                else if (cp == ']' || cp == 'P' || cp == 'X' || cp == '^' || cp == '_')
                        t->ansi = A_STRING;
                else if (cp >= 0x20 && cp <= 0x2F)
                        t->ansi = A_ESC_INTER;
                else if (cp >= 0x30 && cp <= 0x7E)
                        t->ansi = A_NORMAL;
                else
                        break;
                return true;
        case A_ESC_INTER:
                if (cp >= 0x20 && cp <= 0x2F)
                        return true;
                if (cp >= 0x30 && cp <= 0x7E) {
                        t->ansi = A_NORMAL;
                        return true;
                }
                break;
        case A_CSI:
                if (cp >= 0x20 && cp <= 0x3F)
                        return true;
                if (cp >= 0x40 && cp <= 0x7E) {
                        t->ansi = A_NORMAL;
                        return true;
                }
                break;
        case A_STRING:
                if (cp == 0x07 || cp == 0x9C) {
                        t->ansi = A_NORMAL;
                        return true;
                }
                if (cp == 0x1B) {
                        t->ansi = A_STRING_ESC;
                        return true;
                }
                if (cp != '\n')
                        return true;
                break; /* a title never spans lines: this was garbage */
        }
        /* malformed: drop what we had, give cp to the text */
        t->ansi = A_NORMAL;
        return ansi_eat(t, cp);
}

static void cp_in(acs_shield *s, stream *t, uint32_t cp, chunk *c)
{
        if (s->strip_ansi && ansi_eat(t, cp))
                return;
        if (t->pending_cr) {
                t->pending_cr = false;
                if (cp != '\n') {
                        /* "\r" not followed by "\n": the line starts over
                         * (keep raw: those bytes were still written) */
                        t->cur.text.len = 0;
                        t->cur.len = t->cur.units = t->cur.xhash = 0;
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
                if (!sbuf_add(&l->text, p, keep))
                        keep = 0;
        }
        for (size_t i = keep; i < n; i++)
                l->xhash = (l->xhash ^ (unsigned char)p[i]) * UINT64_C(0x100000001b3);
        l->len += n;
        l->units += n;
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
                if (!t->live && !t->need && t->ansi == A_NORMAL && !t->pending_cr &&
                    !t->skip_line) {
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

/* ---- finish ----------------------------------------------------------- */

static void stream_flush(acs_shield *s, stream *t)
{
        if (t->need) {
                t->need = 0;
                cp_in(s, t, 0xFFFD, NULL);
        }
        t->ansi = A_NORMAL;
        t->pending_cr = false; /* a bar's last state stays */
        if (t->cur.len > 0 || t->skip_line)
                line_complete(s, t, false, NULL);
        fold_flush(s, t);
}

/* Split what is left of the budget between the tails; stderr first gets
 * half (or what it needs, if less), stdout then takes what it needs. */
static void allocate(uint64_t avail, const uint64_t need[2], uint64_t a[2])
{
        uint64_t g = need[ACS_STDERR] < (avail + 1) / 2 ? need[ACS_STDERR] : (avail + 1) / 2;
        a[ACS_STDOUT] = need[ACS_STDOUT] < avail - g ? need[ACS_STDOUT] : avail - g;
        a[ACS_STDERR] = need[ACS_STDERR] < avail - a[ACS_STDOUT] ? need[ACS_STDERR]
                                                                  : avail - a[ACS_STDOUT];
}

/* Drop ring entries until the rest fits in `alloc` units; cut the last one if need be. */
static void select_tail(stream *t, uint64_t alloc, sbuf *out)
{
        while (t->ring_entries > 1 && t->ring_units > alloc)
                ring_drop_oldest(t);
        if (t->ring_entries == 1 && t->ring_units > alloc && alloc < 8)
                ring_drop_oldest(t);
        for (size_t off = t->ring_start; off < t->ring.len;) {
                size_t toff;
                uint32_t n, u;
                off += entry_size(&t->ring, off, &toff, &n, &u, NULL);
                const char *txt = t->ring.p + toff;
                if (u <= alloc) {
                        sbuf_add(out, txt, n);
                        continue;
                }
                /* one line bigger than the whole allocation: its beginning */
                bool nl = n > 0 && txt[n - 1] == '\n';
                size_t k = prefix_within(txt, n - nl, alloc - UNITS_PER_TOKEN - 1);
                sbuf_add(out, txt, k);
                sbuf_add(out, ELLIPSIS "\n", strlen(ELLIPSIS) + 1);
                t->om_bytes += n - k;
                t->om_units += u - acs_estimate_units(txt, k);
        }
}

static bool stream_clipped(const stream *t)
{
        return t->om_lines || t->om_bytes || t->om_units || t->head_cut;
}

static int build_text(stream *t, uint64_t alloc, acs_stream_result *r)
{
        _cleanup_(sbuf_free) sbuf tail = {};
        _cleanup_(sbuf_free) sbuf out = {};
        select_tail(t, alloc, &tail);
        bool clipped = stream_clipped(t);

        if (!sbuf_reserve(&out, t->head.len + tail.len + 160))
                return -ENOMEM;
        sbuf_add(&out, t->head.p, t->head.len);
        size_t head_len = out.len;
        if (t->head_cut)
                sbuf_add(&out, "\n", 1);
        if (clipped) {
                char l[40], b[40], k[40], m[200];
                fmt_count(l, sizeof l, t->om_lines);
                fmt_count(b, sizeof b, t->om_bytes);
                fmt_count(k, sizeof k, units_to_tokens(t->om_units));
                int n = snprintf(m, sizeof m,
                                 ELLIPSIS " [omitted %s line%s, %s byte%s, ~%s token%s] " ELLIPSIS "\n",
                                 l, t->om_lines == 1 ? "" : "s", b, t->om_bytes == 1 ? "" : "s",
                                 k, units_to_tokens(t->om_units) == 1 ? "" : "s");
                sbuf_add(&out, m, (size_t)n);
        }
        if (!sbuf_add(&out, tail.p, tail.len) || !sbuf_add(&out, "", 1))
                return -ENOMEM;
        out.len--; /* NUL-terminated for convenience, not counted */

        if (!t->live && out.len > head_len) {
                t->epi = malloc(out.len - head_len + 1);
                if (!t->epi)
                        return -ENOMEM;
                memcpy(t->epi, out.p + head_len, out.len - head_len + 1);
                t->epi_len = out.len - head_len;
        }
        if (r) {
                free(r->text);
                *r = (acs_stream_result){
                        .text_len = out.len,
                        .bytes = t->bytes,
                        .tokens = units_to_tokens(t->total_units),
                        .truncated = clipped,
                        .omitted_bytes = t->om_bytes,
                        .omitted_lines = t->om_lines,
                        .omitted_tokens = units_to_tokens(t->om_units),
                };
                r->text = TAKE_PTR(out.p);
        }
        return 0;
}

int acs_shield_finish(acs_shield *s, acs_stream_result *ret_out, acs_stream_result *ret_err)
{
        if (s->finished)
                return -EALREADY;
        s->finished = true;
        for (int i = 0; i < 2; i++)
                stream_flush(s, &s->st[i]);

        uint64_t used = head_used(s);
        uint64_t avail = s->budget > used ? s->budget - used : 0;
        uint64_t need[2] = { s->st[0].ring_units, s->st[1].ring_units }, a[2];
        allocate(avail, need, a);
        unsigned nclip = 0;
        for (int i = 0; i < 2; i++)
                nclip += stream_clipped(&s->st[i]) || need[i] > a[i];
        if (nclip) {
                uint64_t r = (uint64_t)nclip * MARKER_RESERVE;
                allocate(avail > r ? avail - r : 0, need, a);
        }
        /* the end of stderr survives whatever the budget */
        uint64_t floor = need[ACS_STDERR] < STDERR_FLOOR ? need[ACS_STDERR] : STDERR_FLOOR;
        if (a[ACS_STDERR] < floor)
                a[ACS_STDERR] = floor;

        int r = build_text(&s->st[ACS_STDOUT], a[ACS_STDOUT], ret_out);
        int r2 = build_text(&s->st[ACS_STDERR], a[ACS_STDERR], ret_err);
        return r < 0 ? r : r2;
}

char *acs_shield_epilogue(acs_shield *s, int stream_id, size_t *ret_len)
{
        if (ret_len)
                *ret_len = 0;
        if (!s || !s->finished || (stream_id != ACS_STDOUT && stream_id != ACS_STDERR))
                return NULL;
        stream *t = &s->st[stream_id];
        if (!t->epi)
                return NULL;
        char *e = malloc(t->epi_len + 1);
        if (!e)
                return NULL;
        memcpy(e, t->epi, t->epi_len + 1);
        if (ret_len)
                *ret_len = t->epi_len;
        return e;
}
