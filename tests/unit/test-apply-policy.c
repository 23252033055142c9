/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The write-back's rules (apply-policy.c, apply-classify.c), table-driven:
 * name folding, the built-in list, protect patterns (and the per-directory
 * classification agreeing with the reference matcher), git directories by
 * shape, configuration places, symlinks, modes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "apply-policy.h"

static void test_fold(void)
{
        static const struct {
                const char *in, *want;
        } t[] = {
                { ".Git", ".git" },
                { ".BASHRC", ".bashrc" },
                { ".ba\xc5\xbfhrc", ".bashrc" },        /* U+017F long s */
                { "\xe2\x84\xaashrc", "kshrc" },        /* U+212A Kelvin sign */
                { ".g\xc4\xb1t", ".git" },              /* U+0131 dotless i */
                { ".G\xc4\xb0T", ".git" },              /* U+0130 dotted I */
                { ".git.", ".git" },
                { ".git. . ", ".git" },
                { "a.b", "a.b" },
                { "\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9" }, /* other letters stay */
                { "sub/.GIT./Config", "sub/.git/config" },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                _cleanup_free_ char *f = acs_fold_path(t[i].in);

                is_str(f, t[i].want, t[i].in);
        }
}

static void test_builtin(void)
{
        static const struct {
                const char *path, *want;
        } t[] = {
                { ".git", ".git" },
                { ".git/config", ".git" },
                { "sub/.git/hooks/pre-commit", ".git" },
                { "a/b/.hg/hgrc", ".hg" },
                { "x/.svn/entries", ".svn" },
                { ".gitmodules", ".gitmodules" },
                { "deep/er/.zshenv", ".zshenv" },
                { ".bash_logout", ".bash_logout" },
                { "p/.profile", ".profile" },
                { ".vscode/tasks.json", ".vscode" },
                { "w/.idea/workspace.xml", ".idea" },
                { ".mcp.json", ".mcp.json" },
                { "x/.claude/settings.json", ".claude" },
                { ".cursor/mcp.json", ".cursor" },
                { ".codex/config.toml", ".codex" },
                { "home/.config/git/config", ".config/git" },
                { ".config/acs/profiles/default.ini", ".config/acs" },
                { "k/acs-keep.json", "acs-keep.json" },
                { ".ssh/authorized_keys", ".ssh" },
                { "config/git", NULL },      /* a pair, not any "git" */
                { ".config/gitx", NULL },
                { ".bashrc.bak", NULL },
                { "my.git/x", NULL },
                { "src/main.c", NULL },
                { "gitconfig", NULL },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                _cleanup_free_ char *f = acs_fold_path(t[i].path);

                is_str(acs_protect_builtin_match(f), t[i].want, t[i].path);
        }
}

static const struct {
        const char *pat, *path;
        bool want;
} globs[] = {
        { ".env", ".env", true },
        { ".env", "a/b/.env", true },            /* any depth */
        { ".env", "a/.env/x", true },            /* and below */
        { ".env", "a/x.env", false },
        { "/.env", ".env", true },               /* anchored */
        { "/.env", "a/.env", false },
        { "*.key", "d/id.key", true },
        { "*.key", "d/id.key.pub", false },
        { "*.KEY", "ID.key", true },             /* folded */
        { "secrets", "x/secrets/a", true },
        { "secrets", "x/secretsfile", false },
        { "secrets/*.key", "x/secrets/a.key", true },
        { "secrets/*.key", "x/secrets/b/a.key", false },
        { "/secrets/*.key", "secrets/a.key", true },
        { "/secrets/*.key", "x/secrets/a.key", false },
        { "a/**/c", "x/a/c", true },
        { "a/**/c", "x/a/b/d/c/e", true },
        { "a/**/c", "x/a/b/d/e", false },
        { "/a/**", "a/b", true },
        { "/a/**", "b/a/c", false },
        { "dir/", "q/dir/x", true },             /* a trailing '/' is ignored */
        { "[Ab]x", "q/bx", true },
        { "[!a]x", "ax", false },
        { "?", "q/z", true },
        { "?", "zz", false },
        { "\\*", "a/*", true },
        { "\\*", "a/b", false },
        { "build/*/out", "build/x/out", true },
        { "build/*/out", "p/build/x/out/y", true },
        { "build/*/out", "build/x/y/out", false },
};

