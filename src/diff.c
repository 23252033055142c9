/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Walk the overlay's upper layer and classify what the program changed.
 *
 * Security argument: the layers may contain anything the sandboxed program
 * made (symlinks to /etc, FIFOs, devices, names with newlines). Every lookup
 * here is relative to a directory fd obtained by this walk, with O_NOFOLLOW /
 * AT_SYMLINK_NOFOLLOW (re-opening a directory goes through openat2 with
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS below a directory of the walk), and
 * regular files are opened with O_NONBLOCK and checked with fstat before
 * reading, so a FIFO cannot block the launcher and no symlink is ever
 * followed out of the layers.
 *
 * The tree's shape is the program's too: the walk keeps an explicit stack
 * (no recursion), a bounded number of open directory fds, a bounded amount
 * of directory names, and stops listing at the caps; see diff.h for the
 * bounds and why they hold.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#include "apply-policy.h"
#include "diff-internal.h"

enum { L_UP, L_LOW };

/* What a directory of the stack is listing now. */
typedef enum {
        P_HIDDEN, /* lower names an opaque upper directory hides: deletions */
        P_UPPER,  /* upper names: classified against the lower */
        P_DELETE, /* lower names of a removed directory: deletions */
        P_DONE,
} phase;

/* A sorted run of one directory's names: the smallest ones after the last taken. */
typedef struct batch {
        char **v;
        size_t n, i, cap;
        size_t bytes; /* counted in walk.held */
        bool more;    /* names beyond v[n - 1] are still to be read */
} batch;

typedef struct frame {
        int fd[2];         /* O_PATH directory fds; -1 when closed (re-opened on demand) or absent */
        bool has[2];       /* the layers this directory exists in */
        bool opaque;       /* lower names the upper lacks are deletions */
        bool unexamined;   /* counted in omitted_dirs already */
        phase ph;
        size_t plen;       /* this directory's path is w->path[0..plen) */
        batch b;
        char last[NAME_MAX + 1]; /* the name taken last in this phase, "" before the first */
} frame;

typedef struct walk {
        const acs_diff_opts *o;
        acs_changes *c;
        size_t cap_added, cap_modified, cap_deleted;
        acs_crypto cr;
        bool have_crypto;
        bool full;           /* a cap is reached: changes are counted, no longer listed */
        uint64_t list_bytes; /* JSON bytes of the listed entries */
        frame *st;           /* st[0] is the root, its fds the caller's */
        size_t depth, cap;
        size_t n_open;       /* frames other than the root holding fds */
        size_t first_open;   /* no frame in 1..first_open-1 holds fds */
        size_t held;         /* bytes of names held by all batches */
        char path[ACS_DIFF_MAX_PATH + 1 + NAME_MAX + 1];
        acs_error *err;
} walk;

/* A name's share of the budget: the string, its pointer, malloc's overhead. */
#define NAME_COST(len) ((len) + 1 + sizeof(char *) + 16)

static int cmp_names(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

static void batch_free(walk *w, batch *b)
{
        for (size_t i = 0; i < b->n; i++)
                free(b->v[i]);
        free(b->v);
        w->held -= b->bytes;
        *b = (batch){ .more = true };
}

static int batch_add(batch *b, const char *name)
{
        if (b->n == b->cap) {
                size_t nc = b->cap ? b->cap * 2 : 16;
                char **nv = realloc(b->v, nc * sizeof *nv);

                if (!nv)
                        return -ENOMEM;
                b->v = nv;
                b->cap = nc;
        }
        if (!(b->v[b->n] = strdup(name)))
                return -ENOMEM;
        b->bytes += NAME_COST(strlen(name));
        b->n++;
        return 0;
}

/* Over budget: keep the smaller half; the first name dropped bounds what is read from now on. */
static void batch_halve(batch *b, char **bound)
{
        size_t keep = b->n / 2;

        qsort(b->v, b->n, sizeof *b->v, cmp_names);
        free(*bound);
        *bound = b->v[keep];
        for (size_t i = keep; i < b->n; i++) {
                b->bytes -= NAME_COST(strlen(b->v[i]));
                if (i > keep)
                        free(b->v[i]);
        }
        b->n = keep;
        b->more = true;
}

/*
 * Fill b (empty) with the smallest names of directory fd that sort after
 * `after`, as many as budget bytes hold (at least one). One pass over the
 * directory; a directory bigger than the budget takes several batches,
 * each one pass.
 */
static int batch_read(int fd, const char *after, size_t budget, batch *b)
{
        int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), r = 0;
        _cleanup_free_ char *bound = NULL;
        struct dirent *de;
        DIR *d;

        b->more = false;
        if (dfd < 0)
                return -errno;
        d = fdopendir(dfd);
        if (!d) {
                r = -errno;
                close(dfd);
                return r;
        }
        while (r >= 0 && (errno = 0, de = readdir(d))) {
                const char *nm = de->d_name;

                if (strcmp(nm, ".") == 0 || strcmp(nm, "..") == 0 || (*after && strcmp(nm, after) <= 0) ||
                    (bound && strcmp(nm, bound) >= 0))
                        continue;
                r = batch_add(b, nm);
                if (r >= 0 && b->bytes > budget && b->n >= 2)
                        batch_halve(b, &bound);
        }
        if (r >= 0 && errno)
                r = -errno;
        closedir(d);
        if (r >= 0 && b->n)
                qsort(b->v, b->n, sizeof *b->v, cmp_names);
        return r;
}

