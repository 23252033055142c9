/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The token shield as a pure function: bytes in, clipped text and counts out. */
#include <stdio.h>
#include <string.h>

#include "clip.h"
#include "../tap.h"

typedef struct result {
        acs_stream_result s[2];
        char *epi[2];
        size_t epi_len[2];
        size_t live[2];    /* bytes feed let through */
        bool prefix_ok[2]; /* once feed held back, it returned 0 afterwards */
        size_t max_mem;
} result;

static void result_done(result *r)
{
        for (int i = 0; i < 2; i++) {
                free(r->s[i].text);
                free(r->epi[i]);
        }
}

/* Feed out and err in chunks of `chunk` bytes, interleaved. */
static void shield_run(uint64_t tokens, bool strip, const char *out, size_t olen, const char *err,
                       size_t elen, size_t chunk, result *r)
{
        *r = (result){.prefix_ok = {true, true}};
        acs_shield *s = acs_shield_new(tokens, strip);
        const char *b[2] = {out, err};
        size_t len[2] = {olen, elen}, off[2] = {0, 0};
        bool held[2] = {false, false};
        while (off[0] < len[0] || off[1] < len[1]) {
                for (int i = 0; i < 2; i++) {
                        if (off[i] >= len[i])
                                continue;
                        size_t n = len[i] - off[i] < chunk ? len[i] - off[i] : chunk;
                        size_t l = acs_shield_feed(s, i, b[i] + off[i], n);
                        if (held[i] && l)
                                r->prefix_ok[i] = false;
                        if (l < n)
                                held[i] = true;
                        if (l > n)
                                r->prefix_ok[i] = false;
                        r->live[i] += l;
                        off[i] += n;
                        size_t m = acs_shield_memory(s);
                        if (m > r->max_mem)
                                r->max_mem = m;
                }
        }
        int ret = acs_shield_finish(s, &r->s[0], &r->s[1]);
        if (ret < 0)
                diag("finish failed: %d", ret);
        for (int i = 0; i < 2; i++)
                r->epi[i] = acs_shield_epilogue(s, i, &r->epi_len[i]);
        acs_shield_free(s);
}

/* ---- exact small cases ------------------------------------------------ */

#define AT_ESTIMATE UINT64_MAX /* the budget is the input's own estimate */
static const struct exact {
        const char *name;
        uint64_t tokens;
        bool strip;
        const char *in;
        size_t in_len; /* 0: strlen */
        const char *want;
        bool truncated;
} exact_cases[] = {
        {"empty output", 100, true, "", 0, "", false},
        {"small output unchanged", 100, true, "hello\nworld\n", 0, "hello\nworld\n", false},
        {"no final newline kept", 100, true, "a\nb", 0, "a\nb", false},
        {"beyond the head but within budget", AT_ESTIMATE, true, "aaa\nbbb\nccc\nddd\neee\nfff\n", 0,
         "aaa\nbbb\nccc\nddd\neee\nfff\n", false},
        {"exactly at budget", AT_ESTIMATE, true,
         "l00\nl01\nl02\nl03\nl04\nl05\nl06\nl07\nl08\nl09\n", 0,
         "l00\nl01\nl02\nl03\nl04\nl05\nl06\nl07\nl08\nl09\n", false},
        {"runs of 2 and 3 are not folded", 100, true, "x\nx\ny\ny\ny\nz\n", 0, "x\nx\ny\ny\ny\nz\n", false},
        {"run of 4 folds", 100, true, "q\nq\nq\nq\nend\n", 0,
         "q\nq\n\xe2\x80\xa6 repeated 2 more times\nend\n", false},
        {"run after the head folds across it", 100, true, "a\nb\nb\nb\nb\nb\nb\nc\n", 0,
         "a\nb\nb\n\xe2\x80\xa6 repeated 4 more times\nc\n", false},
        {"carriage-return bar keeps its last state", 100, true, "0%\r50%\r100%\ndone\n", 0, "100%\ndone\n",
         false},
        {"CRLF is a newline", 100, true, "a\r\nb\r\n", 0, "a\nb\n", false},
        {"bar at EOF", 100, true, "1/3\r2/3\r3/3\r", 0, "3/3", false},
        {"ANSI CSI and OSC stripped", 100, true,
         "\x1b[1;31mred\x1b[0m \x1b]0;title\x07ok \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n", 0,
         "red ok link\n", false},
        {"ANSI kept when asked", 100, false, "\x1b[31mred\x1b[0m\n", 0, "\x1b[31mred\x1b[0m\n", false},
        {"lone ESC before text", 100, true,
         "a\x1b"
         "b\n",
         0, "a\n", false},
        {"invalid UTF-8 becomes U+FFFD", 100, true,
         "a\xff"
         "b\xe2\x82"
         "c\xed\xa0\x80\n",
         0,
         "a\xef\xbf\xbd"
         "b\xef\xbf\xbd"
         "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\n",
         false},
        {"valid multibyte kept", 100, true, "\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80\n", 0,
         "\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80\n", false},
        {"truncated sequence at EOF", 100, true, "ok\xf0\x9f", 0, "ok\xef\xbf\xbd", false},
        {"NUL byte kept", 100, true, "a\0b\n", 4, "a\0b\n", false},
};

