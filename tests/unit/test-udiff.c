/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * udiff.c: exact hunks for small cases (git's format), then random edits
 * whose patch a small applier here must turn back into the new text, and
 * binary literals decoded back (base85, zlib stored blocks, adler32).
 * git apply itself takes the patches in tests/integration/patch-git.sh.
 */
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "udiff.h"

typedef struct buf {
        char *p;
        size_t len;
} buf;

static int out(void *u, const char *s, size_t n)
{
        buf *b = u;
        char *p = realloc(b->p, b->len + n + 1);

        if (!p)
                return -ENOMEM;
        memcpy(p + b->len, s, n);
        b->p = p;
        b->len += n;
        b->p[b->len] = 0;
        return 0;
}

static char *hunks(const char *a, const char *b)
{
        buf o = { 0 };

        if (acs_udiff_hunks(a, strlen(a), b, strlen(b), 3, "a/f", "b/f", out, &o) < 0)
                return NULL;
        return o.p ? o.p : strdup("");
}

/* "1\n2\n...n\n" with the lines in change[] upper-cased as "Xk\n" */
static char *numbered(int n, const int *change, size_t nc)
{
        buf o = { 0 };

        for (int i = 1; i <= n; i++) {
                char l[32];
                bool x = false;

                for (size_t k = 0; k < nc; k++)
                        x = x || change[k] == i;
                snprintf(l, sizeof l, "%s%d\n", x ? "X" : "", i);
                out(&o, l, strlen(l));
        }
        return o.p;
}

static void test_exact(void)
{
        static const struct {
                const char *name, *a, *b, *want;
        } v[] = {
                { "equal", "a\nb\n", "a\nb\n", "" },
                { "one line changed", "a\nb\nc\n", "a\nB\nc\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n" },
                { "from empty", "", "x\n", "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+x\n" },
                { "to empty", "x\ny\n", "", "--- a/f\n+++ b/f\n@@ -1,2 +0,0 @@\n-x\n-y\n" },
                { "newline added at the end", "x", "x\n",
                  "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+x\n" },
                { "no newline on either side", "a\nx", "b\nx",
                  "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+b\n x\n\\ No newline at end of file\n" },
                { "insertion", "a\nb\n", "a\nx\nb\n", "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n+x\n b\n" },
                { "insertion after 10 lines", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n",
                  "--- a/f\n+++ b/f\n@@ -8,3 +8,4 @@\n 8\n 9\n 10\n+11\n" },
                { "deletions before insertions", "a\nb\nc\n", "x\ny\nc\n",
                  "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n-a\n-b\n+x\n+y\n c\n" },
        };
        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                _cleanup_free_ char *got = hunks(v[i].a, v[i].b);

                ok(got && strcmp(got, v[i].want) == 0, "%s", v[i].name);
                if (got && strcmp(got, v[i].want) != 0)
                        printf("# got:\n%s# want:\n%s", got, v[i].want);
        }
}

/* Changes 7 kept lines apart or more are two hunks (git: more than twice the context). */
static void test_hunk_split(void)
{
        static const struct {
                int c1, c2;
                const char *h1, *h2; /* hunk headers */
        } v[] = {
                { 2, 18, "@@ -1,5 +1,5 @@", "@@ -15,6 +15,6 @@" },
                { 2, 9, "@@ -1,12 +1,12 @@", NULL },
                { 2, 10, "@@ -1,5 +1,5 @@", "@@ -7,7 +7,7 @@" },
        };
        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                _cleanup_free_ char *a = numbered(20, NULL, 0), *b = numbered(20, (int[]){ v[i].c1, v[i].c2 }, 2);
                _cleanup_free_ char *got = hunks(a, b);
                const char *h1 = got ? strstr(got, "@@ ") : NULL, *h2 = h1 ? strstr(h1 + 3, "\n@@ ") : NULL;

                ok(h1 && strncmp(h1, v[i].h1, strlen(v[i].h1)) == 0, "changes at %d and %d: first hunk %s", v[i].c1,
                   v[i].c2, v[i].h1);
                if (v[i].h2)
                        ok(h2 && strncmp(h2 + 1, v[i].h2, strlen(v[i].h2)) == 0, "  second hunk %s", v[i].h2);
                else
                        ok(!h2, "  one hunk");
        }
}

/* ---- a small applier: the patch must turn a into b ---- */

static const char *next_line(const char *p, const char *end, size_t *n)
{
        const char *nl = memchr(p, '\n', (size_t)(end - p));

        *n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        return p;
}

