/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pure parts of the scan: finding text made safe to show
 * (src/scan-text.c) and the str.format template parser fed whole or in
 * pieces (src/scan-rules.c).
 */
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "scan-rules.h"
#include "scan-text.h"

static void clean_text(void)
{
        static const struct {
                const char *in;
                size_t max;
                const char *want;
                const char *what;
        } cases[] = {
                {"os", 200, "os", "plain ASCII is kept"},
                {"中文名", 200, "中文名", "printable non-ASCII is kept"},
                {"\x1b]0;PWNED\x07", 200, "\\x1b]0;PWNED\\x07", "an OSC title sequence is escaped"},
                {"a\nb\tc\rd", 200, "a\\x0ab\\x09c\\x0dd", "newline, tab and CR are escaped"},
                {"x\x7fy", 200, "x\\x7fy", "DEL is escaped"},
                {"\xc2\x9b"
                 "31m",
                 200, "\\x9b31m", "a C1 control (CSI) is escaped"},
                {"a\xe2\x80\xae"
                 "b",
                 200, "a\\u202eb", "a bidi override is escaped"},
                {"a\xe2\x81\xa6"
                 "b\xe2\x80\x8b"
                 "c\xef\xbb\xbf",
                 200, "a\\u2066b\\u200bc\\ufeff", "isolates, zero-width space and BOM are escaped"},
                {"a\xff"
                 "b",
                 200, "a\\xffb", "a byte that is not UTF-8 is escaped"},
                {"\xe4\xb8", 200, "\\xe4\\xb8", "a truncated sequence is escaped byte by byte"},
                {"\xc0\xaf", 200, "\\xc0\\xaf", "an overlong encoding is not UTF-8"},
                {"\xed\xa0\x80", 200, "\\xed\\xa0\\x80", "a surrogate is not UTF-8"},
                {"abcdefgh", 8, "abcdefgh", "exactly max bytes: not cut"},
                {"abcdefghi", 8, "abcde…", "one byte over: cut, with the ellipsis inside max"},
                {"中中中中", 8, "中…", "cut at a character boundary"},
                {"ab\x1b"
                 "cdef",
                 8, "ab…", "never inside an escape"},
                {"", 200, "", "empty"},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                char *got = acs_scan_clean_text(cases[i].in, cases[i].max);
                is_str(got, cases[i].want, cases[i].what);
                free(got);
        }

        /* a long name: at most the cap, valid UTF-8, ending in the ellipsis */
        char big[3 * 400 + 1] = "";
        for (int i = 0; i < 400; i++)
                strcat(big, "中");
        char *got = acs_scan_clean_text(big, ACS_FINDING_NAME_MAX);
        size_t n = strlen(got);
        ok(n <= ACS_FINDING_NAME_MAX && n >= ACS_FINDING_NAME_MAX - 3, "a 1200-byte name is cut to %zu bytes",
           n);
        ok(strcmp(got + n - 3, "…") == 0 && (n - 3) % 3 == 0, "at a character boundary, then the ellipsis");
        char *again = acs_scan_clean_text(got, ACS_FINDING_NAME_MAX);
        is_str(again, got, "cleaning is idempotent");
        free(again);
        free(got);
}

/* ---- templates ---- */

typedef struct {
        char seen[1024];
} attrs;

static int collect(void *ud, const char *attr)
{
        attrs *a = ud;
        if (a->seen[0])
                strcat(a->seen, ",");
        strncat(a->seen, attr, sizeof a->seen - strlen(a->seen) - 1);
        return 0;
}

static void whole_and_pieces(void)
{
        static const struct {
                const char *tmpl, *want;
        } cases[] = {
                {"{0.__class__}", "__class__"},
                {"{0.__class__.__mro__[1]}", "__class__,__mro__"},
                {"{{0.__class__}}", ""},
                {"{{{0.__class__}}}", "__class__"},
                {"{x[a.b].c!r:>10}", "c"},
                {"{0.a{1.b}", "a,b"},
                {"{0:{1.__dict__}}", "__dict__"},
                {"hello {name}.x {0.y}", "y"},
                {"{0.abc", "abc"},
                {"{0..a}", "a"},
                {"plain text. no fields", ""},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                attrs whole = {""};
                acs_rules_format_attrs(cases[i].tmpl, collect, &whole);
                is_str(whole.seen, cases[i].want, cases[i].tmpl);
                /* every split point gives the same as the whole */
                size_t len = strlen(cases[i].tmpl);
                bool same = true;
                for (size_t cut = 0; cut <= len; cut++) {
                        attrs part = {""};
                        acs_fmt_stream f;
                        acs_fmt_init(&f, collect, &part);
                        acs_fmt_feed(&f, cases[i].tmpl, cut);
                        acs_fmt_feed(&f, cases[i].tmpl + cut, len - cut);
                        acs_fmt_end(&f);
                        same &= strcmp(part.seen, whole.seen) == 0;
                }
                ok(same, "%s: fed in two pieces at every split point", cases[i].tmpl);
        }

        /* a long attribute name: 255 bytes of it are reported, as before */
        char tmpl[600] = "{0.";
        memset(tmpl + 3, 'x', 300);
        strcpy(tmpl + 303, "}");
        attrs a = {""};
        acs_rules_format_attrs(tmpl, collect, &a);
        ok(strlen(a.seen) == 255, "an attribute name is reported up to 255 bytes");
}

static void states(void)
{
        attrs a = {""};
        acs_fmt_stream f, g;
        acs_fmt_init(&f, collect, &a);
        g = f;
        acs_fmt_feed(&f, "abc", 3);
        ok(acs_fmt_same(&f, &g), "text outside fields leaves the state as it was");
        acs_fmt_feed(&f, "{", 1);
        ok(!acs_fmt_same(&f, &g), "an opening brace does not");
        acs_fmt_feed(&f, "{", 1);
        ok(acs_fmt_same(&f, &g), "a doubled brace is text again");
        acs_fmt_feed(&f, "{0.ab", 5);
        g = f;
        acs_fmt_feed(&f, "c", 1);
        ok(!acs_fmt_same(&f, &g), "a growing attribute name changes the state");
}

int main(void)
{
        clean_text();
        whole_and_pieces();
        states();
        return tap_done();
}
