/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The write-back's rules, pure: name folding, the built-in protect list, the
 * profile's protect patterns, symlinks that may come back, modes.
 *
 * Why fold: the host directory may sit on a case-insensitive filesystem
 * (vfat, exfat, ntfs3, an ext4 or tmpfs directory with casefolding), where
 * ".GIT/config" or ".baſhrc" written back would be .git/config or .bashrc.
 * Matching folded names protects a little more than needed on a
 * case-sensitive host and never less on a folding one.
 */
#include <string.h>
#include <sys/stat.h>

#include "apply-policy.h"

size_t acs_fold_name(const char *s, size_t n, char *out)
{
        const unsigned char *u = (const unsigned char *)s;
        size_t k = 0;

        for (size_t i = 0; i < n; i++) {
                unsigned char c = u[i];

                if (c >= 'A' && c <= 'Z')
                        c = (unsigned char)(c + ('a' - 'A'));
                else if (c == 0xc5 && i + 1 < n && u[i + 1] == 0xbf) /* U+017F long s */
                        c = 's', i++;
                else if (c == 0xc4 && i + 1 < n && (u[i + 1] == 0xb0 || u[i + 1] == 0xb1)) /* İ ı */
                        c = 'i', i++;
                else if (c == 0xe2 && i + 2 < n && u[i + 1] == 0x84 && u[i + 2] == 0xaa) /* Kelvin */
                        c = 'k', i += 2;
                out[k++] = (char)c;
        }
        while (k && (out[k - 1] == '.' || out[k - 1] == ' '))
                k--;
        return k;
}

char *acs_fold_path(const char *path)
{
        size_t n = strlen(path), k = 0;
        char *out = malloc(n + 1);

        if (!out)
                return NULL;
        for (const char *p = path;;) {
                size_t c = strcspn(p, "/");

                k += acs_fold_name(p, c, out + k);
                if (!p[c])
                        break;
                out[k++] = '/';
                p += c + 1;
        }
        out[k] = 0;
        return out;
}

/*
 * Always on. What a host tool runs or trusts when it finds it in a
 * directory: version-control metadata, shell and session start-up files,
 * editor, IDE and coding-agent settings (the list a widely used coding agent
 * asks a human about before editing, and its peers' equivalents), ssh's
 * configuration, acs-launch's own. Folded; "a/b" is two consecutive names.
 */
const char *const acs_protect_builtin[] = {
        /* version control */
        ".git", ".gitconfig", ".gitmodules", ".hg", ".svn", ".bzr", "_darcs", ".jj",
        ".config/git",
        /* shells and sessions */
        ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc",
        ".zprofile", ".zshenv", ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".login",
        ".logout", ".kshrc", ".mkshrc", ".envrc", ".pam_environment", ".xprofile",
        ".xinitrc", ".xsession", ".xsessionrc", ".config/fish", ".config/environment.d",
        ".config/autostart", ".config/systemd", ".local/bin", ".ssh",
        /* editors and IDEs */
        ".vscode", ".idea", ".devcontainer", ".vimrc", ".exrc", ".nvimrc", ".nvim.lua",
        /* coding agents and MCP clients */
        ".mcp.json", ".claude", ".claude.json", ".cursor", ".codex", ".gemini", ".windsurf",
        ".continue", ".roo", ".husky", ".ripgreprc",
        /* acs-launch */
        ".config/acs", "acs-keep.json",
        NULL
};

/* Does builtin entry b name the component (prev, cur)? (folded) */
static bool builtin_is(const char *b, const char *prev, size_t plen, const char *cur, size_t clen)
{
        const char *slash = strchr(b, '/');

        if (!slash)
                return strlen(b) == clen && memcmp(b, cur, clen) == 0;
        return prev && (size_t)(slash - b) == plen && memcmp(b, prev, plen) == 0 &&
               strlen(slash + 1) == clen && memcmp(slash + 1, cur, clen) == 0;
}

const char *acs_protect_builtin_for(const char *prev, size_t plen, const char *cur, size_t clen)
{
        for (const char *const *b = acs_protect_builtin; *b; b++)
                if (builtin_is(*b, prev, plen, cur, clen))
                        return *b;
        return NULL;
}

