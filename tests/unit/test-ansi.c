/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What `ansi = strip` removes, and the live filter: bytes in, terminal-safe bytes out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ansi.h"
#include "clip.h"
#include "../tap.h"

/* Filter in[0..len) fed in chunks of `chunk` bytes; malloc'ed result. */
static char *filter(const char *in, size_t len, size_t chunk, size_t *ret_len)
{
        acs_term_filter f = { 0 };
        char *out = malloc(ACS_TERM_FILTER_OUT(len));
        size_t o = 0;
        for (size_t off = 0; off < len; off += chunk) {
                size_t n = len - off < chunk ? len - off : chunk;
                o += acs_term_filter_feed(&f, in + off, n, out + o);
        }
        *ret_len = o;
        return out;
}

static const struct fcase {
        const char *name;
        const char *in;
        size_t in_len; /* 0: strlen; else want is as long */
        const char *want;
} cases[] = {
        { "plain text", "hello, world\n", 0, "hello, world\n" },
        { "tab, CR, LF kept", "a\tb\rc\r\n", 0, "a\tb\rc\r\n" },
        { "SGR colour dropped", "\x1b[1;31mred\x1b[0m\n", 0, "red\n" },
        { "OSC 52 clipboard write (BEL)", "a\x1b]52;c;SGVsbG8=\x07z\n", 0, "az\n" },
        { "OSC 52 clipboard write (ST)", "a\x1b]52;c;SGVsbG8=\x1b\\z\n", 0, "az\n" },
        { "window title", "a\x1b]0;pwned\x07z", 0, "az" },
        { "DCS, SOS, PM, APC strings", "a\x1bPq#0\x1b\\b\x1bXsos\x1b\\c\x1b^pm\x1b\\d\x1b_apc\x1b\\e", 0, "abcde" },
        { "device attributes query (answer-back)", "a\x1b[c\x1b[>0c\x1b[6n\x1bZz", 0, "az" },
        { "charset designation (nF)", "a\x1b(0lqk\x1b(Bz", 0, "alqkz" },
        { "keypad and reset (Fp, Fs)", "a\x1b=\x1b>\x1b" "cz", 0, "az" },
        { "BEL, BS, VT, FF, SO, SI, ENQ, CAN, SUB, DEL dropped", "a\x07\x08\x0b\x0c\x0e\x0f\x05\x18\x1a\x7fz", 0, "az" },
        { "NUL kept (terminals ignore it)", "a\0z", 3, "a\0z" },
        { "C1 CSI (U+009B) sequence", "a\xc2\x9b" "31mz", 0, "az" },
        { "C1 OSC (U+009D) to ST (U+009C)", "a\xc2\x9d" "52;c;QQ==\xc2\x9cz", 0, "az" },
        { "C1 OSC to BEL", "a\xc2\x9d" "0;t\x07z", 0, "az" },
        { "other C1 (NEL, RI, IND) dropped", "a\xc2\x85\xc2\x8d\xc2\x84\xc2\x80z", 0, "az" },
        { "raw 8-bit C1 byte is U+FFFD, not CSI", "a\x9b" "31mz", 0, "a\xef\xbf\xbd" "31mz" },
        { "invalid UTF-8 becomes U+FFFD", "a\xff" "b\xe2\x82" "c", 0, "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c" },
        { "overlong and surrogate refused", "\xc0\xaf\xed\xa0\x80", 0,
          "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
        { "valid multibyte kept", "\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80\n", 0, "\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80\n" },
        { "a title never spans lines", "a\x1b]0;x\nb", 0, "a\nb" },
        { "ESC inside CSI starts over", "a\x1b[1\x1b]0;t\x07z", 0, "az" },
        { "malformed CSI: the byte is text", "a\x1b[1\xc3\xa9z", 0, "a\xc3\xa9z" },
};

static void test_cases(void)
{
        static const size_t chunks[] = { 1, 2, 3, 4096 };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const struct fcase *c = &cases[i];
                size_t len = c->in_len ? c->in_len : strlen(c->in);
                size_t wlen = c->in_len ? c->in_len : strlen(c->want); /* NUL: as long as in */
                for (size_t k = 0; k < ELEMENTSOF(chunks); k++) {
                        size_t n;
                        char *got = filter(c->in, len, chunks[k], &n);
                        bool same = n == wlen && memcmp(got, c->want, n) == 0;
                        ok(same, "%s (chunks of %zu)", c->name, chunks[k]);
                        if (!same)
                                diag("got [%.*s] (%zu bytes)", (int)n, got, n);
                        free(got);
                }
        }
}

/* An escape that never ends is dropped up to ACS_ANSI_MAX; after that the
 * text is judged as text again: an ESC there still starts a new escape. */