/* Applies hunks to a; NULL when a line of context or deletion does not match a. */
static char *apply(const char *a, const char *patch)
{
        const char *pe = patch + strlen(patch), *p = patch, *ap = a, *ae = a + strlen(a);
        buf o = { 0 };
        char last = 0;
        long aline = 1; /* the line of a at ap */

        out(&o, "", 0);
        while (p < pe) {
                size_t n;
                const char *l = next_line(p, pe, &n);

                p += n;
                if (!strncmp(l, "--- ", 4) || !strncmp(l, "+++ ", 4))
                        continue;
                if (!strncmp(l, "@@ -", 4)) {
                        long start = strtol(l + 4, NULL, 10), count = 1;
                        const char *comma = memchr(l, ',', n), *plus = memchr(l, '+', n);

                        if (comma && comma < plus)
                                count = strtol(comma + 1, NULL, 10);
                        if (count == 0)
                                start++; /* "-k,0": after line k */
                        for (; aline < start; aline++) { /* copy up to the hunk */
                                size_t k;
                                next_line(ap, ae, &k);
                                out(&o, ap, k);
                                ap += k;
                        }
                        continue;
                }
                if (l[0] == '\\') { /* the line before had no newline */
                        if (last == ' ' || last == '+')
                                o.p[--o.len] = 0;
                        if (last == ' ' || last == '-')
                                ap--; /* ... and it was the end of a: undo the newline we counted */
                        continue;
                }
                last = l[0];
                if (l[0] == ' ' || l[0] == '-') {
                        if ((size_t)(ae - ap) < n - 1 || memcmp(ap, l + 1, n - 1) != 0) {
                                if (!((size_t)(ae - ap) == n - 2 && memcmp(ap, l + 1, n - 2) == 0)) {
                                        free(o.p);
                                        return NULL;
                                }
                        }
                        ap += n - 1;
                        aline++;
                }
                if (l[0] == ' ' || l[0] == '+')
                        out(&o, l + 1, n - 1);
        }
        if (ap < ae)
                out(&o, ap, (size_t)(ae - ap));
        return o.p;
}

static unsigned rnd(unsigned *s)
{
        *s = *s * 1103515245u + 12345u;
        return (*s >> 16) & 0x7fff;
}

static void test_random(void)
{
        unsigned seed = 42;
        int good = 0, runs = 300;

        for (int r = 0; r < runs; r++) {
                int n = (int)(rnd(&seed) % 60), edits = (int)(rnd(&seed) % 12);
                buf a = { 0 }, b = { 0 };

                out(&a, "", 0);
                out(&b, "", 0);
                for (int i = 0; i < n; i++) {
                        char l[16];
                        snprintf(l, sizeof l, "%c\n", 'a' + (int)(rnd(&seed) % 5)); /* many equal lines */
                        out(&a, l, strlen(l));
                }
                /* b: a with lines dropped, replaced and inserted */
                for (const char *p = a.p; *p; p += 2) {
                        unsigned x = edits ? rnd(&seed) % 10 : 9;
                        if (x == 0)
                                continue;
                        if (x == 1)
                                out(&b, "new\n", 4);
                        out(&b, x == 2 ? "z\n" : p, 2);
                }
                if (rnd(&seed) % 4 == 0 && b.len)
                        b.p[--b.len] = 0; /* no newline at the end */
                if (rnd(&seed) % 4 == 0 && a.len)
                        a.p[--a.len] = 0;
                _cleanup_free_ char *patch = hunks(a.p, b.p);
                _cleanup_free_ char *got = patch ? apply(a.p, patch) : NULL;
                if (got && strcmp(got, b.p) == 0)
                        good++;
                else
                        printf("# run %d failed:\n# a=[%s]\n# b=[%s]\n# patch:\n%s", r, a.p, b.p, patch ? patch : "(null)");
                free(a.p);
                free(b.p);
                if (good != r + 1)
                        break;
        }
        ok(good == runs, "%d random edits: each patch applied turns a into b (%d)", runs, good);
}

