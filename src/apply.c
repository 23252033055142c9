/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Write a run's changes back into the host workspace.
 *
 * Security argument: the change list and the new contents come from the
 * sandbox (or from a kept layer a user may have edited). Nothing here trusts
 * them: every path must be a plain relative path (acs_path_is_safe), every
 * parent is opened with openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|
 * RESOLVE_NO_MAGICLINKS) below the workspace fd (so neither ".." nor a
 * symlink - planted by the sandbox or by anyone on the host - leads out),
 * and the final component is only ever used with *at() calls on that parent
 * fd that do not follow symlinks (unlinkat, mkdirat, symlinkat, renameat,
 * openat with O_EXCL|O_NOFOLLOW). No device, FIFO or socket is created,
 * no symlink whose target leaves the workspace, and the content written must
 * hash to the sha256 the diff recorded.
 *
 * What must never come back is decided here again, against the host as it
 * is now (apply-classify.c): a kept layer's own "protected" flags are not
 * needed, only ever added to. Modes never widen (apply-policy.c): a new
 * entry gets 0644/0755 under the caller's umask, a changed file keeps its
 * host mode but for the owner's x bit, a directory keeps its host mode.
 */
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "apply-policy.h"
#include "diff-internal.h"

typedef struct applier {
        int upper_fd, lower_fd;
        const acs_changes *c;
        bool dry_run;
        acs_apply_result *res;
        size_t cap;
        acs_crypto cr;
        bool have_crypto;
        acs_error *err;
        uid_t ws_uid; /* owner of the workspace directory: new entries get it (root only) */
        gid_t ws_gid;
        uint32_t umask;
        acs_protect_out prot; /* parallel to c's lists */
} applier;

bool acs_path_is_safe(const char *path)
{
        const char *p = path;

        if (!path || !*path || *path == '/')
                return false;
        for (;;) {
                size_t n = strcspn(p, "/");

                if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
                        return false;
                if (!p[n])
                        return true;
                p += n + 1;
        }
}

static int record(applier *a, const acs_change *ch, char op, acs_apply_status st, int error,
                  const char *fmt, ...) _printf_(6, 7);
static int record(applier *a, const acs_change *ch, char op, acs_apply_status st, int error,
                  const char *fmt, ...)
{
        acs_apply_result *r = a->res;
        acs_apply_item *it;
        int saved_errno = errno; /* for %m in fmt */
        va_list ap;

        if (r->n_items == a->cap) {
                size_t nc = a->cap ? a->cap * 2 : 16;
                acs_apply_item *nv = realloc(r->items, nc * sizeof *nv);

                if (!nv)
                        return -ENOMEM;
                r->items = nv, a->cap = nc;
        }
        it = &r->items[r->n_items];
        *it = (acs_apply_item){ .op = op, .status = st, .error = error };
        if (!(it->path = strdup(ch->path)))
                return -ENOMEM;
        it->path_len = strlen(it->path);
        errno = saved_errno;
        va_start(ap, fmt);
        vsnprintf(it->reason, sizeof it->reason, fmt, ap);
        va_end(ap);
        r->n_items++;
        switch (st) {
        case ACS_APPLY_DONE: r->n_done++; break;
        case ACS_APPLY_SKIPPED: r->n_skipped++; break;
        case ACS_APPLY_PROTECTED: r->n_protected++; break;
        case ACS_APPLY_CONFLICT: r->n_conflicts++; break;
        case ACS_APPLY_UNSAFE: r->n_unsafe++; break;
        case ACS_APPLY_FAILED: r->n_failed++; break;
        }
        return 0;
}

static int crypto(applier *a)
{
        int r = 0;

        if (!a->have_crypto && (r = acs_crypto_load(&a->cr, a->err)) >= 0)
                a->have_crypto = true;
        return r;
}

/* Does the host entry parent/name (lstat st) have type t, mode, hash/target
 * (and, when git is set, that git blob id)? */
