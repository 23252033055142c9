/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pure half of write_file/read_file (session-path.c): which paths a
 * client may name (the kernel refuses escapes by ".." and symlinks; these
 * are the ones refused before anything is asked), and what counts as UTF-8
 * text for read_file.
 */
#include <string.h>

#include "../tap.h"
#include "session-files.h"

static const struct {
        const char *path;
        const char *rel; /* NULL: refused */
} paths[] = {
        { "a.csv", "a.csv" },
        { "d/e/f.png", "d/e/f.png" },
        { "/workspace/a.csv", "a.csv" },
        { "/workspace//d/a", "d/a" },
        { "../etc/passwd", "../etc/passwd" }, /* the kernel's to refuse: RESOLVE_BENEATH */
        { "/workspace/../etc/passwd", "../etc/passwd" },
        { "", NULL },
        { "/", NULL },
        { "/workspace", NULL },
        { "/workspace/", NULL },
        { "/workspacefoo/a", NULL },
        { "/etc/passwd", NULL },
        { "/proc/self/root/etc/shadow", NULL },
        { "dir/", NULL },
};

static const struct {
        const char *s;
        size_t n;
        bool ok;
} texts[] = {
        { "plain", 5, true },
        { "caf\xc3\xa9", 5, true },
        { "\xe2\x82\xac \xf0\x9f\x98\x80", 8, true },
        { "nul\0inside", 10, true },
        { "\xff", 1, false },
        { "\xc3", 1, false },           /* cut short */
        { "\xc0\xaf", 2, false },       /* overlong '/' */
        { "\xe0\x80\xaf", 3, false },   /* overlong */
        { "\xed\xa0\x80", 3, false },   /* a surrogate */
        { "\xf4\x90\x80\x80", 4, false }, /* above U+10FFFF */
        { "\xc3\x28", 2, false },       /* not a continuation byte */
};

int main(void)
{
        for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
                const char *got = acs_session_file_rel(paths[i].path, strlen(paths[i].path));
                ok(paths[i].rel ? got && strcmp(got, paths[i].rel) == 0 : !got, "path \"%s\" -> %s", paths[i].path,
                   paths[i].rel ? paths[i].rel : "refused");
        }
        ok(!acs_session_file_rel("a\0b", 3), "a path with a NUL byte is refused");
        static char longp[ACS_SESSION_PATH_MAX + 2], maxp[ACS_SESSION_PATH_MAX + 1];
        memset(longp, 'a', sizeof longp - 1);
        memset(maxp, 'a', sizeof maxp - 1);
        ok(!acs_session_file_rel(longp, sizeof longp - 1), "a path longer than %u bytes is refused", ACS_SESSION_PATH_MAX);
        ok(acs_session_file_rel(maxp, sizeof maxp - 1) == maxp, "a path of %u bytes is taken", ACS_SESSION_PATH_MAX);
        for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
                ok(acs_session_text_ok(texts[i].s, texts[i].n) == texts[i].ok, "text #%zu is %s", i,
                   texts[i].ok ? "UTF-8" : "not UTF-8");
        return tap_done();
}
