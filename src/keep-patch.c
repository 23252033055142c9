/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A kept layer's changes.patch against its manifest (pure).
 *
 * The patch is what a human reviews; the manifest and tree/ are what apply
 * writes from. So that apply writes exactly what the patch shows, every
 * change git can express must appear in the patch with the same path, modes
 * and blob ids (the full 40-digit "index" lines patch.c writes), and the
 * patch must show nothing the manifest lacks. The old blob ids go into the
 * changes (old_git), and apply compares them with the host's files.
 */
#include <string.h>

#include "keep-patch.h"

static int hexval(char c)
{
        return c >= '0' && c <= '7' ? c - '0' : -1;
}

/* Inverse of acs_quote_c for a quoted string at s (just after the opening
 * quote); *end points past the closing quote. NULL when malformed. */
static char *unquote(const char *s, const char **end)
{
        static const char from[] = "abtnvfr\"\\", to[] = "\a\b\t\n\v\f\r\"\\";
        char *out = malloc(strlen(s) + 1), *o = out;

        if (!out)
                return NULL;
        for (; *s && *s != '"'; s++) {
                const char *e;

                if (*s != '\\') {
                        *o++ = *s;
                        continue;
                }
                s++;
                if (*s && (e = strchr(from, *s))) {
                        *o++ = to[e - from];
                } else if (hexval(s[0]) >= 0 && hexval(s[1]) >= 0 && hexval(s[2]) >= 0) {
                        int v = hexval(s[0]) << 6 | hexval(s[1]) << 3 | hexval(s[2]);

                        if (!v || v > 255)
                                break;
                        *o++ = (char)v;
                        s += 2;
                } else {
                        break;
                }
        }
        if (*s != '"') {
                free(out);
                return NULL;
        }
        *o = 0;
        *end = s + 1;
        return out;
}

/* The path of a "diff --git a/P b/P" line (rest = what follows "diff --git "). */
static char *header_path(const char *rest, size_t n)
{
        if (rest[0] == '"') {
                const char *e;
                _cleanup_free_ char *a = unquote(rest + 1, &e);
                char *b = NULL;

                if (!a || *e != ' ' || e[1] != '"' || !(b = unquote(e + 2, &e)) || (size_t)(e - rest) != n ||
                    strncmp(a, "a/", 2) || strncmp(b, "b/", 2) || strcmp(a + 2, b + 2)) {
                        free(b);
                        return NULL;
                }
                memmove(b, b + 2, strlen(b + 2) + 1);
                return b;
        }
        /* unquoted: "a/" P " b/" P, P of the same length on both sides */
        if (n < 7 || (n - 5) % 2 || strncmp(rest, "a/", 2))
                return NULL;
        size_t plen = (n - 5) / 2;
        if (strncmp(rest + 2 + plen, " b/", 3) || memcmp(rest + 2, rest + 5 + plen, plen))
                return NULL;
        return strndup(rest + 2, plen);
}

static bool parse_mode(const char *s, uint32_t *ret)
{
        char *end;
        unsigned long v = strtoul(s, &end, 8);

        if (end == s || *end || (v != 0100644 && v != 0100755 && v != 0120000))
                return false;
        *ret = (uint32_t)v;
        return true;
}

static bool is_hex40(const char *s)
{
        return strspn(s, "0123456789abcdef") == 40;
}

/* "index OLD..NEW[ MODE]" */
static bool parse_index(const char *s, acs_patch_rec *r)
{
        if (!is_hex40(s) || strncmp(s + 40, "..", 2) || !is_hex40(s + 42) || (s[82] && s[82] != ' '))
                return false;
        memcpy(r->old_id, s, 40);
        memcpy(r->new_id, s + 42, 40);
        r->old_id[40] = r->new_id[40] = 0;
        r->has_index = true;
        if (s[82]) {
                uint32_t m;

                if (!parse_mode(s + 83, &m))
                        return false;
                r->old_mode = r->old_mode ? r->old_mode : m;
                r->new_mode = r->new_mode ? r->new_mode : m;
        }
        return true;
}

/* A header line of the record r; false when it is not one we write. */
static bool header_line(const char *l, acs_patch_rec *r)
{
        if (!strncmp(l, "new file mode ", 14))
                return (r->new_file = true) && parse_mode(l + 14, &r->new_mode);
        if (!strncmp(l, "deleted file mode ", 18))
                return (r->deleted = true) && parse_mode(l + 18, &r->old_mode);
        if (!strncmp(l, "old mode ", 9))
                return parse_mode(l + 9, &r->old_mode);
        if (!strncmp(l, "new mode ", 9))
                return parse_mode(l + 9, &r->new_mode);
        if (!strncmp(l, "index ", 6))
                return parse_index(l + 6, r);
        return false;
}

void acs_patch_index_done(acs_patch_index *x)
{
        for (size_t i = 0; x && i < x->n; i++)
                free(x->v[i].path);
        if (x) {
                free(x->v);
                *x = (acs_patch_index){};
        }
}

static int push_rec(acs_patch_index *x, size_t *cap, char *path)
{
        if (x->n == *cap) {
                size_t nc = *cap ? *cap * 2 : 16;
                acs_patch_rec *nv = realloc(x->v, nc * sizeof *nv);

                if (!nv)
                        return -ENOMEM;
                x->v = nv, *cap = nc;
        }
        x->v[x->n++] = (acs_patch_rec){ .path = path };
        return 0;
}