/* The per-directory classification (apply-classify.c) and the reference
 * matcher (acs_globset_match) agree on every pattern. */
static void test_globs(void)
{
        for (size_t i = 0; i < ELEMENTSOF(globs); i++) {
                char *pats[] = { (char *)globs[i].pat, NULL };
                _cleanup_free_ char *f = acs_fold_path(globs[i].path);
                acs_globset g = {};
                acs_change ch = { .path = (char *)globs[i].path, .type = ACS_FT_FILE };
                acs_changes c = { .added = &ch, .n_added = 1 };
                acs_protect_in in = { .globs = &g, .seed = 42 };
                acs_protect_out o = {};

                ok(acs_globset_compile(pats, &g) == 0, "compile '%s'", globs[i].pat);
                ok((acs_globset_match(&g, f) != NULL) == globs[i].want, "pattern '%s' %s '%s'", globs[i].pat,
                   globs[i].want ? "protects" : "does not protect", globs[i].path);
                ok(acs_protect_classify(&c, &in, &o) == 0 &&
                           (o.added[0].kind == ACS_PROT_GLOB) == globs[i].want,
                   "classify agrees: '%s' on '%s'", globs[i].pat, globs[i].path);
                acs_protect_out_done(&o);
                acs_globset_done(&g);
        }
        char *prot[] = { "secret", ".git/hooks/**", "**/.env", NULL };
        ok(acs_glob_protected(prot, "sub/.env"), "acs_glob_protected: the profile's semantics");
        ok(acs_glob_protected(prot, "a/secret/x"), "acs_glob_protected: at any depth");
        ok(!acs_glob_protected(prot, "secrets"), "acs_glob_protected: a prefix of a name is not a parent");
}

static void test_symlinks(void)
{
        static const struct {
                const char *path, *target, *resolved; /* NULL: refused */
        } t[] = {
                { "l", "a.txt", "a.txt" },
                { "l", ".", "" },
                { "d/l", "../a.txt", "a.txt" },
                { "d/e/l", "../../a", "a" },
                { "d/l", "./x/./y", "d/x/y" },
                { "d/l", "..", "" },
                { "l", "..", NULL },
                { "d/l", "../..", NULL },
                { "d/l", "../../x", NULL },
                { "l", "/etc/passwd", NULL },
                { "l", "", NULL },
                { "l", "x/../y", NULL },          /* '..' after a name */
                { "d/l", "../x/../../y", NULL },
                { "out.log", "/home/u/.bashrc", NULL },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                _cleanup_free_ char *r = NULL;
                const char *why = NULL;
                int k = acs_symlink_resolve(t[i].path, t[i].target, &r, &why);
                const char *w = why ? why : "?";

                if (t[i].resolved)
                        ok(k == 1 && r && strcmp(r, t[i].resolved) == 0, "symlink %s -> %s stays inside (%s)",
                           t[i].path, t[i].target, r ? r : "?");
                else
                        ok(k == 0 && why, "symlink %s -> %s refused: %s", t[i].path, t[i].target, w);
        }
}

static void test_modes(void)
{
        static const struct {
                acs_ftype t;
                bool exists;
                uint32_t host, sandbox, umask, want;
        } t[] = {
                { ACS_FT_FILE, false, 0, 06777, 022, 0755 },
                { ACS_FT_FILE, false, 0, 06666, 022, 0644 },
                { ACS_FT_FILE, false, 0, 0600, 022, 0600 },   /* narrowed stays narrow */
                { ACS_FT_FILE, false, 0, 0777, 077, 0700 },
                { ACS_FT_FILE, false, 0, 0644, 002, 0644 },   /* never wider than the defaults */
                { ACS_FT_DIR, false, 0, 03777, 022, 0755 },
                { ACS_FT_DIR, false, 0, 0700, 022, 0700 },
                { ACS_FT_DIR, false, 0, 0500, 022, 0700 },    /* the owner keeps rwx */
                { ACS_FT_FILE, true, 0700, 0777, 022, 0700 },
                { ACS_FT_FILE, true, 0640, 04755, 022, 0740 },
                { ACS_FT_FILE, true, 0755, 0644, 022, 0644 }, /* the owner's x bit comes from the sandbox */
                { ACS_FT_FILE, true, 0644, 0600, 022, 0600 },
                { ACS_FT_FILE, true, 04755, 04755, 022, 0755 }, /* new content: no setuid */
                { ACS_FT_DIR, true, 0755, 01777, 022, 0755 },
                { ACS_FT_DIR, true, 02775, 0777, 022, 02775 },  /* the host's own setgid stays */
                { ACS_FT_DIR, true, 0755, 0700, 022, 0700 },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                uint32_t m = t[i].exists ? acs_apply_mode_existing(t[i].t, t[i].host, t[i].sandbox)
                                         : acs_apply_mode_new(t[i].t, t[i].sandbox, t[i].umask);

                ok(m == t[i].want, "%s %s %04o, sandbox %04o, umask %03o -> %04o (got %04o)",
                   t[i].exists ? "existing" : "new", acs_ftype_to_string(t[i].t), t[i].host, t[i].sandbox,
                   t[i].umask, t[i].want, m);
                if (!t[i].exists)
                        continue;
                ok(!(m & ~t[i].host & 07677), "never wider than the host's %04o but for the owner's x bit", t[i].host);
        }
}