const char *acs_protect_builtin_match(const char *folded)
{
        const char *prev = NULL, *hit = NULL;
        size_t plen = 0;

        for (const char *p = folded; !hit;) {
                size_t c = strcspn(p, "/");

                hit = acs_protect_builtin_for(prev, plen, p, c);
                if (!p[c])
                        break;
                prev = p, plen = c;
                p += c + 1;
        }
        return hit;
}

/* ---- the profile's patterns ----------------------------------------------------- */

static void globpat_done(acs_globpat *g)
{
        free(g->full);
        free(g->below);
        acs_strv_free(g->comps);
}

static int globpat_compile(const char *orig, acs_globpat *g)
{
        _cleanup_free_ char *folded = NULL;
        const char *p = orig;
        size_t n;

        *g = (acs_globpat){ .orig = orig, .anchored = *p == '/' };
        while (*p == '/')
                p++;
        n = strlen(p);
        while (n && p[n - 1] == '/')
                n--;
        _cleanup_free_ char *trimmed = strndup(p, n);
        if (!trimmed || !(folded = acs_fold_path(trimmed)))
                return -ENOMEM;
        if (asprintf(&g->full, "%s%s", g->anchored ? "" : "**/", folded) < 0 ||
            asprintf(&g->below, "%s/**", g->full) < 0) {
                g->full = g->below = NULL;
                return -ENOMEM;
        }
        for (char *save = NULL, *c = strtok_r(folded, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
                if (acs_strv_push(&g->comps, c) < 0)
                        return -ENOMEM;
                g->m++;
                g->deep |= strcmp(c, "**") == 0;
        }
        return 0;
}

int acs_globset_compile(char *const *patterns, acs_globset *ret)
{
        acs_globset g = {};
        size_t n = acs_strv_length((char **)patterns);

        if (n && !(g.v = calloc(n, sizeof *g.v)))
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                int r = globpat_compile(patterns[i], &g.v[g.n]);

                if (r < 0) {
                        globpat_done(&g.v[g.n]);
                        acs_globset_done(&g);
                        return r;
                }
                if (g.v[g.n].m) /* "" or "/": nothing to match */
                        g.n++;
                else
                        globpat_done(&g.v[g.n]);
        }
        *ret = g;
        return 0;
}

void acs_globset_done(acs_globset *g)
{
        for (size_t i = 0; g && i < g->n; i++)
                globpat_done(&g->v[i]);
        if (g) {
                free(g->v);
                *g = (acs_globset){};
        }
}

const char *acs_globset_match(const acs_globset *g, const char *folded)
{
        for (size_t i = 0; g && i < g->n; i++)
                if (acs_glob_match(g->v[i].full, folded) || acs_glob_match(g->v[i].below, folded))
                        return g->v[i].orig;
        return NULL;
}

/* ---- symlinks ------------------------------------------------------------------- */

int acs_symlink_resolve(const char *path, const char *target, char **ret_resolved, const char **why)
{
        const char *slash = strrchr(path, '/');
        size_t keep = slash ? (size_t)(slash - path) : 0, depth = 0, rlen = 0;
        _cleanup_free_ char *rest = NULL;
        bool named = false;

        if (!target || !*target)
                return *why = "an empty symlink target", 0;
        if (target[0] == '/')
                return *why = "an absolute symlink target leaves the workspace", 0;
        for (const char *p = path; *p; p++)
                depth += *p == '/'; /* components of the link's directory */
        if (!(rest = malloc(strlen(target) + 1)))
                return -ENOMEM;
        for (const char *p = target;;) {
                size_t c = strcspn(p, "/");

                if (c == 2 && p[0] == '.' && p[1] == '.') {
                        if (named)
                                return *why = "the symlink target has '..' after a name (a host "
                                              "symlink on the way could lead out of the workspace)", 0;
                        if (depth == 0)
                                return *why = "the symlink target leaves the workspace", 0;
                        depth--;
                        while (keep > 0 && path[keep - 1] != '/')
                                keep--;
                        keep = keep ? keep - 1 : 0;
                } else if (c && !(c == 1 && p[0] == '.')) {
                        named = true;
                        if (rlen)
                                rest[rlen++] = '/';
                        memcpy(rest + rlen, p, c);
                        rlen += c;
                }
                if (!p[c])
                        break;
                p += c + 1;
        }
        rest[rlen] = 0;
        if (ret_resolved && asprintf(ret_resolved, "%.*s%s%s", (int)keep, path, keep && rlen ? "/" : "",
                                     rest) < 0)
                return -ENOMEM;
        return 1;
}

