/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Pure parts of the diff: glob matcher, escaping, quoting, JSON round trip, summary. */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "../tap.h"
#include "diff.h"

static const struct {
        const char *pat, *path;
        bool want;
} globs[] = {
        { ".bashrc", ".bashrc", true },
        { ".bashrc", "a/.bashrc", false },
        { "**/.env", ".env", true },
        { "**/.env", "a/.env", true },
        { "**/.env", "a/b/c/.env", true },
        { "**/.env", "a/x.env", false },
        { "**/.env", ".envrc", false },
        { ".git/hooks/**", ".git/hooks/pre-commit", true },
        { ".git/hooks/**", ".git/hooks/a/b", true },
        { ".git/hooks/**", ".git/hooks", false },
        { ".git/hooks/**", ".git/config", false },
        { "*.py", "x.py", true },
        { "*.py", "d/x.py", false },
        { "*", "a/b", false },
        { "a/*/c", "a/b/c", true },
        { "a/*/c", "a/b/d/c", false },
        { "a/**/c", "a/c", true },
        { "a/**/c", "a/b/d/c", true },
        { "a/**/c", "a/b/d/e", false },
        { "a**b", "axxb", true },
        { "a**b", "ax/xb", false },
        { "?.txt", "a.txt", true },
        { "?.txt", "/.txt", false },
        { "?.txt", "ab.txt", false },
        { "[abc].c", "b.c", true },
        { "[!abc].c", "b.c", false },
        { "[!abc].c", "d.c", true },
        { "[a-c]x", "bx", true },
        { "[a-c]x", "dx", false },
        { "[a/b]", "/", false },
        { "\\*", "*", true },
        { "\\*", "x", false },
        { "[unclosed", "[unclosed", true },
        { "**", "anything/at/all", true },
        { "secrets/*.key", "secrets/id.key", true },
        { "", "", true },
        { "", "a", false },
};

static void test_globs(void)
{
        for (size_t i = 0; i < ELEMENTSOF(globs); i++)
                ok(acs_glob_match(globs[i].pat, globs[i].path) == globs[i].want, "glob '%s' %s '%s'",
                   globs[i].pat, globs[i].want ? "matches" : "does not match", globs[i].path);

        char *prot[] = { "secret", ".git/hooks/**", "**/.env", NULL };
        ok(acs_glob_protected(prot, "secret/inner/x"), "a protected parent protects children");
        ok(acs_glob_protected(prot, "sub/.env"), "**/.env protects sub/.env");
        ok(!acs_glob_protected(prot, "secrets"), "prefix of a name is not a parent");
        ok(!acs_glob_protected(NULL, "x"), "no globs protect nothing");
}

static const struct {
        const char *in;
        size_t n;
        const char *want;
        bool escaped;
} escapes[] = {
        { "plain.txt", 9, "plain.txt", false },
        { "caf\xc3\xa9", 5, "caf\xc3\xa9", false },
        { "new\nline", 8, "new\nline", false },
        { "back\\slash", 10, "back\\slash", false },
        { "bad\xff", 4, "bad\\xff", true },
        { "bad\xff\\x", 6, "bad\\xff\\\\x", true },
        { "\xc3", 1, "\\xc3", true },              /* truncated sequence */
        { "\xc0\xaf", 2, "\\xc0\\xaf", true },     /* overlong '/' */
        { "\xed\xa0\x80", 3, "\\xed\\xa0\\x80", true }, /* surrogate */
        { "\xf0\x9f\x98\x80", 4, "\xf0\x9f\x98\x80", false },
};

static void test_escape(void)
{
        for (size_t i = 0; i < ELEMENTSOF(escapes); i++) {
                bool esc = !escapes[i].escaped;
                _cleanup_free_ char *e = acs_escape_bytes(escapes[i].in, escapes[i].n, &esc);

                is_str(e, escapes[i].want, "escape");
                ok(esc == escapes[i].escaped, "escape flag %zu", i);
                if (escapes[i].escaped) {
                        size_t len = 0;
                        _cleanup_free_ char *u = acs_unescape_bytes(e, &len);

                        ok(u && len == escapes[i].n && memcmp(u, escapes[i].in, len) == 0,
                           "unescape round trip %zu", i);
                }
        }
        ok(acs_unescape_bytes("bad\\q", NULL) == NULL, "unescape rejects unknown escapes");
        ok(acs_unescape_bytes("bad\\x00", NULL) == NULL, "unescape rejects NUL");
}

static void test_quote(void)
{
        _cleanup_free_ char *a = acs_quote_c("plain/x.txt", 11);
        _cleanup_free_ char *b = acs_quote_c("new\nline", 8);
        _cleanup_free_ char *c = acs_quote_c("bad\xff\"q", 6);
        _cleanup_free_ char *d = acs_quote_c("t\tb\\", 4);

        is_str(a, "plain/x.txt", "quote: plain stays");
        is_str(b, "\"new\\nline\"", "quote: newline as git");
        is_str(c, "\"bad\\377\\\"q\"", "quote: octal and dquote as git");
        is_str(d, "\"t\\tb\\\\\"", "quote: tab and backslash");
}

