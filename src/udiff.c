/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One file's git patch body, in process (see udiff.h). The patch used to be
 * made by libgit2, which the static acs-launch cannot load: every --json run
 * that changed a file exec'ed acs-launch-full, which loaded libgit2 (whose
 * initialisation parses the system's CA bundle), and --json cost ~1.8x a
 * plain run. What a patch needs is small: a line diff and git's binary
 * literal format; both are here, and bench/json-patch.sh measures the rest.
 */
#include <stdio.h>
#include <string.h>

#include "udiff.h"

bool acs_udiff_is_binary(const char *buf, size_t len)
{
        return memchr(buf, '\0', len < 8000 ? len : 8000) != NULL;
}

/* ---- lines and the edit script ---------------------------------------- */

typedef struct line {
        const char *p;
        size_t n; /* with its '\n', if it has one */
        uint64_t h;
} line;

static uint64_t hash(const char *p, size_t n)
{
        uint64_t h = 1469598103934665603ull; /* FNV-1a */

        for (size_t i = 0; i < n; i++)
                h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
        return h;
}

static int split(const char *s, size_t len, line **ret, size_t *ret_n)
{
        size_t n = 0, k = 0;
        line *v;

        for (size_t i = 0; i < len; i++)
                n += s[i] == '\n';
        n += len > 0 && s[len - 1] != '\n';
        v = calloc(n ? n : 1, sizeof *v);
        if (!v)
                return -ENOMEM;
        for (size_t at = 0; at < len; k++) {
                const char *nl = memchr(s + at, '\n', len - at);
                size_t end = nl ? (size_t)(nl - s) + 1 : len;

                v[k] = (line){ s + at, end - at, hash(s + at, end - at) };
                at = end;
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

static bool same(const line *x, const line *y)
{
        return x->h == y->h && x->n == y->n && memcmp(x->p, y->p, x->n) == 0;
}

/* One step of the script: 'E' keeps a[ai] (= b[bi]), 'D' drops a[ai], 'I' inserts b[bi]. */
typedef struct op {
        char kind;
        size_t ai, bi;
} op;

typedef struct script {
        op *v;
        size_t n, cap;
} script;

static int push(script *s, char kind, size_t ai, size_t bi)
{
        if (s->n == s->cap) {
                size_t cap = s->cap ? 2 * s->cap : 64;
                op *v = realloc(s->v, cap * sizeof *v);

                if (!v)
                        return -ENOMEM;
                s->v = v;
                s->cap = cap;
        }
        s->v[s->n++] = (op){ kind, ai, bi };
        return 0;
}

/*
 * Myers's greedy forward search over a[0..n) x b[0..m) (offsets a0, b0 into
 * the whole files), keeping each round's frontier to walk back the path.
 * Appends the middle's ops to s in order; *ret_found false when the script
 * would need more than ACS_UDIFF_MAX_EDITS edits (nothing appended).
 */
static int myers(const line *a, size_t n, const line *b, size_t m, size_t a0, size_t b0, script *s,
                 bool *ret_found)
{
        long maxd = n + m < ACS_UDIFF_MAX_EDITS ? (long)(n + m) : ACS_UDIFF_MAX_EDITS, off = maxd + 1, d,
             found = -1;
        _cleanup_free_ long *v = calloc((size_t)(2 * maxd + 3), sizeof *v);
        _cleanup_free_ long *trace = calloc((size_t)((maxd + 1) * (maxd + 1)), sizeof *trace);
        _cleanup_free_ op *rev = NULL;
        size_t nrev = 0;

        if (!v || !trace)
                return -ENOMEM;
        for (d = 0; d <= maxd && found < 0; d++) {
                /* round d's frontier before it moves: v[k] for k in [-d, d], (d * d) onwards */
                memcpy(trace + d * d, v + off - d, (size_t)(2 * d + 1) * sizeof *v);
                for (long k = -d; k <= d; k += 2) {
                        long x = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1]
                                                                                       : v[off + k - 1] + 1;
                        long y = x - k;

                        while (x < (long)n && y < (long)m && same(&a[x], &b[y]))
                                x++, y++;
                        v[off + k] = x;
                        if (x >= (long)n && y >= (long)m) {
                                found = d;
                                break;
                        }
                }
        }
        *ret_found = found >= 0;
        if (found < 0)
                return 0;
        rev = calloc(n + m + 1, sizeof *rev);
        if (!rev)
                return -ENOMEM;
        long x = (long)n, y = (long)m;
        for (d = found; d > 0; d--) {
                const long *pv = trace + d * d + d; /* pv[k]: round d's frontier on diagonal k */
                long k = x - y;
                bool down = k == -d || (k != d && pv[k - 1] < pv[k + 1]);
                long pk = down ? k + 1 : k - 1, px = pv[pk], py = px - pk;

                while (x > px + !down && y > py + down) /* the snake after the edit */
                        rev[nrev++] = (op){ 'E', a0 + (size_t)--x, b0 + (size_t)--y };
                rev[nrev++] = down ? (op){ 'I', a0 + (size_t)px, b0 + (size_t)py }
                                   : (op){ 'D', a0 + (size_t)px, b0 + (size_t)py };
                x = px, y = py;
        }
        while (x > 0 && y > 0)
                rev[nrev++] = (op){ 'E', a0 + (size_t)--x, b0 + (size_t)--y };
        for (size_t i = nrev; i-- > 0;) {
                int r = push(s, rev[i].kind, rev[i].ai, rev[i].bi);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int make_script(const line *a, size_t na, const line *b, size_t nb, script *s)
{
        size_t pre = 0, suf = 0;
        bool found = false;
        int r = 0;

        while (pre < na && pre < nb && same(&a[pre], &b[pre]))
                pre++;
        while (suf < na - pre && suf < nb - pre && same(&a[na - 1 - suf], &b[nb - 1 - suf]))
                suf++;
        for (size_t i = 0; i < pre && r >= 0; i++)
                r = push(s, 'E', i, i);
        if (r >= 0)
                r = myers(a + pre, na - pre - suf, b + pre, nb - pre - suf, pre, pre, s, &found);
        /* too different to search further: the whole middle out, then in */
        for (size_t i = pre; !found && i < na - suf && r >= 0; i++)
                r = push(s, 'D', i, pre);
        for (size_t i = pre; !found && i < nb - suf && r >= 0; i++)
                r = push(s, 'I', na - suf, i);
        for (size_t i = 0; i < suf && r >= 0; i++)
                r = push(s, 'E', na - suf + i, nb - suf + i);
        return r;
}

/* ---- hunks ------------------------------------------------------------ */

typedef struct emitter {
        acs_udiff_out out;
        void *u;
} emitter;

static int put(const emitter *e, const char *s, size_t n)
{
        return e->out(e->u, s, n);
}

static int puts_(const emitter *e, const char *s)
{
        return put(e, s, strlen(s));
}

static int put_line(const emitter *e, char tag, const line *l)
{
        int r = put(e, &tag, 1);

        if (r >= 0)
                r = put(e, l->p, l->n);
        if (r >= 0 && (l->n == 0 || l->p[l->n - 1] != '\n'))
                r = puts_(e, "\n\\ No newline at end of file\n");
        return r;
}

/* "-3,2": git leaves out a count of 1, and a range of 0 lines names the line before it. */
static void range(char *buf, size_t size, size_t start, size_t count)
{
        if (count == 1)
                snprintf(buf, size, "%zu", start + 1);
        else
                snprintf(buf, size, "%zu,%zu", count ? start + 1 : start, count);
}

/* ops[i0..i1): the header, then kept lines as they come and each change's deletions before its insertions. */
static int put_hunk(const emitter *e, const script *s, size_t i0, size_t i1, const line *a, const line *b,
                    size_t na)
{
        size_t astart = i0 < s->n ? s->v[i0].ai : na, bstart = i0 < s->n ? s->v[i0].bi : 0, ac = 0, bc = 0;
        char ra[48], rb[48], hdr[128];
        int r;

        for (size_t i = i0; i < i1; i++) {
                ac += s->v[i].kind != 'I';
                bc += s->v[i].kind != 'D';
        }
        range(ra, sizeof ra, astart, ac);
        range(rb, sizeof rb, bstart, bc);
        snprintf(hdr, sizeof hdr, "@@ -%s +%s @@\n", ra, rb);
        if ((r = puts_(e, hdr)) < 0)
                return r;
        for (size_t i = i0; i < i1 && r >= 0;) {
                size_t j = i;

                if (s->v[i].kind == 'E') {
                        r = put_line(e, ' ', &a[s->v[i].ai]);
                        i++;
                        continue;
                }
                while (j < i1 && s->v[j].kind != 'E')
                        j++;
                for (size_t k = i; k < j && r >= 0; k++)
                        if (s->v[k].kind == 'D')
                                r = put_line(e, '-', &a[s->v[k].ai]);
                for (size_t k = i; k < j && r >= 0; k++)
                        if (s->v[k].kind == 'I')
                                r = put_line(e, '+', &b[s->v[k].bi]);
                i = j;
        }
        return r;
}

static int put_hunks(const emitter *e, const script *s, unsigned ctx, const line *a, const line *b, size_t na,
                     const char *old_name, const char *new_name)
{
        bool started = false;
        int r = 0;

        for (size_t i = 0; i < s->n && r >= 0;) {
                size_t first, last, end;

                while (i < s->n && s->v[i].kind == 'E')
                        i++;
                if (i == s->n)
                        break;
                first = last = i;
                /* take in the next change while the kept lines between are at most twice the context */
                for (size_t j = i + 1; j < s->n; j++)
                        if (s->v[j].kind != 'E') {
                                if (j - last - 1 > 2 * (size_t)ctx)
                                        break;
                                last = j;
                        }
                end = last + 1 + ctx < s->n ? last + 1 + ctx : s->n;
                if (!started) {
                        r = puts_(e, "--- ");
                        if (r >= 0 && (r = puts_(e, old_name)) >= 0 && (r = puts_(e, "\n+++ ")) >= 0 &&
                            (r = puts_(e, new_name)) >= 0)
                                r = puts_(e, "\n");
                        started = true;
                }
                if (r >= 0)
                        r = put_hunk(e, s, first > ctx ? first - ctx : 0, end, a, b, na);
                i = end;
        }
        return r;
}

int acs_udiff_hunks(const char *a, size_t alen, const char *b, size_t blen, unsigned context,
                    const char *old_name, const char *new_name, acs_udiff_out out, void *u)
{
        _cleanup_free_ line *la = NULL, *lb = NULL;
        size_t na = 0, nb = 0;
        script s = { 0 };
        emitter e = { out, u };
        int r;

        if ((r = split(a, alen, &la, &na)) < 0 || (r = split(b, blen, &lb, &nb)) < 0)
                return r;
        r = make_script(la, na, lb, nb, &s);
        if (r >= 0)
                r = put_hunks(&e, &s, context, la, lb, na, old_name, new_name);
        free(s.v);
        return r;
}

/* ---- binary ----------------------------------------------------------- */

static uint32_t adler32(const unsigned char *p, size_t n)
{
        uint32_t s1 = 1, s2 = 0;

        /* 5552 bytes at most between reductions: s2 cannot overflow 32 bits (zlib's NMAX) */
        for (size_t at = 0; at < n;) {
                size_t end = n - at > 5552 ? at + 5552 : n;

                for (; at < end; at++) {
                        s1 += p[at];
                        s2 += s1;
                }
                s1 %= 65521;
                s2 %= 65521;
        }
        return (s2 << 16) | s1;
}

/* A zlib stream of stored (uncompressed) deflate blocks: what inflate() reads like any other. */
static unsigned char *zlib_stored(const char *data, size_t n, size_t *ret_len)
{
        size_t blocks = n / 65535 + (n % 65535 != 0 || n == 0), len = 2 + 5 * blocks + n + 4, at = 2;
        unsigned char *z = malloc(len);
        uint32_t ad = adler32((const unsigned char *)data, n);

        if (!z)
                return NULL;
        z[0] = 0x78; /* deflate, 32 KiB window */
        z[1] = 0x01; /* (0x7801 % 31 == 0), no dictionary, fastest */
        for (size_t off = 0, b = 0; b < blocks; b++) {
                size_t k = n - off < 65535 ? n - off : 65535;

                z[at++] = b + 1 == blocks; /* BFINAL, BTYPE 00 */
                z[at++] = k & 0xff;
                z[at++] = k >> 8;
                z[at++] = ~k & 0xff;
                z[at++] = (~k >> 8) & 0xff;
                memcpy(z + at, data + off, k);
                at += k;
                off += k;
        }
        for (int i = 3; i >= 0; i--)
                z[at++] = (ad >> (8 * i)) & 0xff;
        *ret_len = at;
        return z;
}

static const char en85[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

/* "literal N", then base85 lines of 52 bytes at most (the first character gives the count), then a blank line. */
static int put_literal(const emitter *e, const char *data, size_t n)
{
        size_t zlen = 0;
        _cleanup_free_ unsigned char *z = zlib_stored(data, n, &zlen);
        char buf[16 + 13 * 5 + 2];
        int r;

        if (!z)
                return -ENOMEM;
        snprintf(buf, sizeof buf, "literal %zu\n", n);
        r = puts_(e, buf);
        for (size_t at = 0; at < zlen && r >= 0;) {
                size_t k = zlen - at < 52 ? zlen - at : 52, o = 0;

                buf[o++] = k <= 26 ? (char)('A' + k - 1) : (char)('a' + k - 27);
                for (size_t g = 0; g < k; g += 4) {
                        uint32_t acc = 0;

                        for (size_t i = 0; i < 4; i++)
                                acc = acc << 8 | (g + i < k ? z[at + g + i] : 0);
                        for (int c = 4; c >= 0; c--) {
                                buf[o + (size_t)c] = en85[acc % 85];
                                acc /= 85;
                        }
                        o += 5;
                }
                buf[o++] = '\n';
                r = put(e, buf, o);
                at += k;
        }
        return r < 0 ? r : puts_(e, "\n");
}

int acs_udiff_binary(const char *a, size_t alen, const char *b, size_t blen, acs_udiff_out out, void *u)
{
        emitter e = { out, u };
        int r = puts_(&e, "GIT binary patch\n");

        if (r >= 0)
                r = put_literal(&e, b ? b : "", b ? blen : 0);
        return r < 0 ? r : put_literal(&e, a ? a : "", a ? alen : 0);
}