static void test_exact(void)
{
        static const size_t chunks[] = {1, 3, 4096};
        for (size_t i = 0; i < ELEMENTSOF(exact_cases); i++) {
                const struct exact *e = &exact_cases[i];
                size_t len = e->in_len ? e->in_len : strlen(e->in);
                size_t wlen = e->in_len ? e->in_len : strlen(e->want); /* NUL: as long as in */
                for (size_t c = 0; c < ELEMENTSOF(chunks); c++) {
                        result r;
                        uint64_t tokens = e->tokens == AT_ESTIMATE ? acs_estimate_tokens(e->in, len) : e->tokens;
                        shield_run(tokens, e->strip, e->in, len, "", 0, chunks[c], &r);
                        bool same = r.s[0].text_len == wlen && memcmp(r.s[0].text, e->want, wlen) == 0;
                        ok(same, "%s (chunk %zu)", e->name, chunks[c]);
                        if (!same)
                                diag("got [%s] (%zu bytes)", r.s[0].text, r.s[0].text_len);
                        ok(r.s[0].truncated == e->truncated && r.s[0].bytes == len && r.prefix_ok[0],
                           "%s: counts (chunk %zu)", e->name, chunks[c]);
                        result_done(&r);
                }
        }
}

/* ---- the token estimate ----------------------------------------------- */

/*
 * The cost model (clip-tokens.c) on small cases: the estimate as fitted
 * today (a refit changes these numbers: check it against tests/tokens), and
 * the larger count of cl100k_base and o200k_base for the same text, which it
 * must never be below.
 */