static bool host_is(applier *a, int parent, const char *name, const struct stat *st, acs_ftype t,
                    uint32_t mode, const char *sha, const char *target, const char *git)
{
        if (acs_ftype_from_mode(st->st_mode) != t)
                return false;
        if (t == ACS_FT_SYMLINK) {
                char buf[PATH_MAX + 1];
                ssize_t k = readlinkat(parent, name, buf, sizeof buf - 1);

                return k >= 0 && target && (buf[k] = 0, strcmp(buf, target) == 0);
        }
        if ((st->st_mode & 07777) != mode)
                return false;
        if (t == ACS_FT_FILE) {
                _cleanup_close_ int fd = openat(parent, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
                                                                      O_NOCTTY | O_CLOEXEC);
                char hex[65], blob[41];

                if (git && *git)
                        return fd >= 0 && acs_hash_fd_git(fd, hex, blob) >= 0 && strcmp(hex, sha) == 0 &&
                               strcmp(blob, git) == 0;
                if (fd < 0 || crypto(a) < 0 || acs_sha256_fd(&a->cr, fd, hex, NULL) < 0)
                        return false;
                return strcmp(hex, sha) == 0;
        }
        return true;
}

/* Is the host entry the old state the sandbox saw? (a directory: any mode) */
static bool host_was(applier *a, const acs_change *ch, int parent, const char *name, const struct stat *st)
{
        return host_is(a, parent, name, st, ch->old_type,
                       ch->old_type == ACS_FT_DIR ? (uint32_t)(st->st_mode & 07777) : ch->old_mode,
                       ch->old_sha256, ch->old_target, ch->old_git);
}

static bool changed_during_run(const applier *a, const struct stat *st)
{
        const struct timespec *t = &a->c->run_start;

        /* directories are skipped: applying deletions below them moves their ctime */
        if ((!t->tv_sec && !t->tv_nsec) || S_ISDIR(st->st_mode))
                return false;
        return st->st_ctim.tv_sec > t->tv_sec ||
               (st->st_ctim.tv_sec == t->tv_sec && st->st_ctim.tv_nsec > t->tv_nsec);
}

/* Copy upper/path into parent/tmp (mode) while hashing; must match ch->sha256. */
static int write_temp(applier *a, const acs_change *ch, int parent, const char *tmp, uint32_t mode)
{
        _cleanup_close_ int in = acs_open_beneath(a->upper_fd, ch->path, O_RDONLY | O_NONBLOCK, 0);
        _cleanup_close_ int out = -1;
        acs_sha256_ctx ctx;
        unsigned char md[32];
        char buf[64 * 1024], hex[65];
        struct stat st;
        int r = 0;

        if (in < 0)
                return in;
        if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode))
                return -EINVAL;
        if ((r = crypto(a)) < 0)
                return r;
        out = openat(parent, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (out < 0)
                return -errno;
        if (a->cr.init(&ctx) != 1)
                r = -EIO;
        while (r >= 0) {
                ssize_t k = read(in, buf, sizeof buf);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0) {
                        r = k < 0 ? -errno : 0;
                        break;
                }
                a->cr.update(&ctx, buf, (size_t)k);
                r = acs_write_all(out, buf, (size_t)k);
        }
        if (r >= 0 && a->cr.final(md, &ctx) == 1) {
                acs_sha256_hex(md, hex);
                if (strcmp(hex, ch->sha256) != 0)
                        r = -EBADMSG;
        }
        if (r >= 0 && fchmod(out, mode) < 0)
                r = -errno;
        return r;
}

/*
 * Run by root, every new entry belongs to the owner of the workspace
 * directory itself -- never to root because it replaced something root
 * owned: a root launcher applying into a user's workspace must not leave
 * root-owned files there -- and a changed file keeps its host owner.
 * Unprivileged, this is a no-op.
 */