static void test_overlong(void)
{
        size_t pad = ACS_ANSI_MAX + 100, len = 0;
        char *in = malloc(pad + 64);
        len += (size_t)sprintf(in, "a\x1b]");
        memset(in + len, 'x', pad);
        len += pad;
        len += (size_t)sprintf(in + len, "\x1b]52;c;QQ==\x07\x07z");
        size_t n;
        char *got = filter(in, len, 7, &n);
        ok(memchr(got, 0x1b, n) == NULL && memchr(got, 0x07, n) == NULL,
           "an overlong escape lets no ESC or BEL through after it");
        ok(n >= 2 && got[0] == 'a' && got[n - 1] == 'z', "the text around an overlong escape survives");
        ok(strstr(in, "52;c") && !memmem(got, n, "52;c", 4), "the escape after an overlong one is still stripped");
        free(got);
        free(in);
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;
static unsigned rnd(void)
{
        rnd_state ^= rnd_state << 13;
        rnd_state ^= rnd_state >> 7;
        rnd_state ^= rnd_state << 17;
        return (unsigned)rnd_state;
}

/* Every byte a terminal would act on: C0 but tab/LF/CR/NUL, DEL, C1 as
 * UTF-8, and any invalid UTF-8 (a raw 0x80..0x9F byte is one). */
static bool terminal_safe(const unsigned char *s, size_t n)
{
        for (size_t i = 0; i < n;) {
                unsigned char b = s[i];
                if (b < 0x80) {
                        if ((b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != 0) || b == 0x7F)
                                return false;
                        i++;
                        continue;
                }
                size_t k = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 ? 2 : 0;
                if (k == 0 || i + k > n)
                        return false;
                uint32_t cp = b & (0x7F >> k);
                for (size_t j = 1; j < k; j++) {
                        if ((s[i + j] & 0xC0) != 0x80)
                                return false;
                        cp = (cp << 6) | (s[i + j] & 0x3F);
                }
                if ((cp >= 0x80 && cp <= 0x9F) || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF ||
                    (k == 3 && cp < 0x800) || (k == 4 && cp < 0x10000))
                        return false;
                i += k;
        }
        return true;
}

/* Random mixes of text and every kind of escape, control and bad byte, fed
 * in random chunks: the output is terminal-safe, does not depend on where
 * the chunks were cut, and (for input without CR or repeated lines) is the
 * report's text under ansi = strip: one definition of strip for both. */
static void test_random(void)
{
        static const char *const alpha[] = {
                "a", "xyz", " ", "\t", "\n", "\x1b", "[", "]", "52;c;", "0;", "\x07", "\x1b\\", "m", "P",
                "\xc2\x9b", "\xc2\x9d", "\xc2\x9c", "\xc2\x85", "\x9b", "\x9d", "\xe2\x82", "\xac", "\xff",
                "\xf0\x9f\x98\x80", "\x08", "\x0e", "\x05", "\x7f", "(", "0",
        };
        static char buf[20000];
        unsigned unsafe = 0, chunk_dep = 0, differs = 0;
        for (int iter = 0; iter < 500; iter++) {
                size_t n = 0, target = rnd() % (sizeof buf - 200);
                unsigned line = 0;
                while (n < target) {
                        const char *a = alpha[rnd() % ELEMENTSOF(alpha)];
                        if (a[0] == '\n') /* no two lines alike: nothing folds */
                                n += (size_t)sprintf(buf + n, " %u\n", line++);
                        else {
                                memcpy(buf + n, a, strlen(a));
                                n += strlen(a);
                        }
                }
                /* a last newline ends what is open (the shield ends it at EOF too) */
                n += (size_t)sprintf(buf + n, " %u\n", line);
                size_t l1, l2;
                char *whole = filter(buf, n, n ? n : 1, &l1);
                char *bits = filter(buf, n, 1 + rnd() % 9, &l2);
                unsafe += !terminal_safe((unsigned char *)whole, l1);
                chunk_dep += l1 != l2 || memcmp(whole, bits, l1) != 0;

                acs_shield *s = acs_shield_new(1 << 20, true);
                acs_shield_feed(s, ACS_STDOUT, buf, n);
                acs_stream_result r[2] = { 0 };
                acs_shield_finish(s, &r[0], &r[1]);
                /* the shield ends an escape left open at EOF; the filter waits */
                acs_term_filter f = { 0 };
                char *tmp = malloc(ACS_TERM_FILTER_OUT(n));
                size_t l3 = acs_term_filter_feed(&f, buf, n, tmp);
                bool same = r[0].text_len == l3 && memcmp(r[0].text, tmp, l3) == 0;
                if (!same && differs++ == 0)
                        diag("shield [%.*s] vs filter [%.*s]", (int)r[0].text_len, r[0].text, (int)l3, tmp);
                free(tmp);
                free(r[0].text);
                free(r[1].text);
                acs_shield_free(s);
                free(whole);
                free(bits);
        }
        is_int(unsafe, 0, "random input: the filter's output is terminal-safe");
        is_int(chunk_dep, 0, "random input: where the chunks are cut changes nothing");
        is_int(differs, 0, "random input: the live filter and the report's text agree");
}

/* Messages quoting code are printed raw only when that is harmless. */
static void test_plain(void)
{
        static const struct {
                const char *s;
                bool plain;
        } t[] = {
                { "import of 'os' is not allowed", true },
                { "caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x98\x80\ttab", true },
                { "", true },
                { "o\x1b]52;c;QQ==\x07s", false },
                { "bell\x07", false },
                { "csi\xc2\x9b" "31m", false },
                { "nel\xc2\x85", false },
                { "raw\x9b" "31m", false },
                { "cut\xe2\x80", false },
                { "two\nlines", false },
                { "over\rwrite", false },
                { "del\x7f", false },
        };
        for (size_t i = 0; i < ELEMENTSOF(t); i++)
                ok(acs_ansi_plain(t[i].s, strlen(t[i].s)) == t[i].plain, "plain(\"%s\") is %s", t[i].plain ? t[i].s : "...",
                   t[i].plain ? "true" : "false");
}

int main(void)
{
        test_cases();
        test_plain();
        test_overlong();
        test_random();
        return tap_done();
}