static const struct estimate_case {
        const char *s;
        uint64_t want, real;
} estimate_cases[] = {
        {"", 0, 0},
        {"hello", 1, 1},
        {"hello world\n", 4, 3},
        {"The quick brown fox jumps over the lazy dog.\n", 11, 10},
        {"ERROR: file not found\n", 6, 6},
        {"    return self._value\n", 7, 6},
        {"{\"id\": 42, \"name\": \"x\"}\n", 13, 12},
        {"\x01\x02\x03\x04\x05", 5, 5},                 /* control characters: one token each */
        {"\v\f\v\f", 4, 4},                             /* and white space BPE never merges */
        {"123456789", 3, 3},                            /* digits: groups of 3 */
        {"1234567890", 4, 4},
        {"aZ3kLmQ9+/xYw==", 14, 13},                    /* base64 */
        {"\x1b[31mred\x1b[0m", 9, 9},                   /* escapes, when kept */
        {"\t\t\tx", 4, 2},
        {"  \n\n\n", 2, 1},
        {"caf\xc3\xa9", 2, 2},
        {"\xe4\xb8\xad", 2, 1},                         /* 中: one token */
        {"\xe6\x88\x90\xe5\x8a\x9f", 2, 1},             /* 成功: a one-token pair */
        {"\xe9\xbe\xa5", 3, 2},                         /* 龥: rare, a token per byte pair */
        {"\xf0\xa0\x80\x80", 4, 3},                     /* U+20000: outside the vocabularies */
        {"\xf0\x9f\x98\x80", 3, 2},                     /* emoji */
        {"\xe2\x80\x8b\xe2\x80\x8b", 2, 1},             /* zero-width spaces */
        {"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 2, 1}, /* U+FFFD, what bad UTF-8 becomes */
};

static void test_estimate(void)
{
        for (size_t i = 0; i < ELEMENTSOF(estimate_cases); i++) {
                const struct estimate_case *c = &estimate_cases[i];
                uint64_t got = acs_estimate_tokens(c->s, strlen(c->s));
                ok(got == c->want, "estimate of case %zu: %llu, want %llu", i, (unsigned long long)got,
                   (unsigned long long)c->want);
                ok(got >= c->real, "case %zu: estimate %llu >= real %llu", i, (unsigned long long)got,
                   (unsigned long long)c->real);
        }
        /* lines are independent: the estimate of a text is the sum over its lines */
        static const char *const parts[] = {"def f(x):\n", "    return x  # ok\n", "\xe4\xb8\xad\xe6\x96\x87\n", "\n",
                                            "ZZZZ====\n", "  \t\v1,234\n"};
        char all[256] = "";
        uint64_t sum = 0;
        for (size_t i = 0; i < ELEMENTSOF(parts); i++) {
                strcat(all, parts[i]);
                sum += acs_estimate_units(parts[i], strlen(parts[i]));
        }
        is_int(acs_estimate_units(all, strlen(all)), sum, "estimate of a text = sum over its lines");
        /* one more character never costs less than nothing */
        static const char alpha[] = "aAzZ09 _.,:;=\t\v\x01\"'(){}";
        uint64_t state = 12345, bad = 0;
        char buf[512];
        for (int iter = 0; iter < 200; iter++) {
                size_t n = 0;
                uint64_t prev = 0;
                while (n < sizeof buf - 4) {
                        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
                        unsigned r = (unsigned)(state >> 33);
                        if (r % 7 == 0) {
                                memcpy(buf + n, r % 2 ? "\xe6\x88\x90" : "\xe5\x8a\x9f", 3); /* 成 功 */
                                n += 3;
                        } else {
                                buf[n++] = alpha[r % (sizeof alpha - 1)];
                        }
                        uint64_t u = acs_estimate_units(buf, n);
                        bad += u < prev;
                        prev = u;
                }
        }
        is_int(bad, 0, "appending never lowers the estimate");

        /* the estimate's shortcuts give what its events say */
        static const char *const pieces[] = {"a", "b", "e", "z", "q", "A", "Z", " ", "  ", "\n", "\t", "\v", "0", "7", ".",
                                             "=", "\"", "_", "\x01", "\xe6\x88\x90", "\xe5\x8a\x9f", "\xe2\x94\x81",
                                             "\xf0\x9f\x98\x80", "\xc3\xa9", "\xea\xb0\x80", "the", "hello", "xyzzy",
                                             "yyyyyyyyyyyyyyyyyyyy", "====", "        ", "aaaaaaaaaaaaaaaa", "ZZZZZZ", "000000"};
        uint64_t differ = 0;
        for (int iter = 0; iter < 300; iter++) {
                size_t n = 0;
                while (n + 24 < sizeof buf) {
                        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
                        const char *p = pieces[(state >> 33) % ELEMENTSOF(pieces)];
                        memcpy(buf + n, p, strlen(p));
                        n += strlen(p);
                }
                uint64_t c[256] = {}, fixed, units;
                acs_tok_events(buf, n, c, ELEMENTSOF(c), &fixed, &units);
                differ += units != acs_estimate_units(buf, n);
        }
        is_int(differ, 0, "shortcuts and events agree on random text");
}

/* ---- budgets and the head/tail split ---------------------------------- */

/* n lines "PREFIX<i>\n", i zero-padded to width */
static char *numbered(size_t n, const char *prefix, int width, size_t *ret_len)
{
        size_t cap = n * (strlen(prefix) + 24) + 1, o = 0;
        char *b = malloc(cap);
        for (size_t i = 0; i < n; i++)
                o += (size_t)snprintf(b + o, cap - o, "%s%0*zu\n", prefix, width, i);
        *ret_len = o;
        return b;
}

/* Every line of text is a line of the input, the marker, or a fold line. */
static bool lines_whole(const char *text, size_t len, const char *in, size_t in_len)
{
        const char *p = text, *end = text + len;
        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
                if (!(n >= 3 && memcmp(p, "\xe2\x80\xa6", 3) == 0)) {
                        /* search "\n" + line + "\n" in "\n" + input */
                        char *needle = malloc(n + 3);
                        needle[0] = '\n';
                        memcpy(needle + 1, p, n);
                        needle[n + 1] = '\n';
                        needle[n + 2] = 0;
                        char *hay = malloc(in_len + 2);
                        hay[0] = '\n';
                        memcpy(hay + 1, in, in_len);
                        hay[in_len + 1] = 0;
                        bool found = memmem(hay, in_len + 1, needle, n + 2) != NULL;
                        free(needle);
                        free(hay);
                        if (!found)
                                return false;
                }
                p += n + 1;
        }
        return true;
}