static void test_misc(void)
{
        static const char *const safe[] = { "a", "a/b", ".hidden", "..x", "a/..b" };
        static const char *const unsafe[] = { "", "/etc/passwd", "..", "../x", "a/../b",
                                              "a//b", "a/", "./a", "a/." };

        for (size_t i = 0; i < ELEMENTSOF(safe); i++)
                ok(acs_path_is_safe(safe[i]), "safe path '%s'", safe[i]);
        for (size_t i = 0; i < ELEMENTSOF(unsafe); i++)
                ok(!acs_path_is_safe(unsafe[i]), "unsafe path '%s'", unsafe[i]);
        for (acs_ftype t = ACS_FT_FILE; t <= ACS_FT_BLOCK; t++)
                is_int(acs_ftype_from_string(acs_ftype_to_string(t)), t, "ftype name round trip");
}

static acs_change mk(const char *path, acs_ftype t, acs_ftype ot)
{
        acs_change ch = { .path = strdup(path), .path_len = strlen(path), .type = t, .old_type = ot,
                          .mode = 0644, .old_mode = 0644 };
        return ch;
}

static void test_json(void)
{
        acs_changes c = {}, back = {};
        acs_error err = {};
        json_object *j;
        char *buf = NULL;
        size_t len = 0;
        FILE *f;
        const char *s;

        c.added = calloc(3, sizeof *c.added);
        c.added[0] = mk("new\xff.txt", ACS_FT_FILE, ACS_FT_NONE);
        memset(c.added[0].sha256, 'a', 64);
        c.added[1] = mk("link", ACS_FT_SYMLINK, ACS_FT_NONE);
        c.added[1].target = strdup("/etc/passwd");
        c.added[2] = mk("fifo", ACS_FT_FIFO, ACS_FT_NONE);
        c.n_added = 3;
        c.modified = calloc(1, sizeof *c.modified);
        c.modified[0] = mk("t", ACS_FT_DIR, ACS_FT_FILE);
        c.modified[0].mode = 0755;
        memset(c.modified[0].old_sha256, 'b', 64);
        c.n_modified = 1;
        c.deleted = calloc(1, sizeof *c.deleted);
        c.deleted[0] = mk(".env", ACS_FT_NONE, ACS_FT_FILE);
        c.deleted[0].is_protected = true;
        c.n_deleted = 1;

        j = acs_changes_to_json(&c);
        s = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN);
        ok(strstr(s, "\"path\":\"new\\\\xff.txt\",\"path_escaped\":true"), "non-UTF-8 path escaped and flagged");
        ok(strstr(s, "\"target\":\"\\/etc\\/passwd\"") || strstr(s, "\"target\":\"/etc/passwd\""), "symlink target");
        ok(strstr(s, "\"old_type\":\"file\""), "type change has old_type");
        ok(strstr(s, "\"protected\":true"), "protected flagged");
        ok(strstr(s, "\"type\":\"fifo\""), "fifo reported as such");
        is_int(acs_changes_from_json(j, &back, &err), 0, "from_json");
        is_int(back.n_added, 3, "round trip: added");
        ok(back.n_added == 3 && back.added[0].path_len == 8 && memcmp(back.added[0].path, "new\xff.txt", 8) == 0,
           "round trip: raw path bytes");
        ok(back.n_modified == 1 && back.modified[0].old_type == ACS_FT_FILE && back.modified[0].mode == 0755 &&
           back.modified[0].old_mode == 0644, "round trip: type change and modes");
        ok(back.n_deleted == 1 && back.deleted[0].old_type == ACS_FT_FILE && back.deleted[0].is_protected,
           "round trip: deletion");
        json_object_put(j);

        f = open_memstream(&buf, &len);
        acs_changes_print_short(f, &c);
        fclose(f);
        is_str(buf, "D  .env (protected)\nA  fifo (fifo)\nA  link -> /etc/passwd\nA  \"new\\377.txt\"\nT  t/\n",
               "short summary");
        free(buf);
        acs_changes_free(&c);
        acs_changes_free(&back);
}

static void test_bad_json(void)
{
        static const char *const bad[] = {
                "[]",
                "{\"added\":[],\"modified\":[]}",
                "{\"added\":[{\"path\":1,\"type\":\"file\"}],\"modified\":[],\"deleted\":[]}",
                "{\"added\":[{\"path\":\"a\",\"type\":null}],\"modified\":[],\"deleted\":[]}",
                "{\"added\":[{\"path\":\"a\",\"type\":\"file\",\"mode\":420}],\"modified\":[],\"deleted\":[]}",
                "{\"added\":[{\"path\":\"a\",\"type\":\"file\",\"mode\":\"99999\"}],\"modified\":[],\"deleted\":[]}",
                "{\"added\":[{\"path\":\"a\",\"type\":\"file\",\"sha256\":\"xyz\"}],\"modified\":[],\"deleted\":[]}",
                "{\"added\":[{\"path\":\"a\\\\q\",\"path_escaped\":true,\"type\":\"file\"}],\"modified\":[],\"deleted\":[]}",
        };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                json_object *j = json_tokener_parse(bad[i]);
                acs_changes c = {};
                acs_error err = {};

                ok(acs_changes_from_json(j, &c, &err) < 0, "malformed changes rejected: %s", bad[i]);
                json_object_put(j);
        }
}

int main(void)
{
        test_globs();
        test_escape();
        test_quote();
        test_misc();
        test_json();
        test_bad_json();
        {
                acs_error err = {};

                /* not pure: dlopen of libgit2, as a long-lived server would */
                is_int(acs_diff_preload(true, &err), 0, "libgit2 loads lazily");
        }
        return tap_done();
}
