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

/* What json-c really writes for s, escaped as the report does, quotes excluded. */
static size_t real_cost(const char *s, size_t n)
{
        _cleanup_free_ char *e = acs_escape_bytes(s, n, NULL);
        json_object *j = json_object_new_string(e);
        size_t len = strlen(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));

        json_object_put(j);
        return len - 2;
}

static void test_cost(void)
{
        static const struct {
                const char *s;
                size_t n;
        } v[] = {
                { "", 0 },
                { "plain/path.txt", 14 },
                { "quote\"back\\slash", 16 },
                { "tab\tnl\ncr\rbs\bff\f", 16 },
                { "ctl\001\037\177", 6 },
                { "\xe4\xb8\xad\xe6\x96\x87", 6 },      /* valid UTF-8 */
                { "bad\xff\xfe", 5 },
                { "mixed\xff\\\"\x01\xe4\xb8\xad", 12 }, /* invalid + backslash + control + CJK */
                { "\xe4\xb8", 2 },                     /* cut sequence */
                { "\xed\xa0\x80", 3 },                 /* surrogate */
                { "\xc0\xaf", 2 },                     /* overlong */
                { "nul\0in", 6 },
        };

        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                bool esc = false;
                size_t c = acs_json_cost(v[i].s, v[i].n, &esc);

                size_t real = real_cost(v[i].s, v[i].n);

                ok(c == real, "json cost exact, case %zu: %zu = %zu", i, c, real);
                ok(acs_json_cost_max(v[i].s, v[i].n) >= c, "json cost bound >= exact, case %zu", i);
                /* cut anywhere: the pieces' bounds bound the whole */
                for (size_t k = 0; k <= v[i].n; k++)
                        if (acs_json_cost_max(v[i].s, k) + acs_json_cost_max(v[i].s + k, v[i].n - k) < c)
                                ok(false, "json cost bound of pieces, case %zu cut %zu", i, k);
        }
        ok(acs_json_cost("a\xff", 2, NULL) == 6, "a non-UTF-8 byte costs 5");
        ok(acs_json_cost("\x01", 1, NULL) == 6, "a control character costs 6");
}

/* acs_change_json_cost is what the entry takes in the report, with its comma,
 * plus the flags set after the walk (protected, change, host_dir_changed)
 * that the entry does not carry yet: never less, at most 17 + 24 more. */
static void test_entry_cost(void)
{
        acs_change v[6] = {};
        acs_changes c = {};

        v[0] = mk("a", ACS_FT_FILE, ACS_FT_NONE);
        memset(v[0].sha256, 'a', 64);
        v[1] = mk("d\xff\xfe/\"q\"\n", ACS_FT_SYMLINK, ACS_FT_FILE);
        v[1].target = strdup("/t\xff\\");
        memset(v[1].old_sha256, 'b', 64);
        v[1].size = 123456789;
        v[1].is_protected = true;
        v[2] = mk("dev", ACS_FT_CHAR, ACS_FT_CHAR);
        v[2].rdev = 0xffffffffffffull;
        v[2].mode = 0600;
        v[3] = mk("gone", ACS_FT_NONE, ACS_FT_SYMLINK);
        v[3].old_target = strdup("\x01old");
        v[3].old_size = 4;
        v[4] = mk("t", ACS_FT_DIR, ACS_FT_FILE);
        v[4].old_size = 1ull << 40;
        memset(v[4].old_sha256, 'c', 64);
        v[5] = mk("", ACS_FT_FILE, ACS_FT_FILE);
        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                bool deleted = i == 3;
                c.added = deleted ? NULL : &v[i];
                c.n_added = deleted ? 0 : 1;
                c.deleted = deleted ? &v[i] : NULL;
                c.n_deleted = deleted ? 1 : 0;
                json_object *j = acs_changes_to_json(&c);
                json_object *e = json_object_array_get_idx(json_object_object_get(j, deleted ? "deleted" : "added"), 0);
                size_t real = strlen(json_object_to_json_string_ext(e, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)) + 1;
                size_t est = acs_change_json_cost(&v[i], deleted);

                ok(est >= real && est <= real + 17 + 24,
                   "entry %zu: cost %zu bounds its JSON size with a comma (%zu) and the later flags", i, est, real);
                json_object_put(j);
        }
        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                free(v[i].path);
                free(v[i].target);
                free(v[i].old_target);
        }
}

static void test_clip(void)
{
        acs_changes c = {}, back = {};
        acs_error err = {};
        char *buf = NULL;
        size_t len = 0;
        FILE *f;

        c.added = calloc(4, sizeof *c.added);
        for (int i = 0; i < 4; i++) {
                char p[8];

                snprintf(p, sizeof p, "f%d", i);
                c.added[i] = mk(p, ACS_FT_FILE, ACS_FT_NONE);
                c.added[i].size = 10;
        }
        c.n_added = 4;
        c.deleted = calloc(1, sizeof *c.deleted);
        c.deleted[0] = mk("old", ACS_FT_NONE, ACS_FT_FILE);
        c.deleted[0].old_size = 7;
        c.n_deleted = 1;
        c.patch = strdup("diff --git a/f0 b/f0\n");
        c.patch_len = strlen(c.patch);

        acs_changes_clip(&c, SIZE_MAX);
        ok(!c.patch && c.patch_omitted && !c.truncated && c.n_added == 4, "clip: the patch goes first, the lists stay");
        acs_changes_clip(&c, 1);
        ok(c.n_added == 1 && c.n_deleted == 1 && c.truncated, "clip: each list keeps its head");
        ok(c.omitted_entries == 3 && c.omitted_bytes == 30 && c.omitted_dirs == 0, "clip: what went is counted");
        acs_changes_clip(&c, 0);
        ok(c.omitted_entries == 5 && c.omitted_bytes == 47, "clip: deletions count their old size");

        json_object *j = acs_changes_to_json(&c);
        const char *s = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN);
        ok(strstr(s, "\"truncated\":true") && strstr(s, "\"omitted\":{\"entries\":5,\"bytes\":47,\"dirs\":0}"),
           "truncated lists say what they omit: %s", s);
        is_int(acs_changes_from_json(j, &back, &err), 0, "omitted: from_json");
        ok(back.truncated && back.omitted_entries == 5 && back.omitted_bytes == 47, "omitted: round trip");
        json_object_put(j);

        f = open_memstream(&buf, &len);
        acs_changes_print_short(f, &c);
        fclose(f);
        is_str(buf, "...  (5 more changes not listed)\n", "short summary of a list clipped to nothing");
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
        test_cost();
        test_entry_cost();
        test_clip();
        test_bad_json();
        {
                acs_error err = {};

                /* not pure: what a long-lived server readies before it forks */
                is_int(acs_diff_preload(true, &err), 0, "the diff readies itself for a server (no library to load)");
        }
        return tap_done();
}