static size_t count_lines(const char *s, size_t len)
{
        size_t n = 0;
        for (size_t i = 0; i < len; i++)
                n += s[i] == '\n';
        return n;
}

static void test_split(void)
{
        size_t len;
        char *in = numbered(1000, "line", 3, &len); /* 8 bytes a line */
        result r;
        /* what the rules say, from each line's estimate: the head takes
         * lines while they and a newline fit in 40% of the budget; the tail
         * takes the last lines that fit in the rest less the marker */
        uint64_t u[1000], all = 0, head_max = 100 * 256 * 40 / 100, used = 0;
        size_t head = 0, tail = 0;
        for (size_t i = 0; i < 1000; i++) {
                u[i] = acs_estimate_units(in + i * 8, 8);
                all += u[i];
        }
        while (head < 1000 && used + acs_estimate_units(in + head * 8, 7) + 256 <= head_max)
                used += u[head++];
        char m[200];
        /* the marker is reserved at its largest: as many lines as bytes + 1 */
        int ml = snprintf(m, sizeof m, "\xe2\x80\xa6 [omitted 8,001 lines, 8,000 bytes, ~%d,%03d tokens] \xe2\x80\xa6\n",
                          (int)((all + 255) / 256) / 1000, (int)((all + 255) / 256) % 1000);
        uint64_t alloc = 100 * 256 - used - acs_estimate_units(m, (size_t)ml), tail_units = 0;
        while (tail_units + u[999 - tail] <= alloc)
                tail_units += u[999 - tail++];
        uint64_t om_units = all - used - tail_units;
        diag("head %zu lines, tail %zu lines", head, tail);

        shield_run(100, true, in, len, "", 0, 8, &r);
        acs_stream_result *o = &r.s[0];
        ok(o->truncated, "1000 lines at 100 tokens: truncated");
        ok(strncmp(o->text, "line000\nline001\n", 16) == 0, "head starts with the first line");
        ok(o->text_len > 8 && strcmp(o->text + o->text_len - 8, "line999\n") == 0,
           "tail ends with the last line");
        ok(strstr(o->text, "\xe2\x80\xa6 [omitted ") != NULL, "marker present");
        char last_head[16], first_out[16], first_tail[16], last_out[16];
        snprintf(last_head, sizeof last_head, "line%03zu\n", head - 1);
        snprintf(first_out, sizeof first_out, "line%03zu\n", head);
        snprintf(first_tail, sizeof first_tail, "line%03zu\n", 1000 - tail);
        snprintf(last_out, sizeof last_out, "line%03zu\n", 999 - tail);
        ok(head > 5 && strstr(o->text, last_head) && !strstr(o->text, first_out), "head is 40%% of the budget");
        ok(tail > 5 && strstr(o->text, first_tail) && !strstr(o->text, last_out), "tail gets the rest");
        size_t shown = count_lines(o->text, o->text_len) - 1;
        is_int(o->omitted_lines + shown, 1000, "omitted + shown lines = all lines");
        is_int(o->omitted_lines, 1000 - head - tail, "omitted lines");
        is_int(o->omitted_bytes, o->omitted_lines * 8, "omitted bytes");
        is_int(o->omitted_tokens, (om_units + 255) / 256, "omitted tokens");
        is_int(o->bytes, 8000, "bytes");
        is_int(o->tokens, (all + 255) / 256, "tokens of everything");
        char want[200];
        size_t om = 1000 - head - tail, omt = (size_t)(om_units + 255) / 256;
        snprintf(want, sizeof want, "\xe2\x80\xa6 [omitted %zu lines, %zu,%03zu bytes, ~%zu,%03zu tokens] \xe2\x80\xa6\n", om,
                 om * 8 / 1000, om * 8 % 1000, omt / 1000, omt % 1000);
        ok(strstr(o->text, want) != NULL, "marker says what was omitted: %s", want);
        ok(acs_estimate_tokens(o->text, o->text_len) <= 100, "text within the budget");
        ok(lines_whole(o->text, o->text_len, in, len), "only whole lines");
        is_int(r.live[0], head * 8, "live head is the head's lines");
        /* live + epilogue = text */
        ok(r.epi[0] && r.live[0] + r.epi_len[0] == o->text_len && memcmp(in, o->text, r.live[0]) == 0 &&
                   memcmp(r.epi[0], o->text + r.live[0], r.epi_len[0]) == 0,
           "live prefix + epilogue = text");
        result_done(&r);

        /* one over the budget: something is omitted and said so */
        const char *over = "l00\nl01\nl02\nl03\nl04\nl05\nl06\nl07\nl08\nl09\nx";
        shield_run(10, true, over, strlen(over), "", 0, 7, &r);
        ok(r.s[0].truncated && strstr(r.s[0].text, "[omitted"), "one byte over: marker");
        ok(strncmp(r.s[0].text, "l00\n", 4) == 0, "one byte over: head kept");
        result_done(&r);

        /* variable-length lines are cut only at line boundaries */
        char *var = malloc(200000);
        size_t vl = 0;
        for (int i = 0; i < 3000; i++) {
                int w = (i * 37) % 71;
                vl += (size_t)sprintf(var + vl, "%d:", i);
                memset(var + vl, 'a' + i % 26, (size_t)w);
                vl += (size_t)w;
                var[vl++] = '\n';
        }
        static const size_t chunks[] = {1, 13, 4096, 65536};
        for (size_t c = 0; c < ELEMENTSOF(chunks); c++) {
                shield_run(300, true, var, vl, "", 0, chunks[c], &r);
                ok(lines_whole(r.s[0].text, r.s[0].text_len, var, vl), "whole lines with chunk %zu",
                   chunks[c]);
                ok(acs_estimate_tokens(r.s[0].text, r.s[0].text_len) <= 300, "within budget with chunk %zu",
                   chunks[c]);
                is_int(r.s[0].omitted_lines + count_lines(r.s[0].text, r.s[0].text_len) - 1, 3000,
                       "line count adds up");
                ok(r.prefix_ok[0], "live part is a prefix");
                result_done(&r);
        }
        free(var);
        free(in);
}

