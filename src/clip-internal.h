/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The token shield's insides, shared by clip.c (input cleaning, line
 * assembly, the live head) and clip-tail.c (the folder, the tail ring, the
 * final split of the budget). Not an interface: only clip.h is.
 */
#pragma once

#include <string.h>
#include <sys/types.h>

#include "ansi.h"
#include "clip.h"

#define UNITS_PER_TOKEN 256 /* the estimate's resolution (clip-tokens.c) */
#define HEAD_PERCENT 40
#define GRACE_PERCENT 10
#define STDERR_FLOOR (64 * UNITS_PER_TOKEN)   /* units the end of stderr always gets */
#define MIN_LINECAP 256                       /* bytes of one line kept, at least */
#define LINECAP_PER_TOKEN 16                  /* and per token of budget (text has 3-6) */
#define ENTRY_SPECIAL 0x80000000u             /* ring entry header flag */
#define FOLD_MIN 4                            /* runs this long or longer are folded */
#define ELLIPSIS "\xe2\x80\xa6"               /* U+2026 */

/* The estimate's state on a line (clip-tokens.c): what came before. */
typedef struct acs_tok {
        uint32_t prev; /* previous code point */
        uint32_t run;  /* code points in the run of its class */
        uint32_t pos;  /* code points on the line so far */
        uint32_t same; /* copies of prev that end the line so far */
        uint8_t cls;   /* its class */
        uint8_t before; /* the class before its run */
        bool cheap;    /* it is a one-token CJK character */
        bool paired;   /* it ended a one-token pair */
        bool spaced;   /* it came right after a space */
} acs_tok;

/* The line being assembled. */
typedef struct line {
        acs_strbuf text; /* cleaned content, at most linecap bytes kept */
        uint64_t len;   /* cleaned bytes, including those not kept */
        uint64_t units; /* units of all of it */
        acs_tok tok;    /* the estimate's state after it */
        uint64_t xhash; /* hash of the bytes beyond linecap */
        uint64_t raw;   /* bytes the program wrote for this line so far */
} line;

/* Ring entry header for entries that are not a plain line (fold, cleaned, cut). */
typedef struct entry_extra {
        uint64_t raw;   /* bytes the program wrote for it */
        uint64_t lines; /* lines it stands for */
        uint64_t units; /* units of all those lines, had they been shown */
} entry_extra;

typedef struct stream {
        /* UTF-8 decoder */
        uint32_t cp;
        int need;
        uint8_t lo, hi;
        /* ANSI escapes and controls (ansi.h) */
        acs_ansi ansi;
        bool pending_cr;
        line cur;
        /* live head */
        bool live;      /* every byte so far went to the terminal */
        bool head_cut;  /* the head ends inside a line */
        bool skip_line; /* dropping the rest of the line cut at the head */
        acs_strbuf head;
        uint64_t head_units, head_lines;
        size_t head_last_off; /* last complete line in head (without "\n") */
        size_t head_last_len;
        bool head_has_last;
        unsigned head_run; /* how many identical lines end the head */
        /* folder: the current run of identical lines */
        bool have_prev;
        line prev; /* its text (raw = sum over the run) */
        bool prev_nl;
        uint64_t run, shown; /* lines in the run; of those already in the head */
        /* tail ring: entries [ring_start, ring.len) */
        acs_strbuf ring;
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

/* Feed context: where we are in the caller's chunk. */
typedef struct chunk {
        size_t off;       /* offset of the byte being processed */
        size_t cp_off;    /* offset where the current code point began */
        ssize_t line_off; /* offset where the current line began, -1: earlier chunk */
        size_t live_end;  /* result of feed */
} chunk;
/* ---- units ------------------------------------------------------------ */

/* clip-tokens.c: units of code point cp (not "\n") after what t describes;
 * of the newline that ends t's line (t starts over); of valid UTF-8 text
 * that follows what t describes. */
unsigned acs_tok_cp(acs_tok *t, uint32_t cp);
unsigned acs_tok_newline(acs_tok *t);
uint64_t acs_tok_units(acs_tok *t, const char *buf, size_t len);

/* Units of the newline that ends line l. */
static inline unsigned acs_clip_nl_units(const line *l)
{
        acs_tok t = l->tok;
        return acs_tok_newline(&t);
}

static inline uint64_t units_to_tokens(uint64_t u)
{
        return (u + UNITS_PER_TOKEN - 1) / UNITS_PER_TOKEN;
}

static inline uint64_t head_used(const acs_shield *s)
{
        return s->st[0].head_units + s->st[1].head_units;
}
/* clip-tail.c, which clip.c calls (never the other way): the folder of
 * repeated lines, and the finished streams' text within the budget */
int acs_clip_build(acs_shield *s, acs_stream_result *ret_out, acs_stream_result *ret_err);
void acs_clip_fold_push(acs_shield *s, stream *t, bool nl);
void acs_clip_fold_flush(acs_shield *s, stream *t);
