/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * --keep DIR and `acs-launch apply DIR --workspace W`: the upper layer in a
 * portable form (a manifest instead of whiteouts and xattrs), applied later
 * with the same checks as --apply (and those of keep-load.c).
 *
 * --keep creates DIR itself, mode 0700, and refuses a path that exists:
 * a directory someone else made (or could still write) is not ours to fill,
 * since whoever can change a kept layer can write into the workspace it is
 * applied to.
 */
#include <fcntl.h>
#include <json-c/json.h>
#include <string.h>
#include <sys/stat.h>

#include "apply-policy.h"
#include "cli.h"
#include "input.h"
#include "keep-load.h"
#include "profile.h"

/* mkdir -p of path's parents below tree (0700; real modes are in the manifest) */
static int make_parents(int tree, const char *path)
{
        _cleanup_free_ char *p = strdup(path);

        if (!p)
                return -ENOMEM;
        for (char *s = strchr(p, '/'); s; s = strchr(s + 1, '/')) {
                _cleanup_close_ int parent = -1;
                const char *name;

                *s = 0;
                parent = acs_open_parent_beneath(tree, p, &name);
                if (parent < 0)
                        return parent;
                if (mkdirat(parent, name, 0700) < 0 && errno != EEXIST)
                        return -errno;
                *s = '/';
        }
        return 0;
}

static int copy_fd(int in, int out)
{
        char buf[64 * 1024];

        for (;;) {
                ssize_t k = read(in, buf, sizeof buf);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return k < 0 ? -errno : 0;
                int r = acs_write_all(out, buf, (size_t)k);

                if (r < 0)
                        return r;
        }
}

static int keep_one(int upper_fd, int tree, const acs_change *ch)
{
        _cleanup_close_ int parent = -1, in = -1, out = -1;
        const char *name;
        struct stat st;
        int r;

        if (!acs_path_is_safe(ch->path))
                return -EINVAL;
        if (ch->type != ACS_FT_FILE && ch->type != ACS_FT_DIR && ch->type != ACS_FT_SYMLINK)
                return 0; /* listed in the manifest only */
        if ((r = make_parents(tree, ch->path)) < 0)
                return r;
        parent = acs_open_parent_beneath(tree, ch->path, &name);
        if (parent < 0)
                return parent;
        if (ch->type == ACS_FT_DIR)
                return mkdirat(parent, name, 0700) < 0 && errno != EEXIST ? -errno : 0;
        if (ch->type == ACS_FT_SYMLINK)
                return symlinkat(ch->target ? ch->target : "", parent, name) < 0 ? -errno : 0;
        in = acs_open_beneath(upper_fd, ch->path, O_RDONLY | O_NONBLOCK, 0);
        if (in < 0)
                return in;
        if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode))
                return -EINVAL;
        out = openat(parent, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (out < 0)
                return -errno;
        return copy_fd(in, out);
}

static int write_at(int dfd, const char *name, const char *s, size_t n)
{
        _cleanup_close_ int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

        if (fd < 0)
                return -errno;
        return acs_write_all(fd, s, n);
}