/* ---- folding ---------------------------------------------------------- */

static void test_fold(void)
{
        size_t n = 2 + 50000 * 2 + 4;
        char *in = malloc(n + 1);
        strcpy(in, "a\n");
        for (int i = 0; i < 50000; i++)
                memcpy(in + 2 + i * 2, "b\n", 2);
        memcpy(in + 2 + 100000, "end\n", 4);
        result r;
        shield_run(100, true, in, n, "", 0, 4096, &r);
        is_str(r.s[0].text, "a\nb\nb\n\xe2\x80\xa6 repeated 49,998 more times\nend\n",
               "50,000 identical lines fold");
        ok(!r.s[0].truncated && r.s[0].omitted_lines == 0, "folding omits nothing");
        is_int(r.s[0].bytes, n, "bytes of all");
        result_done(&r);
        free(in);

        /* a flood of one line in the middle of a clipped stream */
        size_t len;
        char *nums = numbered(2000, "", 1, &len);
        char *mix = malloc(len + 200100);
        memcpy(mix, nums, len);
        size_t ml = len;
        for (int i = 0; i < 20000; i++) {
                memcpy(mix + ml, "same same\n", 10);
                ml += 10;
        }
        memcpy(mix + ml, "last\n", 5);
        ml += 5;
        shield_run(100, true, mix, ml, "", 0, 999, &r);
        ok(r.s[0].text_len > 5 && strcmp(r.s[0].text + r.s[0].text_len - 5, "last\n") == 0 &&
                   strstr(r.s[0].text, "repeated 19,998 more times\n"),
           "fold survives in the tail");
        ok(r.s[0].truncated, "numbers before it were clipped");
        result_done(&r);
        free(mix);
        free(nums);
}

