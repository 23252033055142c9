/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The changes as a git-style patch that `git apply` accepts against the
 * original workspace. The hunks and binary literals are udiff.c's, in
 * process (no libgit2: the static acs-launch can make it itself, and a
 * --json run pays almost nothing for it); the blob ids are nettle's SHA-1
 * (acs_git_blob_buf). The file header is written here: "new file mode",
 * "deleted file mode", "old mode/new mode" and the full "index" line (git
 * apply requires it for binary patches, and acs-launch apply compares the
 * old blob ids with the host's files).
 */
#include <string.h>
#include <sys/stat.h>

#include "diff-internal.h"
#include "udiff.h"

int acs_diff_preload(bool with_patch, acs_error *err)
{
        acs_crypto cr;

        (void)with_patch; /* the patch needs no library any more */
        return acs_crypto_load(&cr, err);
}

/*
 * The patch's bound is what it costs in the report: JSON-escaped, a byte
 * that is not UTF-8 takes 5 and a control character 6, so a raw bound would
 * let pathological names or contents (git quotes a name's bytes as octal,
 * 4 each) grow the report several times over.
 */
typedef struct sbuf {
        acs_strbuf s;
        uint64_t limit; /* 0: none */
        uint64_t cost;  /* acs_json_cost_max of what was added */
        bool over;
} sbuf;

static int sbuf_add(sbuf *b, const char *s, size_t n)
{
        b->cost += acs_json_cost_max(s, n);
        if (b->limit && b->cost > b->limit) {
                b->over = true;
                return -EFBIG;
        }
        return acs_strbuf_add(&b->s, s, n);
}

static int sbuf_addf(sbuf *b, const char *fmt, ...) _printf_(2, 3);
static int sbuf_addf(sbuf *b, const char *fmt, ...)
{
        _cleanup_free_ char *s = NULL;
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vasprintf(&s, fmt, ap);
        va_end(ap);
        return n < 0 ? -ENOMEM : sbuf_add(b, s, (size_t)n);
}

/* One side of a file pair: content, git mode (0 = absent). */
typedef struct side {
        const char *buf;
        size_t len;
        uint32_t gmode;
} side;

static int sbuf_out(void *u, const char *s, size_t n)
{
        return sbuf_add(u, s, n);
}

static void blob_id(const side *s, char hex[41])
{
        if (!s->gmode)
                memset(hex, '0', 40), hex[40] = 0;
        else
                acs_git_blob_buf(s->buf, s->len, hex);
}

static int emit(sbuf *b, const char *path, size_t plen, const side *o, const side *n)
{
        _cleanup_free_ char *a = NULL, *bb = NULL, *qa = NULL, *qb = NULL;
        char ia[41], ib[41];
        bool same = o->gmode && n->gmode && o->len == n->len && memcmp(o->buf, n->buf, o->len) == 0;
        int r;

        if (asprintf(&a, "a/%.*s", (int)plen, path) < 0 || asprintf(&bb, "b/%.*s", (int)plen, path) < 0)
                return -ENOMEM;
        if (!(qa = acs_quote_c(a, strlen(a))) || !(qb = acs_quote_c(bb, strlen(bb))))
                return -ENOMEM;
        r = sbuf_addf(b, "diff --git %s %s\n", qa, qb);
        if (r >= 0 && !o->gmode)
                r = sbuf_addf(b, "new file mode %06o\n", n->gmode);
        if (r >= 0 && !n->gmode)
                r = sbuf_addf(b, "deleted file mode %06o\n", o->gmode);
        if (r >= 0 && o->gmode && n->gmode && o->gmode != n->gmode)
                r = sbuf_addf(b, "old mode %06o\nnew mode %06o\n", o->gmode, n->gmode);
        if (r < 0 || same)
                return r;
        blob_id(o, ia);
        blob_id(n, ib);
        if (o->gmode && n->gmode && o->gmode == n->gmode)
                r = sbuf_addf(b, "index %s..%s %06o\n", ia, ib, o->gmode);
        else
                r = sbuf_addf(b, "index %s..%s\n", ia, ib);
        if (r < 0)
                return r;
        if (acs_udiff_is_binary(o->buf ? o->buf : "", o->len) || acs_udiff_is_binary(n->buf ? n->buf : "", n->len))
                return acs_udiff_binary(o->gmode ? o->buf : NULL, o->len, n->gmode ? n->buf : NULL, n->len,
                                        sbuf_out, b);
        return acs_udiff_hunks(o->buf ? o->buf : "", o->len, n->buf ? n->buf : "", n->len, 3,
                               o->gmode ? qa : "/dev/null", n->gmode ? qb : "/dev/null", sbuf_out, b);
}

static uint32_t git_mode(acs_ftype t, uint32_t mode)
{
        if (t == ACS_FT_SYMLINK)
                return 0120000;
        if (t == ACS_FT_FILE)
                return (mode & S_IXUSR) ? 0100755 : 0100644;
        return 0;
}

typedef struct item {
        char op; /* 'A' 'M' 'D' */
        const acs_change *ch;
} item;

static int cmp_items(const void *x, const void *y)
{
        const item *a = x, *b = y;
        int r = strcmp(a->ch->path, b->ch->path);

        return r ? r : (a->op == 'D') ? -1 : (b->op == 'D') ? 1 : 0;
}

/* Content of one side: the layer's file or the symlink target. A file
 * bigger than the patch may be is not read: its patch could not fit. */
static int load_side(sbuf *b, int dirfd, acs_ftype t, uint32_t mode, uint64_t size, const char *path,
                     const char *target, side *s, char **owned)
{
        s->gmode = git_mode(t, mode);
        if (t == ACS_FT_SYMLINK) {
                s->buf = target ? target : "";
                s->len = strlen(s->buf);
                return 0;
        }
        if (t != ACS_FT_FILE)
                return 0;
        if (dirfd < 0)
                return -ENOENT;
        if (b->limit && size > b->limit) {
                b->over = true;
                return -EFBIG;
        }
        int r = acs_read_beneath(dirfd, path, owned, &s->len);

        s->buf = *owned;
        if (r == -EACCES || r == -EPERM)
                b->over = true; /* left unreadable by the program: no complete patch */
        return r;
}

/* The lists are in walk order: what an added directory holds follows it at once. */
static bool added_dir_is_empty(const acs_changes *c, const acs_change *d)
{
        size_t i = (size_t)(d - c->added) + 1;

        if (d < c->added || i > c->n_added)
                return true;
        return i == c->n_added || c->added[i].path_len <= d->path_len || c->added[i].path[d->path_len] != '/' ||
               memcmp(c->added[i].path, d->path, d->path_len) != 0;
}

static int emit_item(sbuf *b, int upper_fd, int lower_fd, const acs_changes *c,
                     const item *it, char ***skipped, acs_error *err)
{
        const acs_change *ch = it->ch;
        _cleanup_free_ char *ob = NULL, *nb = NULL;
        side o = {}, n = {};
        acs_ftype ot = it->op == 'A' ? ACS_FT_NONE : ch->old_type;
        acs_ftype nt = it->op == 'D' ? ACS_FT_NONE : ch->type;
        int r;

        if ((r = load_side(b, lower_fd, ot, ch->old_mode, ch->old_size, ch->path, ch->old_target, &o, &ob)) < 0 ||
            (r = load_side(b, upper_fd, nt, ch->mode, ch->size, ch->path, ch->target, &n, &nb)) < 0)
                return b->over ? r : acs_error_errno(err, r, "patch", "cannot read %s", ch->path);
        /* what git cannot say: special files, directory modes, empty new
         * directories, permission bits other than the owner's x bit */
        if ((ot > ACS_FT_SYMLINK || nt > ACS_FT_SYMLINK) ||
            (it->op == 'M' && ot == ACS_FT_DIR && nt == ACS_FT_DIR) ||
            (it->op == 'A' && nt == ACS_FT_DIR && added_dir_is_empty(c, ch)) ||
            (it->op == 'M' && o.gmode && o.gmode == n.gmode && ch->old_mode != ch->mode &&
             o.len == n.len && memcmp(o.buf, n.buf, o.len) == 0))
                if ((r = acs_strv_push(skipped, ch->path)) < 0)
                        return r;
        if (o.gmode && n.gmode && (o.gmode == 0120000) != (n.gmode == 0120000)) {
                /* file <-> symlink: git writes a deletion and a creation */
                side none = {};

                r = emit(b, ch->path, ch->path_len, &o, &none);
                return r < 0 ? r : emit(b, ch->path, ch->path_len, &none, &n);
        }
        if (!o.gmode && !n.gmode)
                return 0;
        if (o.gmode && n.gmode && o.gmode == n.gmode && o.len == n.len &&
            memcmp(o.buf, n.buf, o.len) == 0)
                return 0;
        return emit(b, ch->path, ch->path_len, &o, &n);
}

int acs_changes_make_patch(int upper_fd, int lower_fd, acs_changes *c, uint64_t max_patch_bytes,
                           acs_error *err)
{
        size_t n = acs_changes_count(c), k = 0;
        _cleanup_free_ item *v = calloc(n ? n : 1, sizeof *v);
        _cleanup_strv_free_ char **skipped = NULL;
        sbuf b = { .limit = max_patch_bytes };
        int r = 0;

        if (!v)
                return -ENOMEM;
        if (c->truncated) { /* it would be incomplete */
                b.over = true;
                r = -EFBIG;
                goto done;
        }
        for (size_t i = 0; i < c->n_added; i++)
                v[k++] = (item){ 'A', &c->added[i] };
        for (size_t i = 0; i < c->n_modified; i++)
                v[k++] = (item){ 'M', &c->modified[i] };
        for (size_t i = 0; i < c->n_deleted; i++)
                v[k++] = (item){ 'D', &c->deleted[i] };
        qsort(v, n, sizeof *v, cmp_items);
        for (size_t i = 0; i < n && r >= 0; i++)
                r = emit_item(&b, upper_fd, lower_fd, c, &v[i], &skipped, err);
done:
        if (r < 0 && b.over) {
                acs_strbuf_free(&b.s);
                free(c->patch);
                c->patch = NULL;
                c->patch_len = 0;
                c->patch_omitted = true;
                return 0;
        }
        if (r < 0) {
                acs_strbuf_free(&b.s);
                return err && err->code ? r : acs_error_errno(err, r, "patch", "cannot build the patch");
        }
        if (!b.s.p && !(b.s.p = strdup("")))
                return -ENOMEM;
        free(c->patch);
        c->patch = TAKE_PTR(b.s.p);
        c->patch_len = b.s.len;
        acs_strv_free(c->patch_skipped);
        c->patch_skipped = TAKE_PTR(skipped);
        return 0;
}