/* A fake host: directories with markers and identities. */
typedef struct fake_dir {
        const char *path;
        unsigned markers;
        uint64_t ino;
} fake_dir;

static int fake_probe(void *u, const char *path, size_t len, unsigned known, acs_host_dir *ret)
{
        for (const fake_dir *d = u; d->path; d++)
                if (strlen(d->path) == len && memcmp(d->path, path, len) == 0) {
                        *ret = (acs_host_dir){ .exists = true, .markers = d->markers, .dev = 1, .ino = d->ino };
                        return 0;
                }
        return 0;
}

#define REPO (ACS_MARK_HEAD | ACS_MARK_OBJECTS | ACS_MARK_REFS)

static void test_classify(void)
{
        static const fake_dir host[] = {
                { "", 0, 2 }, { "bare", REPO, 3 }, { "pp", 0, 5 }, { "sub", 0, 6 }, { "wt", ACS_MARK_HEAD | ACS_MARK_COMMONDIR, 7 },
                { "half", ACS_MARK_HEAD, 8 }, {},
        };
        static const struct {
                char list;
                const char *path;
                acs_ftype type, old_type;
                const char *target;
                acs_prot_kind want;
        } t[] = {
                { 'M', "bare/config", ACS_FT_FILE, ACS_FT_FILE, NULL, ACS_PROT_REPO },
                { 'A', "bare/hooks/post-update", ACS_FT_FILE, 0, NULL, ACS_PROT_REPO },
                { 'A', "wt/config", ACS_FT_FILE, 0, NULL, ACS_PROT_REPO },       /* a worktree's gitdir */
                { 'A', "half/config", ACS_FT_FILE, 0, NULL, ACS_PROT_NONE },     /* HEAD alone is not a repo */
                { 'A', "nb", ACS_FT_DIR, 0, NULL, ACS_PROT_REPO },               /* made by the program */
                { 'A', "nb/HEAD", ACS_FT_FILE, 0, NULL, ACS_PROT_REPO },
                { 'A', "nb/Objects", ACS_FT_DIR, 0, NULL, ACS_PROT_REPO },
                { 'A', "nb/config", ACS_FT_FILE, 0, NULL, ACS_PROT_REPO },
                { 'A', "pp/default.ini", ACS_FT_FILE, 0, NULL, ACS_PROT_CONFIG },
                { 'A', "xdg", ACS_FT_DIR, 0, NULL, ACS_PROT_NONE },
                { 'A', "xdg/ACS", ACS_FT_DIR, 0, NULL, ACS_PROT_NONE },
                { 'A', "xdg/ACS/Profiles", ACS_FT_DIR, 0, NULL, ACS_PROT_CONFIG },
                { 'A', "xdg/ACS/Profiles/default.ini", ACS_FT_FILE, 0, NULL, ACS_PROT_CONFIG },
                { 'A', "xdg/acs/other", ACS_FT_FILE, 0, NULL, ACS_PROT_NONE },
                { 'A', "sub/ok.txt", ACS_FT_FILE, 0, NULL, ACS_PROT_NONE },
                { 'A', "sub/.Git/config", ACS_FT_FILE, 0, NULL, ACS_PROT_BUILTIN },
                { 'A', "l1", ACS_FT_SYMLINK, 0, "sub/.git/config", ACS_PROT_LINK },
                { 'A', "sub/l2", ACS_FT_SYMLINK, 0, "../bare", ACS_PROT_LINK },
                { 'A', "sub/l3", ACS_FT_SYMLINK, 0, "ok.txt", ACS_PROT_NONE },
                { 'D', "gone", 0, ACS_FT_DIR, NULL, ACS_PROT_HOLDS },
                { 'D', "gone/.vscode", 0, ACS_FT_DIR, NULL, ACS_PROT_BUILTIN },
                { 'D', "gone/.vscode/x", 0, ACS_FT_FILE, NULL, ACS_PROT_BUILTIN },
                { 'D', "gone2", 0, ACS_FT_DIR, NULL, ACS_PROT_NONE },
                { 'D', "gone2/f", 0, ACS_FT_FILE, NULL, ACS_PROT_NONE },
        };
        acs_change a[ELEMENTSOF(t)], m[ELEMENTSOF(t)], d[ELEMENTSOF(t)];
        acs_changes c = { .added = a, .modified = m, .deleted = d };
        size_t idx[ELEMENTSOF(t)];
        char *tail[] = { "xdg", "acs", "profiles", NULL }; /* $XDG_CONFIG_HOME = WS/xdg, not there yet */
        acs_guard g[] = { { .dev = 1, .ino = 5, .what = "pp" }, { .dev = 1, .ino = 2, .tail = tail, .what = "xdg" } };
        acs_guards gs = { g, 2 };
        acs_protect_in in = { .guards = &gs, .probe = fake_probe, .probe_data = (void *)host, .seed = 7 };
        acs_protect_out o = {};

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                acs_change ch = { .path = (char *)t[i].path, .path_len = strlen(t[i].path), .type = t[i].type,
                                  .old_type = t[i].old_type, .target = (char *)t[i].target };
                if (t[i].list == 'A')
                        idx[i] = c.n_added, a[c.n_added++] = ch;
                else if (t[i].list == 'M')
                        idx[i] = c.n_modified, m[c.n_modified++] = ch;
                else
                        idx[i] = c.n_deleted, d[c.n_deleted++] = ch;
        }
        ok(acs_protect_classify(&c, &in, &o) == 0, "classify");
        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                const acs_prot *p = t[i].list == 'A' ? &o.added[idx[i]] : t[i].list == 'M' ? &o.modified[idx[i]]
                                                                                            : &o.deleted[idx[i]];
                char why[160];

                ok(p->kind == t[i].want, "%c %s: %s", t[i].list, t[i].path, acs_prot_describe(p, why, sizeof why));
        }
        acs_protect_out_done(&o);

        /* the whole workspace inside a git directory */
        in.root = (acs_prot){ ACS_PROT_REPO, NULL };
        ok(acs_protect_classify(&c, &in, &o) == 0 && o.added[c.n_added - 1].kind == ACS_PROT_REPO,
           "a workspace inside a git directory: everything protected");
        acs_protect_out_done(&o);
}