/* ---- stderr ----------------------------------------------------------- */

static void test_stderr(void)
{
        size_t len;
        char *flood = numbered(300000, "output line ", 1, &len);
        const char *tb = "Traceback (most recent call last):\n"
                         "  File \"<string>\", line 3, in <module>\n"
                         "ZeroDivisionError: division by zero\n";
        static const uint64_t budgets[] = {0, 10, 100, 1000};
        for (size_t b = 0; b < ELEMENTSOF(budgets); b++) {
                result r;
                shield_run(budgets[b], true, flood, len, tb, strlen(tb), 65536, &r);
                const char *e = r.s[1].text;
                size_t el = r.s[1].text_len;
                const char *last = "ZeroDivisionError: division by zero\n";
                ok(el >= strlen(last) && strcmp(e + el - strlen(last), last) == 0,
                   "stderr's last line survives a stdout flood at %llu tokens",
                   (unsigned long long)budgets[b]);
                if (budgets[b] >= 100)
                        is_str(e, tb, "whole traceback kept");
                ok(r.s[0].truncated, "stdout clipped");
                uint64_t tot = acs_estimate_tokens(r.s[0].text, r.s[0].text_len) + acs_estimate_tokens(e, el);
                if (budgets[b] >= 100)
                        ok(tot <= budgets[b], "both streams within %llu tokens (%llu)",
                           (unsigned long long)budgets[b], (unsigned long long)tot);
                result_done(&r);
        }

        /* 100,000 lines on stderr, then the exception */
        char *big = malloc(len + 200);
        memcpy(big, flood, len);
        strcpy(big + len, tb);
        result r;
        shield_run(1000, true, "", 0, big, strlen(big), 4096, &r);
        ok(strstr(r.s[1].text, "ZeroDivisionError: division by zero\n") &&
                   strstr(r.s[1].text, "Traceback (most recent call last):\n"),
           "traceback at the end of a long stderr survives");
        is_str(r.s[0].text, "", "stdout empty");
        ok(!r.s[0].truncated && r.s[0].bytes == 0 && r.epi[0] == NULL, "empty stream: no marker");
        result_done(&r);
        free(big);

        /* one stream empty, the other fits */
        shield_run(100, true, "", 0, "warning\n", 8, 1, &r);
        is_str(r.s[1].text, "warning\n", "stderr only");
        ok(r.live[1] == 8 && !r.epi[1], "stderr streamed live, no epilogue");
        result_done(&r);
        free(flood);
}

/* ---- long lines, live semantics --------------------------------------- */

