/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The token shield after the head: runs of identical lines fold, complete
 * lines go to a ring that keeps only what the budget could still show (what
 * falls out is counted, never stored), and at the end the budget left is
 * split between the two tails and the texts are built.
 */
#include <stdio.h>
#include <string.h>

#include "clip-internal.h"

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

static size_t entry_size(const acs_strbuf *r, size_t off, size_t *ret_text_off, uint32_t *ret_len,
                         uint32_t *ret_units, entry_extra *ret_x)
{
        entry_head h;
        memcpy(&h, r->p + off, sizeof h);
        size_t t = off + sizeof h;
        uint32_t n = h.len & ~ENTRY_SPECIAL;
        entry_extra x = {n, 1, h.units};
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

/* Append an entry: pieces of text, their units if known (else UINT64_MAX),
 * and what it stands for. */
static void ring_push(acs_shield *s, stream *t, const char *a, size_t alen, const char *b, size_t blen,
                      uint64_t units, const entry_extra *x)
{
        size_t n = alen + blen;
        if (units == UINT64_MAX) {
                acs_tok tok = {};
                units = acs_tok_units(&tok, a, alen);
                units += acs_tok_units(&tok, b, blen);
        }
        bool special = x->lines != 1 || x->raw != n || x->units != units;
        entry_head h = {(uint32_t)n | (special ? ENTRY_SPECIAL : 0), (uint32_t)units};

        if (n >= ENTRY_SPECIAL || units > UINT32_MAX ||
            acs_strbuf_reserve(&t->ring, sizeof h + sizeof *x + n) < 0) {
                t->om_lines += x->lines;
                t->om_bytes += x->raw;
                t->om_units += x->units;
                return;
        }
        acs_strbuf_add(&t->ring, &h, sizeof h);
        if (special)
                acs_strbuf_add(&t->ring, x, sizeof *x);
        acs_strbuf_add(&t->ring, a, alen);
        acs_strbuf_add(&t->ring, b, blen);
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
/* Longest prefix of valid UTF-8 text s[0..len) whose units fit in max. */
static size_t prefix_within(const char *s, size_t len, uint64_t max)
{
        acs_tok tok = {};
        uint64_t u = 0;
        size_t i = 0;
        while (i < len) {
                size_t j = i + 1;
                while (j < len && ((unsigned char)s[j] & 0xC0) == 0x80)
                        j++;
                u += acs_tok_units(&tok, s + i, j - i);
                if (u > max)
                        break;
                i = j;
        }
        return i;
}
/* The text of a line as stored: kept bytes, a cut mark, its newline. */
static void line_display(const line *l, bool nl, acs_strbuf *out)
{
        out->len = 0;
        acs_strbuf_add(out, l->text.p, l->text.len);
        if (l->len > l->text.len)
                acs_strbuf_add(out, ELLIPSIS, strlen(ELLIPSIS));
        if (nl)
                acs_strbuf_add(out, "\n", 1);
}

/* Emit the folder's run into the ring. */
void acs_clip_fold_flush(acs_shield *s, stream *t)
{
        if (!t->have_prev)
                return;
        t->have_prev = false;
        uint64_t todo = t->run - t->shown;
        if (todo == 0)
                return;
        /* prev.raw sums the lines not yet shown; they are equal, so share it */
        uint64_t raw1 = t->prev.raw / todo;
        uint64_t u1 = t->prev.units + (t->prev_nl ? acs_clip_nl_units(&t->prev) : 0);
        _cleanup_strbuf_ acs_strbuf d = {};
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
        /* a line kept whole is the text its units were counted on */
        uint64_t known = t->prev.len == t->prev.text.len ? u1 : UINT64_MAX;
        for (uint64_t i = 0; i < copies; i++) {
                entry_extra x = {raw1, 1, u1};
                ring_push(s, t, a, alen, b, blen, known, &x);
        }
        uint64_t folded = todo - copies;
        if (folded == 0)
                return;
        char num[40], msg[96];
        fmt_count(num, sizeof num, folded);
        int n = snprintf(msg, sizeof msg, ELLIPSIS " repeated %s more times\n", num);
        entry_extra x = {t->prev.raw - raw1 * copies, folded, u1 * folded};
        ring_push(s, t, msg, (size_t)n, NULL, 0, UINT64_MAX, &x);
}

static bool line_equal(const line *a, bool anl, const line *b, bool bnl)
{
        return anl == bnl && a->len == b->len && a->xhash == b->xhash && a->text.len == b->text.len &&
               (a->text.len == 0 || memcmp(a->text.p, b->text.p, a->text.len) == 0);
}

static bool line_copy(line *dst, const line *src)
{
        dst->text.len = 0;
        if (acs_strbuf_add(&dst->text, src->text.p, src->text.len) < 0)
                return false;
        dst->len = src->len;
        dst->units = src->units;
        dst->tok = src->tok;
        dst->xhash = src->xhash;
        dst->raw = src->raw;
        return true;
}

/* A complete line after the head: into the folder (and so the ring). */
void acs_clip_fold_push(acs_shield *s, stream *t, bool nl)
{
        line *l = &t->cur;
        if (t->have_prev && line_equal(&t->prev, t->prev_nl, l, nl)) {
                t->run++;
                t->prev.raw += l->raw;
                return;
        }
        acs_clip_fold_flush(s, t);
        if (!line_copy(&t->prev, l)) {
                t->om_lines++;
                t->om_bytes += l->raw;
                t->om_units += l->units + (nl ? acs_clip_nl_units(l) : 0);
                return;
        }
        t->have_prev = true;
        t->prev_nl = nl;
        t->run = 1;
        t->shown = 0;
}
/* ---- finish ----------------------------------------------------------- */

/* Split what is left of the budget between the tails; stderr first gets
 * half (or what it needs, if less), stdout then takes what it needs. */
static void allocate(uint64_t avail, const uint64_t need[2], uint64_t a[2])
{
        uint64_t g = need[ACS_STDERR] < (avail + 1) / 2 ? need[ACS_STDERR] : (avail + 1) / 2;
        a[ACS_STDOUT] = need[ACS_STDOUT] < avail - g ? need[ACS_STDOUT] : avail - g;
        a[ACS_STDERR] = need[ACS_STDERR] < avail - a[ACS_STDOUT] ? need[ACS_STDERR] : avail - a[ACS_STDOUT];
}

/* Drop ring entries until the rest fits in `alloc` units; cut the last one if need be. */
static void select_tail(stream *t, uint64_t alloc, acs_strbuf *out)
{
        while (t->ring_entries > 1 && t->ring_units > alloc)
                ring_drop_oldest(t);
        /* room for a beginning, "…" and "\n" */
        if (t->ring_entries == 1 && t->ring_units > alloc && alloc < 3 * UNITS_PER_TOKEN)
                ring_drop_oldest(t);
        for (size_t off = t->ring_start; off < t->ring.len;) {
                size_t toff;
                uint32_t n, u;
                off += entry_size(&t->ring, off, &toff, &n, &u, NULL);
                const char *txt = t->ring.p + toff;
                if (u <= alloc) {
                        acs_strbuf_add(out, txt, n);
                        continue;
                }
                /* one line bigger than the whole allocation: its beginning */
                bool nl = n > 0 && txt[n - 1] == '\n';
                size_t k = prefix_within(txt, n - nl, alloc - 2 * UNITS_PER_TOKEN);
                acs_strbuf_add(out, txt, k);
                acs_strbuf_add(out, ELLIPSIS "\n", strlen(ELLIPSIS) + 1);
                t->om_bytes += n - k;
                t->om_units += u - acs_estimate_units(txt, k);
        }
}

/* The line that says what was omitted; returns its length. */
static size_t marker(char *m, size_t size, uint64_t lines, uint64_t bytes, uint64_t tokens)
{
        char l[40], b[40], k[40];
        fmt_count(l, sizeof l, lines);
        fmt_count(b, sizeof b, bytes);
        fmt_count(k, sizeof k, tokens);
        int n = snprintf(m, size, ELLIPSIS " [omitted %s line%s, %s byte%s, ~%s token%s] " ELLIPSIS "\n", l,
                         lines == 1 ? "" : "s", b, bytes == 1 ? "" : "s", k, tokens == 1 ? "" : "s");
        return n > 0 && (size_t)n < size ? (size_t)n : 0;
}

/* Units the marker of stream t can cost at most: its numbers only grow up
 * to what the stream holds (more digits never cost less). */
static uint64_t marker_reserve(const stream *t)
{
        char m[200];
        size_t n = marker(m, sizeof m, t->bytes + 1, t->bytes, units_to_tokens(t->total_units));
        return acs_estimate_units(m, n);
}

static bool stream_clipped(const stream *t)
{
        return t->om_lines || t->om_bytes || t->om_units || t->head_cut;
}

static int build_text(stream *t, uint64_t alloc, acs_stream_result *r)
{
        _cleanup_strbuf_ acs_strbuf tail = {};
        _cleanup_strbuf_ acs_strbuf out = {};
        select_tail(t, alloc, &tail);
        bool clipped = stream_clipped(t);

        if (acs_strbuf_reserve(&out, t->head.len + tail.len + 160) < 0)
                return -ENOMEM;
        acs_strbuf_add(&out, t->head.p, t->head.len);
        size_t head_len = out.len;
        if (t->head_cut)
                acs_strbuf_add(&out, "\n", 1);
        if (clipped) {
                char m[200];
                size_t n = marker(m, sizeof m, t->om_lines, t->om_bytes, units_to_tokens(t->om_units));
                acs_strbuf_add(&out, m, n);
        }
        if (acs_strbuf_add(&out, tail.p, tail.len) < 0) /* NUL-terminated: reserved above */
                return -ENOMEM;

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

int acs_clip_build(acs_shield *s, acs_stream_result *ret_out, acs_stream_result *ret_err)
{
        uint64_t used = head_used(s);
        uint64_t avail = s->budget > used ? s->budget - used : 0;
        uint64_t need[2] = {s->st[0].ring_units, s->st[1].ring_units}, a[2];
        allocate(avail, need, a);
        uint64_t reserve = 0;
        for (int i = 0; i < 2; i++)
                if (stream_clipped(&s->st[i]) || need[i] > a[i])
                        reserve += marker_reserve(&s->st[i]);
        uint64_t left = avail > reserve ? avail - reserve : 0;
        if (reserve)
                allocate(left, need, a);
        /* the end of stderr survives whatever the budget (stdout gives way
         * first, so the budget only overruns when the floor alone does) */
        uint64_t floor = need[ACS_STDERR] < STDERR_FLOOR ? need[ACS_STDERR] : STDERR_FLOOR;
        if (a[ACS_STDERR] < floor)
                a[ACS_STDERR] = floor;
        if (a[ACS_STDOUT] + a[ACS_STDERR] > left)
                a[ACS_STDOUT] = left > a[ACS_STDERR] ? left - a[ACS_STDERR] : 0;

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
