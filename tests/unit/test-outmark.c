/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Table-driven tests of outmark: the program's lines that could pass for ours. */
#include <stdio.h>
#include <string.h>

#include "../tap.h"
#include "outmark.h"

typedef struct sink {
        char buf[1024];
        size_t n;
} sink;

static void collect(void *ud, const char *p, size_t n)
{
        sink *s = ud;
        if (s->n + n < sizeof s->buf) {
                memcpy(s->buf + s->n, p, n);
                s->n += n;
        }
        s->buf[s->n] = '\0';
}

typedef struct grow {
        char *p;
        size_t n;
} grow;

static void collect_big(void *ud, const char *p, size_t k)
{
        grow *g = ud;
        memcpy(g->p + g->n, p, k);
        g->n += k;
}

static const struct {
        const char *in, *want, *name;
} table[] = {
        { "hello\n", "hello\n", "an ordinary line passes unchanged" },
        { "acs-launch: files: no changes\n", "[program] acs-launch: files: no changes\n", "our prefix at the start" },
        { "out\nacs-launch: exited with status 0 (scan pass)\n",
          "out\n[program] acs-launch: exited with status 0 (scan pass)\n", "our prefix after a newline" },
        { "x acs-launch: y\n", "x acs-launch: y\n", "not at the start of a line: unchanged" },
        { "acs-launch -h\n", "acs-launch -h\n", "the name without the colon: unchanged" },
        { "acs-launc", "acs-launc", "a partial match at the end is written at the flush" },
        { "acs-launchx\n", "acs-launchx\n", "a mismatch late in the prefix" },
        { "aacs-launch:\n", "aacs-launch:\n", "a mismatch, then the prefix inside the line" },
        { "progress\racs-launch: done\n", "progress\r[program] acs-launch: done\n", "after a carriage return" },
        { "x\bacs-launch: y", "x\b[program] acs-launch: y", "after a backspace" },
        { "\tacs-launch: y", "\tacs-launch: y", "a tab does not start a line" },
        { "\x1b[2K\x1b[1Gacs-launch: y\n", "\x1b[2K\x1b[1G[program] acs-launch: y\n", "after CSI sequences" },
        { "\x1b]0;title\x07" "acs-launch: y", "\x1b]0;title\x07[program] acs-launch: y", "after an OSC ended by BEL" },
        { "\x1b]0;t\x1b\\acs-launch: y", "\x1b]0;t\x1b\\[program] acs-launch: y", "after an OSC ended by ST" },
        { "\x1b" "7acs-launch: y", "\x1b" "7[program] acs-launch: y", "after a two-byte escape" },
        { "\x1b[acs-launch: y", "\x1b[acs-launch: y", "inside an escape sequence: unchanged" },
        { "acs-launch:acs-launch:\nacs-launch:", "[program] acs-launch:acs-launch:\n[program] acs-launch:",
          "once per line start" },
        { "", "", "nothing in, nothing out" },
};

static void run(const char *in, size_t split, sink *s, acs_outmark *m)
{
        size_t len = strlen(in);
        *m = ACS_OUTMARK_INIT;
        s->n = 0;
        s->buf[0] = '\0';
        if (split > len)
                split = len;
        acs_outmark_feed(m, in, split, collect, s);
        for (size_t i = split; i < len; i++) /* the rest byte by byte */
                acs_outmark_feed(m, in + i, 1, collect, s);
        acs_outmark_flush(m, collect, s);
}

int main(void)
{
        for (size_t t = 0; t < ELEMENTSOF(table); t++) {
                size_t len = strlen(table[t].in);
                bool all = true;
                sink s;
                acs_outmark m;
                for (size_t split = 0; split <= len; split++) {
                        run(table[t].in, split, &s, &m);
                        if (strcmp(s.buf, table[t].want) != 0) {
                                all = false;
                                diag("split at %zu: got '%s'", split, s.buf);
                                break;
                        }
                }
                ok(all, "%s (at every chunk boundary)", table[t].name);
        }

        sink s;
        acs_outmark m;
        run("partial", 99, &s, &m);
        ok(!acs_outmark_at_line_start(&m), "after 'partial': not at a line start");
        run("line\n", 99, &s, &m);
        ok(acs_outmark_at_line_start(&m), "after a newline: at a line start");
        run("", 0, &s, &m);
        ok(acs_outmark_at_line_start(&m), "nothing written: at a line start");

        /* a long input goes out whole, in order, with every line marked */
        static char big[20000], want[40000];
        size_t n = 0, w = 0;
        while (n + 13 < sizeof big) {
                memcpy(big + n, "acs-launch:x\n", 13);
                memcpy(want + w, "[program] acs-launch:x\n", 23);
                n += 13;
                w += 23;
        }
        grow g = { malloc(sizeof want), 0 };
        m = ACS_OUTMARK_INIT;
        acs_outmark_feed(&m, big, n, collect_big, &g);
        acs_outmark_flush(&m, collect_big, &g);
        ok(g.n == w && memcmp(g.p, want, w) == 0, "%zu marked lines in one feed", n / 13);
        free(g.p);
        return tap_done();
}