int acs_patch_index_parse(const char *p, size_t len, acs_patch_index *ret, const char **bad_line)
{
        acs_patch_index x = {};
        size_t cap = 0;
        bool in_header = false;

        *bad_line = NULL;
        for (size_t off = 0; off < len;) {
                const char *nl = memchr(p + off, '\n', len - off);
                size_t n = nl ? (size_t)(nl - (p + off)) : len - off;
                _cleanup_free_ char *l = strndup(p + off, n);

                if (!l)
                        goto oom;
                if (!strncmp(l, "diff --git ", 11)) {
                        char *path = header_path(l + 11, n - 11);

                        if (!path || push_rec(&x, &cap, path) < 0) {
                                free(path);
                                if (!path)
                                        goto bad;
                                goto oom;
                        }
                        in_header = true;
                } else if (in_header && !header_line(l, &x.v[x.n - 1])) {
                        in_header = false; /* hunks or a binary literal follow */
                        if (!strncmp(l, "new file", 8) || !strncmp(l, "deleted file", 12) ||
                            !strncmp(l, "old mode", 8) || !strncmp(l, "new mode", 8) || !strncmp(l, "index", 5))
                                goto bad;
                } else if (!x.n) {
                        goto bad; /* text before the first record */
                }
                off += n + (nl ? 1 : 0);
                continue;
bad:
                *bad_line = p + off;
                acs_patch_index_done(&x);
                return -EBADMSG;
        }
        *ret = x;
        return 0;
oom:
        acs_patch_index_done(&x);
        return -ENOMEM;
}

static int cmp_rec(const void *a, const void *b)
{
        const acs_patch_rec *x = a, *y = b;
        int r = strcmp(x->path, y->path);

        return r ? r : (x->order > y->order) - (x->order < y->order);
}

void acs_patch_index_sort(acs_patch_index *x)
{
        for (size_t i = 0; i < x->n; i++)
                x->v[i].order = i;
        if (x->n)
                qsort(x->v, x->n, sizeof *x->v, cmp_rec);
}

static uint32_t git_mode(acs_ftype t, uint32_t mode)
{
        if (t == ACS_FT_SYMLINK)
                return 0120000;
        if (t == ACS_FT_FILE)
                return (mode & 0100) ? 0100755 : 0100644;
        return 0;
}

/* The records of path (one, or two for a file <-> symlink change), merged. */
static bool find_view(acs_patch_index *x, const char *path, acs_patch_rec *view)
{
        size_t lo = 0, hi = x->n;

        while (lo < hi) {
                size_t mid = (lo + hi) / 2;

                if (strcmp(x->v[mid].path, path) < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        if (lo == x->n || strcmp(x->v[lo].path, path))
                return false;
        acs_patch_rec *a = &x->v[lo], *b = lo + 1 < x->n && !strcmp(x->v[lo + 1].path, path) ? &x->v[lo + 1] : NULL;
        if (lo + 2 < x->n && b && !strcmp(x->v[lo + 2].path, path))
                return false; /* three records for one path: not ours */
        *view = *a;
        a->used = true;
        if (b) { /* a deletion, then a creation */
                if (!a->deleted || !b->new_file)
                        return false;
                view->new_file = false, view->deleted = false;
                view->new_mode = b->new_mode;
                memcpy(view->new_id, b->new_id, sizeof view->new_id);
                view->has_index = a->has_index && b->has_index;
                b->used = true;
        }
        if (view->new_file)
                view->old_mode = 0;
        if (view->deleted)
                view->new_mode = 0;
        return true;
}

static bool same_content(const acs_change *ch)
{
        if (ch->type != ch->old_type)
                return false;
        if (ch->type == ACS_FT_SYMLINK)
                return ch->target && ch->old_target && !strcmp(ch->target, ch->old_target);
        return ch->size == ch->old_size && !strcmp(ch->sha256, ch->old_sha256);
}

int acs_patch_check_change(acs_patch_index *x, acs_change *ch, char list, const char *new_blob,
                           const char **why)
{
        uint32_t om = list == 'A' ? 0 : git_mode(ch->old_type, ch->old_mode);
        uint32_t nm = list == 'D' ? 0 : git_mode(ch->type, ch->mode);
        bool same = list == 'M' && same_content(ch);
        acs_patch_rec v;
        char blob[41];

        if (!om && !nm)
                return find_view(x, ch->path, &v) ? (*why = "the patch shows a change to it that the "
                                                             "manifest does not have", -EBADMSG) : 0;
        if (same && om == nm)
                return find_view(x, ch->path, &v) ? (*why = "the patch shows a change the manifest "
                                                             "does not have", -EBADMSG) : 0;
        if (!find_view(x, ch->path, &v))
                return *why = "changes.patch does not show this change", -EBADMSG;
        if (v.old_mode != om || v.new_mode != nm)
                return *why = "changes.patch shows other modes", -EBADMSG;
        if (!v.has_index)
                return same ? 0 : (*why = "changes.patch shows no content for it", -EBADMSG);
        if (nm == 0120000 && ch->target) {
                acs_git_blob_buf(ch->target, strlen(ch->target), blob);
                new_blob = blob;
        }
        if (nm && (!new_blob || strcmp(v.new_id, new_blob)))
                return *why = "changes.patch shows other content", -EBADMSG;
        if (om == 0120000 && ch->old_target) {
                acs_git_blob_buf(ch->old_target, strlen(ch->old_target), blob);
                if (strcmp(v.old_id, blob))
                        return *why = "changes.patch shows another old target", -EBADMSG;
        }
        if (om && om != 0120000)
                memcpy(ch->old_git, v.old_id, sizeof ch->old_git);
        return 0;
}

const char *acs_patch_unused(const acs_patch_index *x)
{
        for (size_t i = 0; i < x->n; i++)
                if (!x->v[i].used)
                        return x->v[i].path;
        return NULL;
}