/* acs-launch.profile(5), PROTECTED PATHS, lists every built-in entry. */
static void test_man(void)
{
        const char *srcdir = getenv("ACS_SRCDIR");
        char path[4096], buf[1 << 16];
        size_t n = 0, k = 0;
        FILE *f;

        if (!srcdir) {
                skip("man page: ACS_SRCDIR not set");
                return;
        }
        snprintf(path, sizeof path, "%s/man/acs-launch.profile.5", srcdir);
        if (!(f = fopen(path, "re"))) {
                ok(0, "open %s", path);
                return;
        }
        n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        /* roff's "\-" is a '-' */
        for (size_t i = 0; i < n; i++)
                if (!(buf[i] == '\\' && buf[i + 1] == '-'))
                        buf[k++] = buf[i];
        buf[k] = 0;
        char *sec = strstr(buf, ".SH PROTECTED PATHS"), *end = sec ? strstr(sec, ".SS Pattern syntax") : NULL;
        ok(sec && end, "acs-launch.profile(5) has PROTECTED PATHS");
        if (!sec || !end)
                return;
        *end = 0;
        for (const char *const *b = acs_protect_builtin; *b; b++) {
                char word[64];

                snprintf(word, sizeof word, " %s", *b);
                ok(strstr(sec, word) != NULL, "acs-launch.profile(5) lists the built-in %s", *b);
        }
}

int main(void)
{
        test_fold();
        test_builtin();
        test_globs();
        test_symlinks();
        test_modes();
        test_classify();
        test_man();
        return tap_done();
}
