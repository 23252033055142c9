/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * --keep DIR and `acs-launch apply DIR --workspace W`: the upper layer in a
 * portable form (a manifest instead of whiteouts and xattrs), applied later
 * with the same checks as --apply.
 */
#include <dirent.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "diff-internal.h"
#include "input.h"

#define KEEP_SCHEMA "acs-keep/1"
#define KEEP_MANIFEST "acs-keep.json"
#define KEEP_PATCH "changes.patch"

static int dir_is_empty(int dfd)
{
        int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct dirent *de;
        int r = 1;
        DIR *d;

        if (fd < 0)
                return -errno;
        if (!(d = fdopendir(fd))) {
                close(fd);
                return -errno;
        }
        while ((de = readdir(d)))
                if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
                        r = 0;
                        break;
                }
        closedir(d);
        return r;
}

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
                for (ssize_t off = 0; off < k;) {
                        ssize_t w = write(out, buf + off, (size_t)(k - off));

                        if (w < 0 && errno != EINTR)
                                return -errno;
                        if (w > 0)
                                off += w;
                }
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
        while (n) {
                ssize_t w = write(fd, s, n);

                if (w < 0 && errno != EINTR)
                        return -errno;
                if (w > 0)
                        s += w, n -= (size_t)w;
        }
        return 0;
}

static int write_manifest(int dfd, const acs_changes *c)
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
        json_object_object_add(m, "schema", json_object_new_string(KEEP_SCHEMA));
        json_object_object_add(rs, "sec", json_object_new_int64(c->run_start.tv_sec));
        json_object_object_add(rs, "nsec", json_object_new_int64(c->run_start.tv_nsec));
        json_object_object_add(m, "run_start", rs);
        json_object_object_add(m, "files", files);
        s = json_object_to_json_string_ext(m, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
        r = write_at(dfd, KEEP_MANIFEST, s, strlen(s));
        json_object_put(m);
        return r;
}

int acs_keep_layer(int upper_fd, const acs_changes *c, const char *dir, acs_error *err)
{
        _cleanup_close_ int dfd = -1, tree = -1;
        int r;

        if (mkdir(dir, 0700) < 0 && errno != EEXIST)
                return acs_error_errno(err, -errno, "keep", "cannot create %s", dir);
        dfd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0)
                return acs_error_errno(err, -errno, "keep", "cannot open %s", dir);
        if ((r = dir_is_empty(dfd)) <= 0)
                return acs_error_errno(err, r < 0 ? r : -EEXIST, "keep", "%s must be a new or empty directory", dir);
        if (mkdirat(dfd, "tree", 0700) < 0 ||
            (tree = openat(dfd, "tree", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
                return acs_error_errno(err, -errno, "keep", "cannot create %s/tree", dir);
        for (size_t i = 0; i < c->n_modified; i++)
                if ((r = keep_one(upper_fd, tree, &c->modified[i])) < 0)
                        return acs_error_errno(err, r, "keep", "cannot keep %s", c->modified[i].path);
        for (size_t i = 0; i < c->n_added; i++)
                if ((r = keep_one(upper_fd, tree, &c->added[i])) < 0)
                        return acs_error_errno(err, r, "keep", "cannot keep %s", c->added[i].path);
        if (c->patch && (r = write_at(dfd, KEEP_PATCH, c->patch, c->patch_len)) < 0)
                return acs_error_errno(err, r, "keep", "cannot write %s/%s", dir, KEEP_PATCH);
        if ((r = write_manifest(dfd, c)) < 0)
                return acs_error_errno(err, r, "keep", "cannot write %s/%s", dir, KEEP_MANIFEST);
        return 0;
}

int acs_keep_load(const char *dir, acs_changes *ret_changes, int *ret_tree_fd, acs_error *err)
{
        _cleanup_close_ int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC), mfd = -1, tree = -1;
        _cleanup_free_ char *buf = NULL;
        json_object *m = NULL, *v, *rs;
        acs_changes c = {};
        size_t len = 0;
        int r;

        if (dfd < 0)
                return acs_error_errno(err, -errno, "apply", "cannot open %s", dir);
        if ((r = acs_read_beneath(dfd, KEEP_MANIFEST, &buf, &len)) < 0)
                return acs_error_errno(err, r, "apply", "cannot read %s/%s", dir, KEEP_MANIFEST);
        m = json_tokener_parse(buf);
        if (!m || !json_object_object_get_ex(m, "schema", &v) ||
            !json_object_is_type(v, json_type_string) ||
            strcmp(json_object_get_string(v), KEEP_SCHEMA) != 0 ||
            !json_object_object_get_ex(m, "files", &v)) {
                json_object_put(m);
                return acs_error_set(err, -EINVAL, "apply", "%s/%s is not an %s manifest", dir,
                                     KEEP_MANIFEST, KEEP_SCHEMA);
        }
        r = acs_changes_from_json(v, &c, err);
        if (r >= 0 && json_object_object_get_ex(m, "run_start", &rs)) {
                if (json_object_object_get_ex(rs, "sec", &v))
                        c.run_start.tv_sec = json_object_get_int64(v);
                if (json_object_object_get_ex(rs, "nsec", &v))
                        c.run_start.tv_nsec = json_object_get_int64(v);
        }
        json_object_put(m);
        if (r < 0)
                return r;
        free(c.patch);
        c.patch = NULL;
        if (acs_read_beneath(dfd, KEEP_PATCH, &c.patch, &c.patch_len) < 0)
                c.patch = NULL, c.patch_len = 0;
        tree = openat(dfd, "tree", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (tree < 0) {
                acs_changes_free(&c);
                return acs_error_errno(err, -errno, "apply", "cannot open %s/tree", dir);
        }
        *ret_changes = c;
        *ret_tree_fd = TAKE_FD(tree);
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

int acs_cmd_apply(const struct acs_options *o)
{
        _cleanup_close_ int tree = -1, ws = -1;
        acs_changes c = {};
        acs_apply_result res = {};
        acs_error err = {};
        int r;

        if (!o->args || !o->args[0] || !o->workspace) {
                fprintf(stderr, "acs-launch: usage: acs-launch apply DIR --workspace W [--json] [--patch FILE]\n");
                return 125;
        }
        r = acs_keep_load(o->args[0], &c, &tree, &err);
        if (r >= 0 && (ws = open(o->workspace, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
                r = acs_error_errno(&err, -errno, "apply", "cannot open workspace %s", o->workspace);
        if (r >= 0 && o->patch)
                r = write_patch_out(o->patch, &c, &err);
        if (r >= 0)
                r = acs_apply_changes(tree, ws, &c, NULL, &res, &err);
        if (r < 0) {
                fprintf(stderr, "acs-launch: %s\n", err.msg);
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