static void frame_close(walk *w, frame *f)
{
        if (f == &w->st[0])
                return; /* the caller's */
        if (f->fd[L_UP] >= 0 || f->fd[L_LOW] >= 0)
                w->n_open--;
        for (int l = L_UP; l <= L_LOW; l++) {
                closep(&f->fd[l]);
                f->fd[l] = -1;
        }
}

/* At most ACS_DIFF_OPEN_DIRS frames hold fds: close the shallowest (never the top). */
static void fds_bound(walk *w)
{
        for (size_t i = w->first_open; w->n_open > ACS_DIFF_OPEN_DIRS && i + 1 < w->depth; i++)
                if (w->st[i].fd[L_UP] >= 0 || w->st[i].fd[L_LOW] >= 0) {
                        frame_close(w, &w->st[i]);
                        w->first_open = i + 1;
                }
}

static void note_open(walk *w, size_t fi)
{
        w->n_open++;
        if (fi < w->first_open)
                w->first_open = fi;
        fds_bound(w);
}

/* Frame fi's fd on layer l, re-opened below the nearest ancestor holding one. */
static int frame_fd(walk *w, size_t fi, int l)
{
        frame *f = &w->st[fi];
        size_t j = fi;
        bool was_open = f->fd[L_UP] >= 0 || f->fd[L_LOW] >= 0;
        char save;
        int fd;

        if (f->fd[l] >= 0 || !f->has[l])
                return f->fd[l];
        while (j-- > 0 && w->st[j].fd[l] < 0)
                ;
        if (j >= fi)
                return -EBADF; /* the root always holds its layers: cannot happen */
        /* w->path starts with this frame's path: it is the top */
        save = w->path[f->plen];
        w->path[f->plen] = '\0';
        fd = acs_open_beneath(w->st[j].fd[l], w->path + w->st[j].plen + (w->st[j].plen ? 1 : 0),
                              O_PATH | O_DIRECTORY, 0);
        w->path[f->plen] = save;
        if (fd < 0)
                return fd;
        f->fd[l] = fd;
        if (!was_open)
                note_open(w, fi);
        return fd;
}

static int frame_push(walk *w, size_t plen, int up, int low, phase ph, bool opaque)
{
        frame *f;

        if (w->depth == w->cap) {
                size_t nc = w->cap ? w->cap * 2 : 64;
                frame *nv = realloc(w->st, nc * sizeof *nv);

                if (!nv) {
                        closep(&up);
                        closep(&low);
                        return -ENOMEM;
                }
                w->st = nv;
                w->cap = nc;
        }
        f = &w->st[w->depth++];
        *f = (frame){ .fd = { up, low }, .has = { up >= 0, low >= 0 }, .opaque = opaque, .ph = ph,
                      .plen = plen, .b.more = true };
        if (w->depth > 1 && (up >= 0 || low >= 0))
                note_open(w, w->depth - 1);
        return 0;
}

static void frame_pop(walk *w)
{
        frame *f = &w->st[w->depth - 1];

        batch_free(w, &f->b);
        frame_close(w, f);
        w->depth--;
}

/* A directory the walk could not look into (left unreadable): counted once. */
static void not_examined(walk *w, size_t fi)
{
        if (!w->st[fi].unexamined) {
                w->st[fi].unexamined = true;
                w->c->omitted_dirs++;
                w->c->truncated = true;
        }
}

/* Errors that mean "this directory cannot be read", not a broken launcher. */
static bool unreadable(int r)
{
        return r == -EACCES || r == -EPERM || r == -ENOENT || r == -ENOTDIR || r == -ELOOP;
}