/* ---- modes ------------------------------------------------------------------------- */

/*
 * Permission bits come from the host (or the defaults for a new entry); the
 * sandbox may take group and other bits away, never add them, and sets the
 * owner's x bit of a file. The owner keeps rwx on a directory so that apply
 * (and the user) can still fill it. No setuid, setgid or sticky bit ever
 * comes from the sandbox.
 */
uint32_t acs_apply_mode_new(acs_ftype t, uint32_t sandbox_mode, uint32_t umask)
{
        if (t == ACS_FT_DIR)
                return ((0755 & ~umask & sandbox_mode) | 0700) & 0777;
        return ((sandbox_mode & S_IXUSR) ? 0755 : 0644) & ~umask & sandbox_mode & 0777;
}

uint32_t acs_apply_mode_existing(acs_ftype t, uint32_t host_mode, uint32_t sandbox_mode)
{
        if (t == ACS_FT_DIR) /* the host's own sticky or setgid bit stays */
                return (host_mode & 07700) | (host_mode & sandbox_mode & 0077);
        /* new content: the kernel drops setuid/setgid on a write, so do we */
        return (host_mode & 0600) | (sandbox_mode & S_IXUSR) | (host_mode & sandbox_mode & 0077);
}

/* ---- classification helpers ------------------------------------------------------- */

unsigned acs_repo_marker(const char *name, size_t n)
{
        static const struct {
                const char *name;
                unsigned bit;
        } m[] = { { "head", ACS_MARK_HEAD }, { "objects", ACS_MARK_OBJECTS },
                  { "refs", ACS_MARK_REFS }, { "commondir", ACS_MARK_COMMONDIR } };
        char f[16];

        if (n > sizeof f)
                return 0;
        n = acs_fold_name(name, n, f);
        for (size_t i = 0; i < ELEMENTSOF(m); i++)
                if (strlen(m[i].name) == n && memcmp(m[i].name, f, n) == 0)
                        return m[i].bit;
        return 0;
}

bool acs_repo_shaped(unsigned markers)
{
        return (markers & ACS_MARK_HEAD) &&
               (markers & (ACS_MARK_OBJECTS | ACS_MARK_REFS | ACS_MARK_COMMONDIR));
}

const char *acs_prot_describe(const acs_prot *p, char *buf, size_t n)
{
        const char *d = p->detail ? p->detail : "?";

        switch (p->kind) {
        case ACS_PROT_NONE: snprintf(buf, n, "not protected"); break;
        case ACS_PROT_BUILTIN: snprintf(buf, n, "protected: %s (built-in list)", d); break;
        case ACS_PROT_GLOB: snprintf(buf, n, "protected: %s ([filesystem] protect)", d); break;
        case ACS_PROT_REPO: snprintf(buf, n, "protected: a git directory (HEAD with objects, refs or commondir)"); break;
        case ACS_PROT_CONFIG: snprintf(buf, n, "protected: acs-launch reads its configuration here (%s)", d); break;
        case ACS_PROT_HOLDS: snprintf(buf, n, "protected: holds a protected entry"); break;
        case ACS_PROT_LINK: snprintf(buf, n, "protected: a symlink to a protected path (%s)", d); break;
        case ACS_PROT_RECORDED: snprintf(buf, n, "protected: flagged when the changes were recorded"); break;
        }
        return buf;
}

void acs_guards_done(acs_guards *g)
{
        for (size_t i = 0; g && i < g->n; i++) {
                acs_strv_free(g->v[i].tail);
                free(g->v[i].what);
        }
        if (g) {
                free(g->v);
                *g = (acs_guards){};
        }
}