static int write_manifest(int dfd, const acs_changes *c, const char *patch_sha)
{
        json_object *m = json_object_new_object(), *rs = json_object_new_object();
        json_object *files = acs_changes_to_json(c);
        const char *s;
        int r;

        if (!m || !rs || !files) {
                json_object_put(m), json_object_put(rs), json_object_put(files);
                return -ENOMEM;
        }
        json_object_object_del(files, "patch"); /* kept as changes.patch */
        json_object_object_del(files, "patch_escaped");
        json_object_object_add(m, "schema", json_object_new_string(ACS_KEEP_SCHEMA));
        json_object_object_add(rs, "sec", json_object_new_int64(c->run_start.tv_sec));
        json_object_object_add(rs, "nsec", json_object_new_int64(c->run_start.tv_nsec));
        json_object_object_add(m, "run_start", rs);
        if (*patch_sha)
                json_object_object_add(m, "patch_sha256", json_object_new_string(patch_sha));
        json_object_object_add(m, "files", files);
        s = json_object_to_json_string_ext(m, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
        r = write_at(dfd, ACS_KEEP_MANIFEST, s, strlen(s));
        json_object_put(m);
        return r;
}

/* Create dir (0700, not there before) and open it: ours alone, or an error. */
int acs_keep_check(const char *dir, acs_error *err)
{
        _cleanup_free_ char *parent = strdup(dir);
        struct stat st;
        if (!parent)
                return acs_error_set(err, -ENOMEM, "keep", "out of memory");
        if (lstat(dir, &st) == 0 || errno != ENOENT)
                return acs_error_errno(err, errno == 0 || errno == ENOENT ? -EEXIST : -errno, "keep",
                                       "cannot create %s%s", dir,
                                       errno == 0 || errno == ENOENT ? ": it exists (--keep creates its directory "
                                                                      "itself; give a new path)" : "");
        char *slash = strrchr(parent, '/');
        if (!slash)
                strcpy(parent, ".");
        else if (slash == parent)
                parent[1] = '\0';
        else
                *slash = '\0';
        if (stat(parent, &st) < 0)
                return acs_error_errno(err, -errno, "keep", "cannot create %s: its directory %s", dir, parent);
        if (!S_ISDIR(st.st_mode))
                return acs_error_set(err, -ENOTDIR, "keep", "cannot create %s: %s is not a directory", dir, parent);
        if (access(parent, W_OK | X_OK) < 0)
                return acs_error_errno(err, -errno, "keep", "cannot create %s in %s", dir, parent);
        return 0;
}

static int make_keep_dir(const char *dir, acs_error *err)
{
        _cleanup_close_ int dfd = -1;
        struct stat st;
        int r;

        if (mkdir(dir, 0700) < 0)
                return acs_error_errno(err, -errno, "keep", "cannot create %s%s", dir,
                                       errno == EEXIST ? ": it exists (--keep creates its directory itself; "
                                                         "give a new path)" : "");
        /* no symlink: mkdir made a directory, and one swapped in since is refused */
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0)
                return acs_error_errno(err, -errno, "keep", "cannot open %s", dir);
        if (fstat(dfd, &st) < 0)
                return acs_error_errno(err, -errno, "keep", "cannot stat %s", dir);
        if (st.st_uid != geteuid() || (st.st_mode & 07777) != 0700)
                return acs_error_set(err, -EPERM, "keep", "%s is not the directory --keep created", dir);
        if ((r = acs_keep_dir_trusted(dfd, dir, err)) < 0) {
                (void)!rmdir(dir); /* ours, empty: not left behind where others could fill it */
                return r;
        }
        return TAKE_FD(dfd);
}