/* Names the top frame may hold: up to the budget, evicting ancestors' batches (they
 * are read again when the walk returns to them) while the top has less than half. */
static size_t top_budget(walk *w)
{
        size_t budget = w->o->name_budget ? w->o->name_budget : ACS_DIFF_NAME_BUDGET;

        for (size_t i = 0; i + 1 < w->depth && w->held > budget / 2; i++) {
                batch *b = &w->st[i].b;
                bool more = b->i < b->n || b->more;

                if (b->n) {
                        batch_free(w, b);
                        b->more = more;
                }
        }
        return w->held < budget ? budget - w->held : 1;
}

/* Take the next name of the top frame's phase into its last[]: 1, or 0 at the end. */
static int next_name(walk *w)
{
        size_t fi = w->depth - 1;
        frame *f = &w->st[fi];
        int fd, r;

        if (f->b.i == f->b.n) {
                if (!f->b.more)
                        return 0;
                batch_free(w, &f->b);
                fd = frame_fd(w, fi, f->ph == P_UPPER ? L_UP : L_LOW);
                if (fd < 0)
                        return fd;
                r = batch_read(fd, f->last, top_budget(w), &f->b);
                w->held += f->b.bytes;
                if (r < 0)
                        return r;
                if (!f->b.n)
                        return 0;
        }
        strcpy(f->last, f->b.v[f->b.i++]);
        return 1;
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

/* The opaque xattr needs a readable fd; -errno when the directory is not readable. */
static int dir_is_opaque(int path_fd)
{
        _cleanup_close_ int fd = openat(path_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        return fd < 0 ? -errno : is_opaque(fd);
}

static bool is_whiteout(const struct stat *st)
{
        return S_ISCHR(st->st_mode) && major(st->st_rdev) == 0 && minor(st->st_rdev) == 0;
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

/* Type, mode and size of one side of ch, from an lstat: nothing is read. */
static void describe(const struct stat *st, acs_change *ch, bool old)
{
        acs_ftype t = acs_ftype_from_mode(st->st_mode);
        uint64_t size = t == ACS_FT_FILE || t == ACS_FT_SYMLINK ? (uint64_t)st->st_size : 0;

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
}

/*
 * The content of one side, once: a file's digest, a symlink's target. A
 * file the launcher may not read (mode 000, left so by the program) keeps
 * no digest: it is reported without one and compares as changed.
 */
static int load(walk *w, int dfd, const char *name, acs_change *ch, bool old)
{
        acs_ftype t = old ? ch->old_type : ch->type;
        uint64_t *size = old ? &ch->old_size : &ch->size;
        int r = 0;

        if (t == ACS_FT_FILE) {
                char *hex = old ? ch->old_sha256 : ch->sha256;

                if (!hex[0] && (r = hash_at(w, dfd, name, hex, size)) < 0 && (r == -EACCES || r == -EPERM))
                        r = 0, hex[0] = '\0';
        } else if (t == ACS_FT_SYMLINK) {
                char **tp = old ? &ch->old_target : &ch->target;

                if (!*tp && (r = read_target(dfd, name, tp)) >= 0)
                        *size = strlen(*tp);
        }
        if (r < 0)
                return acs_error_errno(w->err, r, "diff", "cannot read %s", name);
        return 0;
}

/* 1 when the upper side of ch (ust) differs from the lower one (lst), 0 when not. */
static int differs(walk *w, int up, int low, const char *name, acs_change *ch, const struct stat *ust,
                   const struct stat *lst)
{
        int r;

        if (ch->type != ch->old_type || ch->mode != ch->old_mode || ch->size != ch->old_size ||
            ((ch->type == ACS_FT_CHAR || ch->type == ACS_FT_BLOCK) && ust->st_rdev != lst->st_rdev))
                return 1;
        if (ch->type != ACS_FT_FILE && ch->type != ACS_FT_SYMLINK)
                return 0;
        if ((r = load(w, up, name, ch, false)) < 0 || (r = load(w, low, name, ch, true)) < 0)
                return r;
        if (ch->type == ACS_FT_SYMLINK)
                return strcmp(ch->target, ch->old_target) != 0;
        return !ch->sha256[0] || !ch->old_sha256[0] || strcmp(ch->sha256, ch->old_sha256) != 0;
}

/* w->path[0..len) can be listed: no cap reached and the kernel could open it. */
static bool listable(const walk *w, size_t len)
{
        return !w->full && len <= ACS_DIFF_MAX_PATH;
}

/* Append ch (consumed; path w->path[0..len)) to a list, or count it as left out. */
static int record(walk *w, char kind, acs_change *ch, size_t len)
{
        acs_changes *c = w->c;
        bool deleted = kind == 'D';
        size_t cost = 0;
        int r;

        if (listable(w, len)) {
                if (!(ch->path = strndup(w->path, len))) {
                        acs_change_done(ch);
                        return -ENOMEM;
                }
                ch->path_len = len;
                cost = acs_change_json_cost(ch, deleted);
                if ((w->o->max_entries && acs_changes_count(c) >= w->o->max_entries) ||
                    (w->o->max_list_bytes && w->list_bytes + cost > w->o->max_list_bytes))
                        w->full = true; /* the lists stop here: a prefix of the walk order */
        }
        if (!listable(w, len)) {
                c->truncated = true;
                c->omitted_entries++;
                c->omitted_bytes += deleted ? ch->old_size : ch->size;
                acs_change_done(ch);
                return 0;
        }
        w->list_bytes += cost;
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

/* Walk into directory name of the top frame (path w->path[0..len)), as a
 * deletion (only the lower) or a comparison; or count it as not examined. */
static int descend(walk *w, const char *name, size_t len, bool up_dir, bool low_dir, bool deleting)
{
        frame *f = &w->st[w->depth - 1];
        bool opaque = f->opaque;
        int up = -1, low = -1, r;

        if (len > ACS_DIFF_MAX_PATH) {
                w->c->omitted_dirs++;
                w->c->truncated = true;
                return 0;
        }
        if (up_dir && (up = openat(f->fd[L_UP], name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
                return acs_error_errno(w->err, -errno, "diff", "cannot open upper %s", name);
        if (low_dir && (low = openat(f->fd[L_LOW], name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
                closep(&up);
                return acs_error_errno(w->err, -errno, "diff", "cannot open lower %s", name);
        }
        if (!deleting && low >= 0 && !opaque && (r = dir_is_opaque(up)) != 0) {
                if (r < 0) { /* unreadable: it cannot be listed either */
                        closep(&up);
                        closep(&low);
                        w->c->omitted_dirs++;
                        w->c->truncated = true;
                        return 0;
                }
                opaque = true;
        }
        opaque = opaque && low >= 0;
        r = frame_push(w, len, up, low, deleting ? P_DELETE : opaque ? P_HIDDEN : P_UPPER, opaque);
        return r < 0 ? acs_error_errno(w->err, r, "diff", "cannot walk into %s", name) : 0;
}

/* A lower entry that is gone (lst), and, for a directory, all it held. */
static int deletion(walk *w, const char *name, const struct stat *lst, size_t len)
{
        acs_change ch = {};
        int r;

        describe(lst, &ch, true);
        if (listable(w, len) && (r = load(w, w->st[w->depth - 1].fd[L_LOW], name, &ch, true)) < 0) {
                acs_change_done(&ch);
                return r;
        }
        if ((r = record(w, 'D', &ch, len)) < 0)
                return r;
        return S_ISDIR(lst->st_mode) ? descend(w, name, len, false, true, true) : 0;
}

/* An upper entry: compared with the lower one (lst NULL when absent). */
static int classify(walk *w, const char *name, const struct stat *ust, const struct stat *lst, size_t len)
{
        frame *f = &w->st[w->depth - 1];
        int up = f->fd[L_UP], low = f->fd[L_LOW];
        acs_change ch = {};
        char kind = 'A';
        int r = 0;

        describe(ust, &ch, false);
        if (lst) {
                describe(lst, &ch, true);
                if ((r = differs(w, up, low, name, &ch, ust, lst)) < 0) {
                        acs_change_done(&ch);
                        return r;
                }
                kind = r ? 'M' : 0;
        }
        if (kind && listable(w, len) &&
            ((r = load(w, up, name, &ch, false)) < 0 || (lst && (r = load(w, low, name, &ch, true)) < 0))) {
                acs_change_done(&ch);
                return r;
        }
        if (kind)
                r = record(w, kind, &ch, len);
        else
                acs_change_done(&ch);
        if (r < 0)
                return r;
        if (lst && S_ISDIR(lst->st_mode) && !S_ISDIR(ust->st_mode))
                return descend(w, name, len, false, true, true); /* all it held is gone */
        if (S_ISDIR(ust->st_mode))
                return descend(w, name, len, true, lst && S_ISDIR(lst->st_mode), false);
        return 0;
}

/* The top frame's last[] name, in its phase. */
static int visit(walk *w)
{
        size_t fi = w->depth - 1;
        frame *f = &w->st[fi];
        const char *name = f->last;
        size_t off = f->plen + (f->plen ? 1 : 0), len = off + strlen(name);
        struct stat ust, lst;
        bool have_low;
        int up, low;

        for (int l = L_UP; l <= L_LOW; l++) {
                int r = f->has[l] ? frame_fd(w, fi, l) : 0;

                if (r < 0 && !unreadable(r))
                        return acs_error_errno(w->err, r, "diff", "cannot open '%.*s'", (int)f->plen, w->path);
                if (r < 0) {
                        not_examined(w, fi);
                        f->ph = P_DONE;
                        return 0;
                }
        }
        up = f->fd[L_UP];
        low = f->fd[L_LOW];
        if (f->plen)
                w->path[f->plen] = '/';
        memcpy(w->path + off, name, len - off + 1);
        if (f->ph == P_DELETE || f->ph == P_HIDDEN) {
                if (f->ph == P_HIDDEN && fstatat(up, name, &ust, AT_SYMLINK_NOFOLLOW) == 0)
                        return 0; /* the upper has it: visited in P_UPPER */
                if ((f->ph == P_HIDDEN && errno != ENOENT) || fstatat(low, name, &lst, AT_SYMLINK_NOFOLLOW) < 0) {
                        if (errno != ENOENT)
                                not_examined(w, fi);
                        return 0;
                }
                return deletion(w, name, &lst, len);
        }
        if (fstatat(up, name, &ust, AT_SYMLINK_NOFOLLOW) < 0) {
                if (errno != ENOENT)
                        not_examined(w, fi);
                return 0;
        }
        have_low = low >= 0 && fstatat(low, name, &lst, AT_SYMLINK_NOFOLLOW) == 0;
        if (is_whiteout(&ust))
                return have_low ? deletion(w, name, &lst, len) : 0; /* else it hides nothing */
        return classify(w, name, &ust, have_low ? &lst : NULL, len);
}

static int walk_run(walk *w)
{
        while (w->depth > 0) {
                frame *f = &w->st[w->depth - 1];
                int r;

                if (f->ph == P_DONE) {
                        frame_pop(w);
                        continue;
                }
                r = next_name(w);
                f = &w->st[w->depth - 1];
                if (r < 0 && !unreadable(r))
                        return acs_error_errno(w->err, r, "diff", "cannot list '%.*s'", (int)f->plen, w->path);
                if (r < 0)
                        not_examined(w, w->depth - 1);
                if (r <= 0) {
                        /* this phase is over: the next one starts from the first name */
                        f->ph = f->ph == P_HIDDEN ? P_UPPER : P_DONE;
                        batch_free(w, &f->b);
                        f->last[0] = '\0';
                        continue;
                }
                if ((r = visit(w)) < 0)
                        return w->err && w->err->code ? r : acs_error_errno(w->err, r, "diff", "cannot compare the layers");
        }
        return 0;
}

static int walk_tree(walk *w, int upper_fd, int lower_fd)
{
        bool opaque = false;
        int r;

        if (lower_fd >= 0) {
                r = dir_is_opaque(upper_fd);
                if (r < 0 && !unreadable(r))
                        return acs_error_errno(w->err, r, "diff", "cannot open the upper layer");
                opaque = r > 0;
        }
        r = frame_push(w, 0, upper_fd, lower_fd, opaque ? P_HIDDEN : P_UPPER, opaque);
        if (r < 0)
                return r;
        w->first_open = 1;
        r = walk_run(w);
        while (w->depth > 0)
                frame_pop(w);
        free(w->st);
        w->st = NULL;
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
        r = walk_tree(&w, upper_fd, lower_fd);
        /* protection (apply-classify.c): built-in list, protect, git directories */
        if (r >= 0)
                r = acs_protect_mark(&c, lower_fd, w.o->protect, w.o->guards, err);
        /* a patch of a truncated list would be incomplete: none rather than part */
        if (r >= 0 && w.o->want_patch && c.truncated)
                c.patch_omitted = true;
        /* in process, static acs-launch included (udiff.c: no library to load) */
        else if (r >= 0 && w.o->want_patch)
                r = acs_changes_make_patch(upper_fd, lower_fd, &c, w.o->max_patch_bytes, err);
        if (r < 0) {
                if (err && !err->code)
                        acs_error_errno(err, r, "diff", "cannot compare the workspace layers");
                acs_changes_free(&c);
                return r;
        }
        *ret = c;
        return 0;
}