static void test_long_lines(void)
{
        size_t n = 100000;
        char *x = malloc(n);
        memset(x, 'x', n);
        result r;
        shield_run(100, true, x, n, "", 0, 4096, &r);
        ok(r.s[0].truncated, "one huge line is clipped");
        ok(r.s[0].text_len > 100 && acs_estimate_tokens(r.s[0].text, r.s[0].text_len) <= 100,
           "its beginning is shown within budget");
        is_int(r.live[0], 0, "nothing of it streamed live");
        result_done(&r);

        /* a line that began live and overflows: the head ends mid-line */
        acs_shield *s = acs_shield_new(100, true);
        size_t l1 = acs_shield_feed(s, ACS_STDOUT, "start\npartial", 13);
        size_t l2 = acs_shield_feed(s, ACS_STDOUT, x, 1000);
        size_t l3 = acs_shield_feed(s, ACS_STDOUT, "\nnext\n", 6);
        acs_stream_result o = {}, e = {};
        acs_shield_finish(s, &o, &e);
        size_t el;
        char *epi = acs_shield_epilogue(s, ACS_STDOUT, &el);
        is_int(l1, 13, "partial line streamed");
        ok(l2 > 0 && l2 < 1000, "cut inside the line (%zu)", l2);
        is_int(l3, 0, "nothing live after the cut");
        ok(epi && epi[0] == '\n' && strstr(epi, "[omitted"), "epilogue starts on a new line");
        ok(o.truncated && o.text_len >= 6 && strcmp(o.text + o.text_len - 5, "next\n") == 0,
           "tail after the cut line");
        ok(acs_shield_feed(s, ACS_STDOUT, "late", 4) == 0, "feed after finish returns 0");
        free(epi);
        free(o.text);
        free(e.text);
        acs_shield_free(s);
        free(x);
}

/* ---- memory bound ----------------------------------------------------- */

static void test_memory(void)
{
        static char chunk[4096];
        acs_shield *s = acs_shield_new(1000, true);
        size_t o = 0, i = 0, peak_small = 0, peak = 0;
        uint64_t out_bytes = 0;
        while (o < sizeof chunk - 40)
                o += (size_t)snprintf(chunk + o, sizeof chunk - o, "%zu \x1b[1m\xff\r\n", i++);
        /* 200 MB of short lines, weird bytes, in 4 KiB chunks */
        for (size_t fed = 0; fed < (size_t)200 << 20; fed += o) {
                int which = (fed / o) % 7 == 0 ? ACS_STDERR : ACS_STDOUT;
                acs_shield_feed(s, which, chunk, o);
                out_bytes += which == ACS_STDOUT ? o : 0;
                size_t m = acs_shield_memory(s);
                if (m > peak)
                        peak = m;
                if (fed < (size_t)10 << 20)
                        peak_small = peak;
        }
        /* and one 50 MB line */
        static char xs[65536];
        memset(xs, 'x', sizeof xs);
        for (size_t fed = 0; fed < (size_t)50 << 20; fed += sizeof xs) {
                acs_shield_feed(s, ACS_STDOUT, xs, sizeof xs);
                out_bytes += sizeof xs;
                size_t m = acs_shield_memory(s);
                if (m > peak)
                        peak = m;
        }
        diag("shield memory at 1000 tokens: %zu bytes after 10 MB, %zu after 250 MB", peak_small, peak);
        ok(peak < 24 * 4000 + 8192, "memory bounded by the budget (%zu < %d)", peak, 24 * 4000 + 8192);
        ok(peak <= peak_small * 2, "memory does not grow with the input");
        acs_stream_result out = {}, err = {};
        ok(acs_shield_finish(s, &out, &err) == 0, "finish");
        is_int(out.bytes, out_bytes, "bytes counted");
        ok(out.truncated && err.truncated, "both clipped");
        free(out.text);
        free(err.text);
        acs_shield_free(s);

        acs_shield *big = acs_shield_new(UINT64_MAX, false);
        ok(big != NULL, "huge budgets are clamped");
        acs_shield_free(big);
}

/* ---- randomised invariants -------------------------------------------- */

static bool valid_utf8(const unsigned char *s, size_t n)
{
        for (size_t i = 0; i < n;) {
                unsigned c = s[i], lo = 0x80, hi = 0xBF;
                size_t need;
                if (c < 0x80) {
                        i++;
                        continue;
                } else if (c >= 0xC2 && c <= 0xDF) {
                        need = 1;
                } else if (c >= 0xE0 && c <= 0xEF) {
                        need = 2;
                        lo = c == 0xE0 ? 0xA0 : lo;
                        hi = c == 0xED ? 0x9F : hi;
                } else if (c >= 0xF0 && c <= 0xF4) {
                        need = 3;
                        lo = c == 0xF0 ? 0x90 : lo;
                        hi = c == 0xF4 ? 0x8F : hi;
                } else {
                        return false;
                }
                for (size_t k = 1; k <= need; k++) {
                        if (i + k >= n || s[i + k] < lo || s[i + k] > hi)
                                return false;
                        lo = 0x80;
                        hi = 0xBF;
                }
                i += need + 1;
        }
        return true;
}

