/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Walk the overlay's upper layer and classify what the program changed.
 *
 * Security argument: the layers may contain anything the sandboxed program
 * made (symlinks to /etc, FIFOs, devices, names with newlines). Every lookup
 * here is relative to a directory fd obtained by this walk, with O_NOFOLLOW /
 * AT_SYMLINK_NOFOLLOW, and regular files are opened with O_NONBLOCK and
 * checked with fstat before reading, so a FIFO cannot block the launcher and
 * no symlink is ever followed out of the layers.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#include "full.h"
#include "apply-policy.h"
#include "diff-internal.h"

typedef struct walk {
        const acs_diff_opts *o;
        acs_changes *c;
        size_t cap_added, cap_modified, cap_deleted;
        acs_crypto cr;
        bool have_crypto;
        acs_error *err;
} walk;

typedef struct names {
        char **v;
        size_t n;
} names;

static void names_done(names *ns)
{
        for (size_t i = 0; i < ns->n; i++)
                free(ns->v[i]);
        free(ns->v);
        ns->v = NULL;
        ns->n = 0;
}

static int cmp_names(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool names_has(const names *ns, const char *name)
{
        return ns->n && bsearch(&name, ns->v, ns->n, sizeof *ns->v, cmp_names);
}

static bool is_opaque(int fd)
{
        static const char *const keys[] = { "user.overlay.opaque", "trusted.overlay.opaque" };

        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                char v[4];
                ssize_t k = fgetxattr(fd, keys[i], v, sizeof v);

                /* "y" = opaque; "x" (kernel 6.7+) only marks xwhiteouts inside */
                if (k == 1 && v[0] == 'y')
                        return true;
        }
        return false;
}

/* Sorted entry names of directory dfd (any fd on it, O_PATH too). */
static int read_dir(int dfd, names *ret, bool *ret_opaque)
{
        int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        names ns = {};
        size_t cap = 0;
        struct dirent *de;
        DIR *d;

        if (fd < 0)
                return -errno;
        if (ret_opaque)
                *ret_opaque = is_opaque(fd);
        d = fdopendir(fd);
        if (!d) {
                close(fd);
                return -errno;
        }
        while ((errno = 0, de = readdir(d))) {
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                if (ns.n == cap) {
                        char **nv = realloc(ns.v, (cap = cap ? cap * 2 : 16) * sizeof *nv);

                        if (!nv)
                                goto oom;
                        ns.v = nv;
                }
                if (!(ns.v[ns.n] = strdup(de->d_name)))
                        goto oom;
                ns.n++;
        }
        closedir(d);
        if (ns.n)
                qsort(ns.v, ns.n, sizeof *ns.v, cmp_names);
        *ret = ns;
        return 0;
oom:
        closedir(d);
        names_done(&ns);
        return -ENOMEM;
}

static char *join(const char *prefix, const char *name)
{
        char *p = NULL;

        if (!*prefix)
                return strdup(name);
        return asprintf(&p, "%s/%s", prefix, name) < 0 ? NULL : p;
}

static int hash_at(walk *w, int dfd, const char *name, char hex[static 65], uint64_t *ret_size)
{
        _cleanup_close_ int fd = -1;
        struct stat st;
        int r;

        if (!w->have_crypto) {
                r = acs_crypto_load(&w->cr, w->err);
                if (r < 0)
                        return r;
                w->have_crypto = true;
        }
        fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        return acs_sha256_fd(&w->cr, fd, hex, ret_size);
}

static int read_target(int dfd, const char *name, char **ret)
{
        char buf[PATH_MAX + 1];
        ssize_t k = readlinkat(dfd, name, buf, sizeof buf - 1);

        if (k < 0)
                return -errno;
        buf[k] = 0;
        *ret = strdup(buf);
        return *ret ? 0 : -ENOMEM;
}

/* Fill the new (upper) or old (lower) half of ch from an lstat of dfd/name. */
static int describe(walk *w, int dfd, const char *name, const struct stat *st, acs_change *ch,
                    bool old)
{
        acs_ftype t = acs_ftype_from_mode(st->st_mode);
        uint64_t size = 0;
        int r = 0;

        if (t == ACS_FT_FILE)
                r = hash_at(w, dfd, name, old ? ch->old_sha256 : ch->sha256, &size);
        else if (t == ACS_FT_SYMLINK) {
                char **tp = old ? &ch->old_target : &ch->target;

                r = read_target(dfd, name, tp);
                if (r >= 0)
                        size = strlen(*tp);
        }
        if (r < 0)
                return acs_error_errno(w->err, r, "diff", "cannot read %s", name);
        if (old) {
                ch->old_type = t;
                ch->old_mode = st->st_mode & 07777;
                ch->old_size = size;
        } else {
                ch->type = t;
                ch->mode = st->st_mode & 07777;
                ch->size = size;
                if (t == ACS_FT_CHAR || t == ACS_FT_BLOCK)
                        ch->rdev = st->st_rdev;
        }
        return 0;
}