/* Past ACS_UDIFF_MAX_EDITS the middle is replaced whole: still correct, still bounded. */
static void test_fallback(void)
{
        buf a = { 0 }, b = { 0 };
        int n = ACS_UDIFF_MAX_EDITS; /* n changed lines are 2n edits */

        for (int i = 0; i < n; i++) {
                char l[32];
                snprintf(l, sizeof l, "a%d\n", i);
                out(&a, l, strlen(l));
                snprintf(l, sizeof l, "b%d\n", i);
                out(&b, l, strlen(l));
        }
        out(&a, "same\n", 5);
        out(&b, "same\n", 5);
        _cleanup_free_ char *patch = hunks(a.p, b.p);
        _cleanup_free_ char *got = patch ? apply(a.p, patch) : NULL;
        char want[64];

        snprintf(want, sizeof want, "@@ -1,%d +1,%d @@\n-a0\n-a1\n", n + 1, n + 1);
        ok(patch && strstr(patch, want), "past the bound: one hunk, all deletions first");
        ok(got && strcmp(got, b.p) == 0, "and it applies");
        free(a.p);
        free(b.p);
}

/* ---- binary ---- */

static const char en85[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

/* One "literal N" block back to its bytes; NULL when malformed. */
static unsigned char *decode_literal(const char **pp, size_t *ret_n)
{
        const char *p = *pp;
        size_t n = strtoul(p + strlen("literal "), NULL, 10), zl = 0;
        unsigned char z[1 << 16];
        unsigned char *data;

        if (strncmp(p, "literal ", 8) != 0)
                return NULL;
        p = strchr(p, '\n') + 1;
        while (*p != '\n') {
                size_t k = *p >= 'A' && *p <= 'Z' ? (size_t)(*p - 'A' + 1) : (size_t)(*p - 'a' + 27);
                p++;
                for (size_t g = 0; g < k; g += 4, p += 5) {
                        uint32_t acc = 0;
                        for (int c = 0; c < 5; c++)
                                acc = acc * 85 + (uint32_t)(strchr(en85, p[c]) - en85);
                        for (size_t i = 0; i < 4 && g + i < k; i++)
                                z[zl++] = (unsigned char)(acc >> (24 - 8 * i));
                }
                if (*p++ != '\n')
                        return NULL;
        }
        *pp = p + 1;
        /* zlib: 78 01, stored blocks, adler32 */
        data = malloc(n + 1);
        size_t at = 2, got = 0;
        if (!data || z[0] != 0x78 || (z[0] * 256 + z[1]) % 31 != 0)
                return free(data), NULL;
        for (bool last = false; !last;) {
                size_t len = z[at + 1] | z[at + 2] << 8, nlen = z[at + 3] | z[at + 4] << 8;
                last = z[at] & 1;
                if ((z[at] & 6) != 0 || (len ^ 0xffff) != nlen || got + len > n)
                        return free(data), NULL;
                memcpy(data + got, z + at + 5, len);
                got += len;
                at += 5 + len;
        }
        uint32_t s1 = 1, s2 = 0;
        for (size_t i = 0; i < got; i++)
                s1 = (s1 + data[i]) % 65521, s2 = (s2 + s1) % 65521;
        if (got != n || at + 4 != zl || ((uint32_t)z[at] << 24 | z[at + 1] << 16 | z[at + 2] << 8 | z[at + 3]) !=
                                               (s2 << 16 | s1))
                return free(data), NULL;
        *ret_n = n;
        return data;
}

static void test_binary(void)
{
        static const size_t sizes[] = { 0, 1, 3, 4, 52, 53, 1000, 20000 };

        ok(acs_udiff_is_binary("a\0b", 3) && !acs_udiff_is_binary("abc\n", 4), "binary: a NUL byte");
        for (size_t i = 0; i < ELEMENTSOF(sizes); i++) {
                size_t n = sizes[i], got_new = 0, got_old = 0;
                _cleanup_free_ char *data = malloc(n + 1);
                buf o = { 0 };

                for (size_t k = 0; k < n; k++)
                        data[k] = (char)(k * 7 + 3);
                ok(acs_udiff_binary("old\0", 4, data, n, out, &o) == 0 && o.p &&
                           strncmp(o.p, "GIT binary patch\nliteral ", 25) == 0,
                   "%zu bytes: a git binary patch", n);
                const char *p = o.p ? o.p + strlen("GIT binary patch\n") : "";
                _cleanup_free_ unsigned char *nd = decode_literal(&p, &got_new);
                _cleanup_free_ unsigned char *od = nd ? decode_literal(&p, &got_old) : NULL;
                ok(nd && got_new == n && memcmp(nd, data, n) == 0, "  the new content decodes back");
                ok(od && got_old == 4 && memcmp(od, "old\0", 4) == 0 && *p == '\0', "  then the old one, and nothing else");
                free(o.p);
        }
}

int main(void)
{
        test_exact();
        test_hunk_split();
        test_random();
        test_fallback();
        test_binary();
        return tap_done();
}