int acs_keep_layer(int upper_fd, const acs_changes *c, const char *dir, acs_error *err)
{
        _cleanup_close_ int dfd = -1, tree = -1;
        char patch_sha[65] = "";
        acs_crypto cr;
        int r;

        if ((dfd = make_keep_dir(dir, err)) < 0)
                return dfd;
        if (mkdirat(dfd, ACS_KEEP_TREE, 0700) < 0 ||
            (tree = openat(dfd, ACS_KEEP_TREE, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
                return acs_error_errno(err, -errno, "keep", "cannot create %s/tree", dir);
        for (size_t i = 0; i < c->n_modified; i++)
                if ((r = keep_one(upper_fd, tree, &c->modified[i])) < 0)
                        return acs_error_errno(err, r, "keep", "cannot keep %s", c->modified[i].path);
        for (size_t i = 0; i < c->n_added; i++)
                if ((r = keep_one(upper_fd, tree, &c->added[i])) < 0)
                        return acs_error_errno(err, r, "keep", "cannot keep %s", c->added[i].path);
        if (c->patch) {
                if ((r = write_at(dfd, ACS_KEEP_PATCH, c->patch, c->patch_len)) < 0)
                        return acs_error_errno(err, r, "keep", "cannot write %s/%s", dir, ACS_KEEP_PATCH);
                acs_crypto_load(&cr, err);
                if ((r = acs_sha256_buf(&cr, c->patch, c->patch_len, patch_sha)) < 0)
                        return acs_error_errno(err, r, "keep", "cannot hash the patch");
        }
        if ((r = write_manifest(dfd, c, patch_sha)) < 0)
                return acs_error_errno(err, r, "keep", "cannot write %s/%s", dir, ACS_KEEP_MANIFEST);
        return 0;
}

static int write_patch_out(const char *dest, const acs_changes *c, acs_error *err)
{
        FILE *f;

        if (!c->patch)
                return acs_error_set(err, -ENOENT, "apply", "the kept layer has no patch");
        f = strcmp(dest, "-") == 0 ? stdout : fopen(dest, "we");
        if (!f)
                return acs_error_errno(err, -errno, "apply", "cannot write %s", dest);
        acs_term_fwrite(c->patch, c->patch_len, f, true); /* the program's bytes: never raw to a terminal */
        if (f == stdout ? fflush(f) != 0 : fclose(f) != 0)
                return acs_error_errno(err, -errno, "apply", "cannot write %s", dest);
        return 0;
}

static void print_error_json(const char *msg)
{
        json_object *j = json_object_new_object();

        json_object_object_add(j, "schema", json_object_new_string("acs-apply/1"));
        json_object_object_add(j, "status", json_object_new_string("error"));
        json_object_object_add(j, "error", json_object_new_string(msg));
        puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(j);
}

/* The current profile's protect list and acs-launch's configuration places:
 * what the kept layer says about protection is not what decides. */
static int current_policy(const struct acs_options *o, acs_profile **ret, acs_guards *guards, acs_error *err)
{
        int r = acs_profile_load(o->profile ? o->profile : "default", ret, err);

        return r < 0 ? r : acs_guards_for_profile((*ret)->path, guards, err);
}

int acs_cmd_apply(const struct acs_options *o)
{
        _cleanup_close_ int tree = -1, ws = -1;
        _cleanup_profile_ acs_profile *prof = NULL;
        _cleanup_(acs_guards_done) acs_guards guards = {};
        acs_changes c = {};
        acs_apply_result res = {};
        acs_error err = {};
        int r;

        if (!o->args || !o->args[0] || !o->workspace) {
                acs_log(0, "usage: acs-launch apply DIR --workspace W [--json] [--patch FILE]");
                return 125;
        }
        r = current_policy(o, &prof, &guards, &err);
        if (r >= 0)
                r = acs_keep_load(o->args[0], &c, &tree, &err);
        if (r >= 0 && (ws = open(o->workspace, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
                r = acs_error_errno(&err, -errno, "apply", "cannot open workspace %s", o->workspace);
        if (r >= 0 && o->patch)
                r = write_patch_out(o->patch, &c, &err);
        if (r >= 0) {
                acs_apply_opts ao = { .protect = prof->protect, .guards = &guards, .umask = o->umask };

                r = acs_apply_changes(tree, ws, &c, &ao, &res, &err);
        }
        if (r < 0) {
                if (o->json)
                        print_error_json(err.msg[0] ? err.msg : strerror(-r));
                acs_log(0, "%s", err.msg[0] ? err.msg : strerror(-r));
                acs_changes_free(&c);
                return 125;
        }
        if (o->json) {
                json_object *j = json_object_new_object();

                json_object_object_add(j, "schema", json_object_new_string("acs-apply/1"));
                json_object_object_add(j, "files", acs_changes_to_json(&c));
                json_object_object_add(j, "apply", acs_apply_result_to_json(&res));
                puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
                json_object_put(j);
        } else if (!o->quiet) {
                acs_apply_result_print(stderr, &res);
        }
        r = res.n_conflicts || res.n_unsafe || res.n_failed ? 1 : 0;
        acs_apply_result_free(&res);
        acs_changes_free(&c);
        return r;
}