/* Append ch (consumed) to one of the lists unless max_entries is reached. */
static int push(walk *w, char kind, acs_change *ch)
{
        acs_changes *c = w->c;
        int r;

        if (w->o->max_entries && acs_changes_count(c) >= w->o->max_entries) {
                c->truncated = true;
                acs_change_done(ch);
                return 0;
        }
        ch->path_len = strlen(ch->path);
        if (kind == 'A')
                r = acs_change_list_push(&c->added, &c->n_added, &w->cap_added, ch);
        else if (kind == 'M')
                r = acs_change_list_push(&c->modified, &c->n_modified, &w->cap_modified, ch);
        else
                r = acs_change_list_push(&c->deleted, &c->n_deleted, &w->cap_deleted, ch);
        if (r < 0) {
                acs_change_done(ch);
                return acs_error_errno(w->err, r, "diff", "cannot record a change");
        }
        return 0;
}

static int walk_dir(walk *w, int up, int low, bool opaque_ctx, const char *prefix);
static int delete_tree(walk *w, int low, const char *name, const struct stat *st, char *path);

static int delete_children(walk *w, int low, const char *prefix)
{
        names ns = {};
        int r = read_dir(low, &ns, NULL);

        if (r < 0)
                return acs_error_errno(w->err, r, "diff", "cannot list lower %s", prefix);
        for (size_t i = 0; i < ns.n && r >= 0; i++) {
                _cleanup_free_ char *path = join(prefix, ns.v[i]);
                struct stat st;

                if (!path)
                        r = -ENOMEM;
                else if (fstatat(low, ns.v[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
                        r = delete_tree(w, low, ns.v[i], &st, TAKE_PTR(path));
        }
        names_done(&ns);
        return r;
}

/* Report lower entry low/name (stat st) and, for a directory, all it held. */
static int delete_tree(walk *w, int low, const char *name, const struct stat *st, char *path)
{
        acs_change ch = { .path = path };
        _cleanup_close_ int sub = -1;
        _cleanup_free_ char *keep = NULL;
        int r = describe(w, low, name, st, &ch, true);

        if (r < 0) {
                acs_change_done(&ch);
                return r;
        }
        if (S_ISDIR(st->st_mode) && !(keep = strdup(path))) {
                acs_change_done(&ch);
                return -ENOMEM;
        }
        r = push(w, 'D', &ch);
        if (r < 0 || !keep)
                return r;
        sub = openat(low, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0)
                return acs_error_errno(w->err, -errno, "diff", "cannot open lower %s", keep);
        return delete_children(w, sub, keep);
}

/* An upper entry: compare with the lower one (lst NULL when absent). */
static int classify(walk *w, int up, int low, const char *name, const struct stat *ust,
                    const struct stat *lst, bool opaque_ctx, char *path)
{
        acs_change ch = { .path = path };
        _cleanup_close_ int usub = -1, lsub = -1;
        _cleanup_free_ char *keep = strdup(path);
        char kind = 0;
        int r;

        if (!keep) {
                free(path);
                return -ENOMEM;
        }
        r = describe(w, up, name, ust, &ch, false);
        if (r >= 0 && lst)
                r = describe(w, low, name, lst, &ch, true);
        if (r < 0) {
                acs_change_done(&ch);
                return r;
        }
        if (!lst)
                kind = 'A';
        else if (ch.type != ch.old_type || ch.mode != ch.old_mode ||
                 strcmp(ch.sha256, ch.old_sha256) != 0 || ch.size != ch.old_size ||
                 (ch.type == ACS_FT_SYMLINK && strcmp(ch.target, ch.old_target) != 0) ||
                 ((ch.type == ACS_FT_CHAR || ch.type == ACS_FT_BLOCK) && ust->st_rdev != lst->st_rdev))
                kind = 'M';
        if (kind)
                r = push(w, kind, &ch);
        else
                acs_change_done(&ch);
        if (r < 0)
                return r;
        if (lst && S_ISDIR(lst->st_mode) && !S_ISDIR(ust->st_mode)) {
                /* a directory replaced by something else: all it held is gone */
                lsub = openat(low, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (lsub < 0)
                        return acs_error_errno(w->err, -errno, "diff", "cannot open lower %s", keep);
                return delete_children(w, lsub, keep);
        }
        if (!S_ISDIR(ust->st_mode))
                return 0;
        usub = openat(up, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (usub < 0)
                return acs_error_errno(w->err, -errno, "diff", "cannot open upper %s", keep);
        if (lst && S_ISDIR(lst->st_mode)) {
                lsub = openat(low, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (lsub < 0)
                        return acs_error_errno(w->err, -errno, "diff", "cannot open lower %s", keep);
        }
        return walk_dir(w, usub, lsub, opaque_ctx, keep);
}

static bool is_whiteout(const struct stat *st)
{
        return S_ISCHR(st->st_mode) && major(st->st_rdev) == 0 && minor(st->st_rdev) == 0;
}

static int walk_dir(walk *w, int up, int low, bool opaque_ctx, const char *prefix)
{
        names un = {}, ln = {};
        bool opaque = false;
        int r = read_dir(up, &un, &opaque);

        if (r < 0)
                return acs_error_errno(w->err, r, "diff", "cannot list upper '%s'", prefix);
        opaque_ctx = low >= 0 && (opaque_ctx || opaque);
        if (opaque_ctx) {
                /* lower entries hidden by an opaque directory are deletions */
                r = read_dir(low, &ln, NULL);
                if (r < 0)
                        r = acs_error_errno(w->err, r, "diff", "cannot list lower '%s'", prefix);
                for (size_t i = 0; i < ln.n && r >= 0; i++) {
                        struct stat st;
                        char *path;

                        if (names_has(&un, ln.v[i]) ||
                            fstatat(low, ln.v[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
                                continue;
                        path = join(prefix, ln.v[i]);
                        r = path ? delete_tree(w, low, ln.v[i], &st, path) : -ENOMEM;
                }
        }
        for (size_t i = 0; i < un.n && r >= 0; i++) {
                struct stat ust, lst;
                bool have_low;
                char *path;

                if (fstatat(up, un.v[i], &ust, AT_SYMLINK_NOFOLLOW) < 0)
                        continue;
                have_low = low >= 0 && fstatat(low, un.v[i], &lst, AT_SYMLINK_NOFOLLOW) == 0;
                if (is_whiteout(&ust) && !have_low)
                        continue; /* hides nothing */
                path = join(prefix, un.v[i]);
                if (!path)
                        r = -ENOMEM;
                else if (is_whiteout(&ust))
                        r = delete_tree(w, low, un.v[i], &lst, path);
                else
                        r = classify(w, up, low, un.v[i], &ust, have_low ? &lst : NULL, opaque_ctx,
                                     path);
        }
        names_done(&un);
        names_done(&ln);
        return r;
}

int acs_diff_collect(int upper_fd, int lower_fd, const acs_diff_opts *o, acs_changes *ret,
                     acs_error *err)
{
        static const acs_diff_opts no_opts = {};
        acs_changes c = {};
        walk w = { .o = o ? o : &no_opts, .c = &c, .err = err };
        int r;

        if (upper_fd < 0)
                return acs_error_set(err, -EBADF, "diff", "no upper layer");
        r = walk_dir(&w, upper_fd, lower_fd, false, "");
        /* protection (apply-classify.c): built-in list, protect, git directories */
        if (r >= 0)
                r = acs_protect_mark(&c, lower_fd, w.o->protect, w.o->guards, err);
        /* the static acs-launch has no libgit2: acs-launch-full makes the patch */
        if (r >= 0 && w.o->want_patch)
                r = acs_static_launcher && acs_changes_count(&c) > 0
                            ? acs_patch_via_full(upper_fd, lower_fd, &c, w.o->max_patch_bytes, err)
                            : acs_changes_make_patch(upper_fd, lower_fd, &c, w.o->max_patch_bytes, err);
        if (r < 0) {
                if (err && !err->code)
                        acs_error_errno(err, r, "diff", "cannot compare the workspace layers");
                acs_changes_free(&c);
                return r;
        }
        *ret = c;
        return 0;
}