static uint64_t rnd_state = 88172645463325252ULL;
static unsigned rnd(void)
{
        rnd_state ^= rnd_state << 13;
        rnd_state ^= rnd_state >> 7;
        rnd_state ^= rnd_state << 17;
        return (unsigned)rnd_state;
}

/* Random mixes of text, newlines, bars, escapes, bad UTF-8 and repeats, fed in
 * random chunks to both streams: the invariants hold whatever comes. */
static void test_random(void)
{
        static char buf[60000];
        static const char *const alpha[] = {
                "a",      "b",        "\n",         "\n",   "\n",
                "xyz",    "\r",       "\x1b[3",     "m",    "\x1b]0;",
                "\x07",   "\xe2\x82", "\xac",       "\xff", "\xf0\x9f\x98\x80",
                "same\n", "same\n",   "0123456789", "\r\n", "\x1b",
        };
        unsigned bad_utf8 = 0, bad_epi = 0, bad_prefix = 0, over = 0, bad_mem = 0;
        double worst = 0;
        for (int iter = 0; iter < 400; iter++) {
                size_t n = 0, target = rnd() % (iter % 10 == 0 ? sizeof buf - 16 : 3000);
                while (n < target) {
                        const char *a = alpha[rnd() % ELEMENTSOF(alpha)];
                        memcpy(buf + n, a, strlen(a));
                        n += strlen(a);
                }
                uint64_t budget = rnd() % 5 == 0 ? rnd() % 20 : rnd() % 2000;
                acs_shield *s = acs_shield_new(budget, rnd() % 4 != 0);
                bool held[2] = {false, false};
                for (size_t off = 0, c; off < n; off += c) {
                        c = 1 + rnd() % (rnd() % 2 ? 16 : 5000);
                        c = c > n - off ? n - off : c;
                        int st = rnd() % 3 == 0;
                        size_t l = acs_shield_feed(s, st, buf + off, c);
                        bad_prefix += held[st] && l;
                        held[st] |= l < c;
                        double ratio = (double)acs_shield_memory(s) / (double)(budget * 4 + 1024);
                        worst = ratio > worst ? ratio : worst;
                        bad_mem += ratio > 48;
                }
                acs_stream_result r[2] = {};
                acs_shield_finish(s, &r[0], &r[1]);
                uint64_t tot = 0;
                for (int i = 0; i < 2; i++) {
                        size_t el;
                        char *e = acs_shield_epilogue(s, i, &el);
                        bad_utf8 += !valid_utf8((unsigned char *)r[i].text, r[i].text_len);
                        bad_epi += e &&
                                   (el > r[i].text_len || memcmp(e, r[i].text + r[i].text_len - el, el) != 0);
                        tot += acs_estimate_tokens(r[i].text, r[i].text_len);
                        free(e);
                        free(r[i].text);
                }
                /* markers are reserved; stderr's floor (64 tokens) may overrun */
                over += budget >= 200 && tot > budget + 64;
                acs_shield_free(s);
        }
        is_int(bad_utf8, 0, "random input: text always valid UTF-8");
        is_int(bad_epi, 0, "random input: epilogue is the end of the text");
        is_int(bad_prefix, 0, "random input: live part is a prefix");
        is_int(over, 0, "random input: both streams within budget (+ stderr floor)");
        diag("worst memory: %.1f bytes per unit of budget (+1024)", worst);
        is_int(bad_mem, 0, "random input: memory within 48 bytes per unit of budget");
}

int main(void)
{
        test_estimate();
        test_exact();
        test_split();
        test_fold();
        test_stderr();
        test_long_lines();
        test_memory();
        test_random();
        return tap_done();
}