static int give_owner(int parent, const char *name, uid_t uid, gid_t gid)
{
        if (geteuid() != 0)
                return 0;
        return fchownat(parent, name, uid, gid, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

/* Put a new regular file (mode) or symlink at parent/name atomically. */
static int put_atomic(applier *a, const acs_change *ch, int parent, const char *name, uint32_t mode,
                      uid_t uid, gid_t gid)
{
        char tmp[32];
        uint64_t rnd = 0;
        int r;

        if (getrandom(&rnd, sizeof rnd, 0) != sizeof rnd)
                return -errno;
        snprintf(tmp, sizeof tmp, ".acs-tmp-%016llx", (unsigned long long)rnd);
        if (ch->type == ACS_FT_SYMLINK)
                r = symlinkat(ch->target ? ch->target : "", parent, tmp) < 0 ? -errno : 0;
        else
                r = write_temp(a, ch, parent, tmp, mode);
        if (r >= 0)
                r = give_owner(parent, tmp, uid, gid);
        if (r >= 0 && renameat(parent, tmp, parent, name) < 0)
                r = -errno;
        if (r < 0)
                unlinkat(parent, tmp, 0);
        return r;
}

static int status_for_open_error(int r)
{
        return r == -ELOOP || r == -EXDEV || r == -ENOTDIR ? ACS_APPLY_UNSAFE : ACS_APPLY_FAILED;
}

/* Protected now (host as it is, current profile) or when recorded. */
static int record_protected(applier *a, const acs_change *ch, const acs_prot *p, char op)
{
        acs_prot rec = { ACS_PROT_RECORDED, NULL };
        char why[160];

        return record(a, ch, op, ACS_APPLY_PROTECTED, 0, "%s",
                      acs_prot_describe(p->kind ? p : &rec, why, sizeof why));
}

static int apply_delete(applier *a, const acs_change *ch, const acs_prot *p)
{
        _cleanup_close_ int parent = -1;
        const char *name = NULL;
        struct stat st;

        if (ch->is_protected || p->kind)
                return record_protected(a, ch, p, 'D');
        if (!acs_path_is_safe(ch->path))
                return record(a, ch, 'D', ACS_APPLY_UNSAFE, 0, "not a plain relative path");
        parent = acs_open_parent_beneath(a->lower_fd, ch->path, &name);
        if (parent == -ENOENT)
                return record(a, ch, 'D', ACS_APPLY_DONE, 0, "already gone");
        if (parent < 0)
                return record(a, ch, 'D', status_for_open_error(parent), parent,
                              "cannot open the parent: %s", strerror(-parent));
        if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? record(a, ch, 'D', ACS_APPLY_DONE, 0, "already gone")
                                       : record(a, ch, 'D', ACS_APPLY_FAILED, -errno, "stat: %m");
        if (changed_during_run(a, &st) || !host_was(a, ch, parent, name, &st))
                return record(a, ch, 'D', ACS_APPLY_CONFLICT, 0, "changed on the host since the run started");
        if (a->dry_run)
                return record(a, ch, 'D', ACS_APPLY_DONE, 0, "dry run");
        if (unlinkat(parent, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) < 0)
                return errno == ENOTEMPTY || errno == EEXIST
                               ? record(a, ch, 'D', ACS_APPLY_CONFLICT, 0, "directory not empty on the host")
                               : record(a, ch, 'D', ACS_APPLY_FAILED, -errno, "unlink: %m");
        return record(a, ch, 'D', ACS_APPLY_DONE, 0, "deleted");
}

/* The mode the entry will have: never wider than the host's or the defaults. */
static uint32_t final_mode(const applier *a, const acs_change *ch, bool exists, const struct stat *st)
{
        if (exists && acs_ftype_from_mode(st->st_mode) == ch->type)
                return acs_apply_mode_existing(ch->type, st->st_mode, ch->mode);
        return acs_apply_mode_new(ch->type, ch->mode, a->umask);
}

/* Note on the last item the mode the entry has, when it is not the sandbox's. */
static int note_mode(applier *a, const acs_change *ch, uint32_t mode, int r)
{
        acs_apply_item *it = &a->res->items[a->res->n_items - 1];

        if (r >= 0 && ch->type != ACS_FT_SYMLINK && mode != (ch->mode & 07777)) {
                it->mode = mode;
                it->asked_mode = ch->mode & 07777;
                it->mode_kept = true;
        }
        return r;
}

/* Check the host state before an add or modify; 1 = go on, 0 = recorded. */
static int check_put(applier *a, const acs_change *ch, char op, int parent, const char *name,
                     struct stat *st, bool *exists)
{
        *exists = fstatat(parent, name, st, AT_SYMLINK_NOFOLLOW) == 0;
        if (!*exists && errno != ENOENT)
                return record(a, ch, op, ACS_APPLY_FAILED, -errno, "stat: %m");
        if (*exists && host_is(a, parent, name, st, ch->type, final_mode(a, ch, true, st), ch->sha256,
                               ch->target, NULL))
                return note_mode(a, ch, st->st_mode & 07777,
                                 record(a, ch, op, ACS_APPLY_DONE, 0, "already up to date"));
        if (op == 'A' && *exists && !(ch->type == ACS_FT_DIR && S_ISDIR(st->st_mode)))
                return record(a, ch, op, ACS_APPLY_CONFLICT, 0, "created on the host during the run");
        if (op != 'A' && !*exists)
                return record(a, ch, op, ACS_APPLY_CONFLICT, 0, "removed on the host during the run");
        if (op != 'A' && (changed_during_run(a, st) || !host_was(a, ch, parent, name, st)))
                return record(a, ch, op, ACS_APPLY_CONFLICT, 0, "changed on the host since the run started");
        return 1;
}

/* Before any host lookup: what is never written, whatever the host holds. */
static int refuse_put(applier *a, const acs_change *ch, char op, const acs_prot *p)
{
        const char *why = NULL;
        int r;

        if (ch->is_protected || p->kind)
                return record_protected(a, ch, p, op);
        if (!acs_path_is_safe(ch->path))
                return record(a, ch, op, ACS_APPLY_UNSAFE, 0, "not a plain relative path");
        if (ch->type != ACS_FT_FILE && ch->type != ACS_FT_DIR && ch->type != ACS_FT_SYMLINK)
                return record(a, ch, op, ACS_APPLY_SKIPPED, 0, "%s not created on the host",
                              acs_ftype_to_string(ch->type));
        if (ch->type == ACS_FT_SYMLINK && (r = acs_symlink_resolve(ch->path, ch->target, NULL, &why)) <= 0)
                return r < 0 ? r : record(a, ch, op, ACS_APPLY_SKIPPED, 0, "%s", why);
        if (op == 'A' && ch->host_dir_changed)
                return record(a, ch, op, ACS_APPLY_CONFLICT, 0,
                              "its directory changed on the host during the run (this may re-create "
                              "what the host deleted)");
        return 1;
}

static int put_dir(applier *a, const acs_change *ch, char op, int parent, const char *name, bool exists,
                   const struct stat *st)
{
        bool had = exists && S_ISDIR(st->st_mode);
        uint32_t mode = final_mode(a, ch, had, st);
        int r;

        if (!had) {
                if (mkdirat(parent, name, 0700) < 0)
                        return record(a, ch, op, ACS_APPLY_FAILED, -errno, "mkdir: %m");
                if ((r = give_owner(parent, name, a->ws_uid, a->ws_gid)) < 0)
                        return record(a, ch, op, ACS_APPLY_FAILED, r, "chown: %s", strerror(-r));
        }
        if (!had || mode != (st->st_mode & 07777)) {
                /* through an fd that refused to follow a symlink: a host process
                 * swapping the directory for a link cannot redirect the chmod */
                _cleanup_close_ int dfd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (dfd < 0 || fchmod(dfd, mode) < 0)
                        return record(a, ch, op, ACS_APPLY_FAILED, -errno, "chmod: %m");
        }
        return note_mode(a, ch, mode, record(a, ch, op, ACS_APPLY_DONE, 0, "written"));
}

static int apply_put(applier *a, const acs_change *ch, char list, const acs_prot *p)
{
        _cleanup_close_ int parent = -1;
        const char *name = NULL;
        char op = acs_change_op(ch, list);
        struct stat st;
        bool exists;
        int r;

        if ((r = refuse_put(a, ch, op, p)) <= 0)
                return r;
        parent = acs_open_parent_beneath(a->lower_fd, ch->path, &name);
        if (parent < 0)
                return record(a, ch, op, status_for_open_error(parent), parent,
                              "cannot open the parent: %s", strerror(-parent));
        r = check_put(a, ch, op, parent, name, &st, &exists);
        if (r <= 0)
                return r;
        if (a->dry_run)
                return record(a, ch, op, ACS_APPLY_DONE, 0, "dry run");
        /* a directory on either side cannot be renamed over: remove the old one */
        if (exists && S_ISDIR(st.st_mode) != (ch->type == ACS_FT_DIR) &&
            unlinkat(parent, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) < 0)
                return record(a, ch, op, errno == ENOTEMPTY ? ACS_APPLY_CONFLICT : ACS_APPLY_FAILED,
                              -errno, "cannot remove the old entry: %m");
        if (ch->type == ACS_FT_DIR)
                return put_dir(a, ch, op, parent, name, exists, &st);
        /* a changed file keeps its host owner and mode (but for the owner's x bit) */
        bool same = exists && acs_ftype_from_mode(st.st_mode) == ch->type;
        uint32_t mode = final_mode(a, ch, exists, &st);
        r = put_atomic(a, ch, parent, name, mode, same ? st.st_uid : a->ws_uid, same ? st.st_gid : a->ws_gid);
        if (r < 0)
                return record(a, ch, op, ACS_APPLY_FAILED, r, "%s",
                              r == -EBADMSG ? "content does not match the recorded sha256"
                                            : strerror(-r));
        return note_mode(a, ch, mode, record(a, ch, op, ACS_APPLY_DONE, 0, "written"));
}

int acs_apply_changes(int upper_fd, int lower_fd, const acs_changes *c, const acs_apply_opts *o,
                      acs_apply_result *ret, acs_error *err)
{
        static const acs_apply_opts none = {};
        acs_apply_result res = {};
        applier a = { .upper_fd = upper_fd, .lower_fd = lower_fd, .c = c, .res = &res, .err = err };
        struct stat wst;
        int r = 0;

        o = o ? o : &none;
        a.dry_run = o->dry_run;
        a.umask = o->umask & 0777;
        if (upper_fd < 0 || lower_fd < 0)
                return acs_error_set(err, -EBADF, "apply", "no workspace to apply to");
        if (fstat(lower_fd, &wst) < 0)
                return acs_error_errno(err, -errno, "apply", "stat of the workspace");
        a.ws_uid = wst.st_uid;
        a.ws_gid = wst.st_gid;
        if ((r = acs_protect_host(c, lower_fd, o->protect, o->guards, &a.prot, err)) < 0)
                return r;
        /* deletions children first (the lists are parents first), then the rest */
        for (size_t i = c->n_deleted; i > 0 && r >= 0; i--)
                r = apply_delete(&a, &c->deleted[i - 1], &a.prot.deleted[i - 1]);
        for (size_t i = 0; i < c->n_modified && r >= 0; i++)
                r = apply_put(&a, &c->modified[i], 'M', &a.prot.modified[i]);
        for (size_t i = 0; i < c->n_added && r >= 0; i++)
                r = apply_put(&a, &c->added[i], 'A', &a.prot.added[i]);
        acs_protect_out_done(&a.prot);
        if (r < 0) {
                acs_apply_result_free(&res);
                return acs_error_errno(err, r, "apply", "cannot apply the changes");
        }
        *ret = res;
        return 0;
}

void acs_changes_mark_run_conflicts(acs_changes *c, int host_fd)
{
        _cleanup_free_ char *last = NULL;
        bool last_changed = false;

        if (host_fd < 0 || (!c->run_start.tv_sec && !c->run_start.tv_nsec))
                return;
        for (size_t i = 0; i < c->n_added; i++) {
                acs_change *ch = &c->added[i];
                const char *slash = strrchr(ch->path, '/');
                size_t n = slash ? (size_t)(slash - ch->path) : 0;

                if (!last || strlen(last) != n || memcmp(last, ch->path, n) != 0) {
                        _cleanup_close_ int dfd = -1;
                        struct stat st;

                        free(last);
                        if (!(last = strndup(ch->path, n)))
                                return;
                        dfd = acs_open_beneath(host_fd, last, O_PATH | O_DIRECTORY, 0);
                        last_changed = dfd >= 0 && fstat(dfd, &st) == 0 &&
                                       (st.st_ctim.tv_sec > c->run_start.tv_sec ||
                                        (st.st_ctim.tv_sec == c->run_start.tv_sec &&
                                         st.st_ctim.tv_nsec > c->run_start.tv_nsec));
                }
                ch->host_dir_changed |= last_changed;
        }
}

void acs_apply_result_free(acs_apply_result *r)
{
        if (!r)
                return;
        for (size_t i = 0; i < r->n_items; i++)
                free(r->items[i].path);
        free(r->items);
        memset(r, 0, sizeof *r);
}

static const char *const status_names[] = {
        [ACS_APPLY_DONE] = "done",         [ACS_APPLY_SKIPPED] = "skipped",
        [ACS_APPLY_PROTECTED] = "protected", [ACS_APPLY_CONFLICT] = "conflict",
        [ACS_APPLY_UNSAFE] = "unsafe",     [ACS_APPLY_FAILED] = "failed",
};

struct json_object *acs_apply_result_to_json(const acs_apply_result *r)
{
        json_object *o = json_object_new_object(), *items = json_object_new_array();

        json_object_object_add(o, "done", json_object_new_int64((int64_t)r->n_done));
        json_object_object_add(o, "skipped", json_object_new_int64((int64_t)r->n_skipped));
        json_object_object_add(o, "protected", json_object_new_int64((int64_t)r->n_protected));
        json_object_object_add(o, "conflicts", json_object_new_int64((int64_t)r->n_conflicts));
        json_object_object_add(o, "unsafe", json_object_new_int64((int64_t)r->n_unsafe));
        json_object_object_add(o, "failed", json_object_new_int64((int64_t)r->n_failed));
        for (size_t i = 0; i < r->n_items; i++) {
                const acs_apply_item *it = &r->items[i];
                json_object *e = json_object_new_object();
                bool esc = false;
                _cleanup_free_ char *p = acs_escape_bytes(it->path, it->path_len, &esc);
                char op[2] = { it->op, 0 };

                json_object_object_add(e, "path", json_object_new_string(p ? p : ""));
                if (esc)
                        json_object_object_add(e, "path_escaped", json_object_new_boolean(1));
                json_object_object_add(e, "op", json_object_new_string(op));
                json_object_object_add(e, "status", json_object_new_string(status_names[it->status]));
                json_object_object_add(e, "reason", json_object_new_string(it->reason));
                if (it->mode_kept) {
                        char m[8];

                        snprintf(m, sizeof m, "%04o", it->mode);
                        json_object_object_add(e, "mode", json_object_new_string(m));
                        snprintf(m, sizeof m, "%04o", it->asked_mode);
                        json_object_object_add(e, "asked_mode", json_object_new_string(m));
                }
                json_object_array_add(items, e);
        }
        json_object_object_add(o, "items", items);
        return o;
}

void acs_apply_result_print(FILE *f, const acs_apply_result *r)
{
        for (size_t i = 0; i < r->n_items; i++) {
                const acs_apply_item *it = &r->items[i];
                _cleanup_free_ char *q = NULL;

                if (it->status == ACS_APPLY_DONE && !it->mode_kept)
                        continue;
                q = acs_quote_c(it->path, it->path_len);
                if (it->status == ACS_APPLY_DONE)
                        fprintf(f, "mode: %c %s: %04o on the host, not the sandbox's %04o (apply never widens "
                                "permissions)\n", it->op, q ? q : "?", it->mode, it->asked_mode);
                else
                        fprintf(f, "%s: %c %s: %s\n", status_names[it->status], it->op, q ? q : "?",
                                it->reason);
        }
        fprintf(f, "applied %zu, skipped %zu, protected %zu, conflicts %zu, unsafe %zu, failed %zu\n",
                r->n_done, r->n_skipped, r->n_protected, r->n_conflicts, r->n_unsafe, r->n_failed);
}
