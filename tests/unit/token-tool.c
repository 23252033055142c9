/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The token estimate as tests/tokens/tokens.mjs sees it: for each sample on
 * stdin, the text acs-launch would report for those bytes (the shield with
 * the largest budget: UTF-8 repaired, escapes stripped unless asked to keep
 * them, "\r" collapsed, repeats folded) and the estimate of that text.
 *
 *   in:  "<keep_ansi 0|1> <length>\n" then <length> bytes, repeated
 *   out: "<estimate of text> <stream tokens> <text length>\n" then the text
 *
 * "stream tokens" is the report's stdout.tokens (counted while feeding, on
 * everything the program wrote); for a text that was not folded it equals
 * the estimate of the text, which the test checks too.
 *
 * With --events, a third line follows each text: the estimate's event
 * counts on it and the units it adds besides them ("<fixed> <c0> <c1> ..."),
 * what tests/tokens/fit.py fits the event weights on.
 */
#include <stdio.h>
#include <string.h>

#include "clip.h"

static bool events;

static void print_events(const char *text, size_t len)
{
        uint64_t c[256] = {}, fixed;
        size_t n = acs_tok_events(text, len, c, ELEMENTSOF(c), &fixed, NULL);
        printf("\n%llu", (unsigned long long)fixed);
        for (size_t i = 0; i < n && i < ELEMENTSOF(c); i++)
                printf(" %llu", (unsigned long long)c[i]);
        printf("\n");
}

static int one(FILE *in, int keep_ansi, size_t len)
{
        _cleanup_free_ char *buf = malloc(len ? len : 1);
        if (!buf || fread(buf, 1, len, in) != len)
                return -EIO;
        _cleanup_shield_ acs_shield *s = acs_shield_new(ACS_SHIELD_MAX_TOKENS, !keep_ansi);
        if (!s)
                return -ENOMEM;
        /* odd chunk sizes: the estimate must not depend on where reads end */
        for (size_t off = 0, n; off < len; off += n) {
                n = len - off < 4093 ? len - off : 4093;
                acs_shield_feed(s, ACS_STDOUT, buf + off, n);
        }
        acs_stream_result out = {}, err = {};
        int r = acs_shield_finish(s, &out, &err);
        if (r < 0)
                return r;
        printf("%llu %llu %zu\n", (unsigned long long)acs_estimate_tokens(out.text, out.text_len),
               (unsigned long long)out.tokens, out.text_len);
        fwrite(out.text, 1, out.text_len, stdout);
        if (events)
                print_events(out.text, out.text_len);
        free(out.text);
        free(err.text);
        return 0;
}

int main(int argc, char **argv)
{
        events = argc > 1 && strcmp(argv[1], "--events") == 0;
        int keep;
        size_t len;
        while (scanf("%d %zu", &keep, &len) == 2) {
                if (getchar() != '\n' || one(stdin, keep, len) < 0) {
                        fprintf(stderr, "token-tool: bad input\n");
                        return 1;
                }
        }
        return fflush(stdout) == 0 ? 0 : 1;
}
