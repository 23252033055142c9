/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The host side of the write-back's protection: what a host directory holds
 * (the probe of acs_protect_classify), where acs-launch reads its own
 * configuration (by identity: dev and inode of the directories, so that a
 * symlink, a bind mount or another spelling of the same place is the same
 * place), and whether the workspace itself lies inside a git directory or a
 * configuration directory.
 *
 * Nothing here follows a symlink inside the workspace: directories are
 * opened with openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS) like apply does,
 * so what is probed is what apply could write to.
 */
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "apply-policy.h"
#include "diff-internal.h"
#include "profile.h"

/* The git-directory markers in dfd; the rest only when HEAD is there or
 * the changes bring one (known): without HEAD nothing is a git directory. */
static unsigned markers_at(int dfd, unsigned known)
{
        static const char *const names[] = { "HEAD", "objects", "refs", "commondir" };
        unsigned m = 0;
        struct stat st;

        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                if (fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
                        m |= acs_repo_marker(names[i], strlen(names[i]));
                if (i == 0 && !((m | known) & ACS_MARK_HEAD))
                        break;
        }
        return m;
}

static int probe(void *userdata, const char *path, size_t len, unsigned known, acs_host_dir *ret)
{
        int host = *(int *)userdata;
        _cleanup_close_ int dfd = -1;
        struct stat st;

        if (len) {
                _cleanup_free_ char *p = strndup(path, len);

                if (!p)
                        return -ENOMEM;
                dfd = acs_open_beneath(host, p, O_PATH | O_DIRECTORY, 0);
                if (dfd == -ENOMEM)
                        return dfd;
                if (dfd < 0)
                        return 0; /* absent, not a directory, behind a symlink: nothing there */
        }
        if (fstat(len ? dfd : host, &st) < 0 || !S_ISDIR(st.st_mode))
                return 0;
        *ret = (acs_host_dir){ .exists = true, .markers = markers_at(len ? dfd : host, known),
                               .dev = st.st_dev, .ino = st.st_ino };
        return 0;
}

/* The workspace inside a git directory or a configuration directory: all of it is protected. */
static void root_protection(int host, const acs_guards *g, acs_prot *ret)
{
        _cleanup_close_ int cur = openat(host, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
        struct stat prev = {}, st;

        if (cur < 0 || fstat(cur, &prev) < 0)
                return;
        for (int level = 0; level < 4096; level++) {
                int up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);

                if (up < 0)
                        return;
                closep(&cur);
                cur = up;
                if (fstat(cur, &st) < 0 || (st.st_dev == prev.st_dev && st.st_ino == prev.st_ino))
                        return; /* the root */
                prev = st;
                if (acs_repo_shaped(markers_at(cur, 0))) {
                        *ret = (acs_prot){ ACS_PROT_REPO, NULL };
                        return;
                }
                for (size_t i = 0; g && i < g->n; i++)
                        if (g->v[i].dev == st.st_dev && g->v[i].ino == st.st_ino && !g->v[i].tail) {
                                *ret = (acs_prot){ ACS_PROT_CONFIG, g->v[i].what };
                                return;
                        }
        }
}

int acs_protect_host(const acs_changes *c, int host_fd, char *const *globs, const acs_guards *guards,
                     acs_protect_out *ret, acs_error *err)
{
        acs_globset gs = {};
        acs_protect_in in = { .globs = &gs, .guards = guards };
        int r;

        if ((r = acs_globset_compile(globs, &gs)) < 0)
                return acs_error_errno(err, r, "protect", "cannot compile the protect patterns");
        if (getrandom(&in.seed, sizeof in.seed, 0) != sizeof in.seed)
                in.seed = (uint64_t)(uintptr_t)&in ^ (uint64_t)getpid() << 32;
        if (host_fd >= 0) {
                in.probe = probe;
                in.probe_data = &host_fd;
                root_protection(host_fd, guards, &in.root);
        }
        r = acs_protect_classify(c, &in, ret);
        acs_globset_done(&gs);
        return r < 0 ? acs_error_errno(err, r, "protect", "cannot classify the changes") : 0;
}

int acs_protect_mark(acs_changes *c, int host_fd, char *const *globs, const acs_guards *guards,
                     acs_error *err)
{
        acs_protect_out o = {};
        int r;

        /* every run ends here: a run that changed nothing has nothing to mark */
        if (acs_changes_count(c) == 0)
                return 0;
        r = acs_protect_host(c, host_fd, globs, guards, &o, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < c->n_added; i++)
                c->added[i].is_protected |= o.added[i].kind != ACS_PROT_NONE;
        for (size_t i = 0; i < c->n_modified; i++)
                c->modified[i].is_protected |= o.modified[i].kind != ACS_PROT_NONE;
        for (size_t i = 0; i < c->n_deleted; i++)
                c->deleted[i].is_protected |= o.deleted[i].kind != ACS_PROT_NONE;
        acs_protect_out_done(&o);
        return 0;
}

/* ---- where acs-launch reads its configuration ------------------------------------ */

/* Absolute components of path (relative paths from the current directory). */
static int components(const char *path, char ***ret)
{
        _cleanup_free_ char *abs = NULL;
        char **v = NULL;

        if (path[0] != '/') {
                char cwd[PATH_MAX];

                if (!getcwd(cwd, sizeof cwd) || asprintf(&abs, "%s/%s", cwd, path) < 0)
                        return -errno;
                path = abs;
        }
        _cleanup_free_ char *copy = strdup(path);
        if (!copy)
                return -ENOMEM;
        for (char *save = NULL, *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save))
                if (strcmp(c, ".") && acs_strv_push(&v, c) < 0) {
                        acs_strv_free(v);
                        return -ENOMEM;
                }
        *ret = v;
        return 0;
}

/* Replace queue[i] by the components of a symlink's target; 1 when absolute. */
static int splice_link(char ***queue, size_t i, const char *target)
{
        char **v = NULL, **t = NULL;
        int r = components(target[0] == '/' ? target : "/", &t);

        if (r < 0)
                return r;
        if (target[0] != '/') { /* relative: its own components, then the rest */
                acs_strv_free(t);
                t = NULL;
                _cleanup_free_ char *copy = strdup(target);
                if (!copy)
                        return -ENOMEM;
                for (char *save = NULL, *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save))
                        if (strcmp(c, ".") && acs_strv_push(&t, c) < 0)
                                goto oom;
        }
        for (char **p = t; p && *p; p++)
                if (acs_strv_push(&v, *p) < 0)
                        goto oom;
        for (char **p = *queue + i + 1; *p; p++)
                if (acs_strv_push(&v, *p) < 0)
                        goto oom;
        acs_strv_free(t);
        acs_strv_free(*queue);
        *queue = v;
        return target[0] == '/';
oom:
        acs_strv_free(t);
        acs_strv_free(v);
        return -ENOMEM;
}

static int open_root(void)
{
        int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

        return fd < 0 ? -errno : fd;
}

/*
 * Where a configured path lies: the deepest existing directory on its way
 * (symlinks followed as open() would follow them) and the components below
 * it that do not exist (".." among them resolved lexically, as they would be
 * once the missing directories exist).
 */
static int locate(const char *path, struct stat *ret_st, char ***ret_tail)
{
        _cleanup_strv_free_ char **q = NULL;
        _cleanup_close_ int cur = open_root();
        char **tail = NULL;
        int links = 0, r;
        size_t i = 0;

        if (cur < 0)
                return cur;
        if ((r = components(path, &q)) < 0)
                return r;
        while (q && q[i]) {
                struct stat st;
                int next;

                if (strcmp(q[i], "..") == 0)
                        next = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
                else if (fstatat(cur, q[i], &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISREG(st.st_mode))
                        break; /* missing (or a file, or unreadable): the rest is the tail */
                else if (S_ISLNK(st.st_mode)) {
                        char buf[PATH_MAX];
                        ssize_t k = readlinkat(cur, q[i], buf, sizeof buf - 1);

                        if (k <= 0 || ++links > 40)
                                break;
                        buf[k] = 0;
                        if ((r = splice_link(&q, i, buf)) < 0)
                                return r;
                        if (r == 1) {
                                closep(&cur);
                                if ((cur = open_root()) < 0)
                                        return cur;
                        }
                        i = 0;
                        continue;
                } else
                        next = openat(cur, q[i], O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (next < 0)
                        break;
                closep(&cur);
                cur = next;
                i++;
        }
        if (fstat(cur, ret_st) < 0)
                return -errno;
        for (; q && q[i]; i++) {
                char f[strlen(q[i]) + 1];
                size_t n;

                if (strcmp(q[i], "..") == 0) {
                        size_t len = acs_strv_length(tail);

                        if (len) {
                                free(tail[len - 1]);
                                tail[len - 1] = NULL;
                        }
                        continue;
                }
                n = acs_fold_name(q[i], strlen(q[i]), f);
                f[n] = 0;
                if (acs_strv_push(&tail, f) < 0) {
                        acs_strv_free(tail);
                        return -ENOMEM;
                }
        }
        *ret_tail = tail;
        return 0;
}

/* Guard path; with name, guard name inside the directory path. */
static int add_guard(acs_guards *g, const char *path, const char *name)
{
        struct stat st;
        char **tail = NULL;
        int r = locate(path, &st, &tail);

        if (r < 0)
                return r;
        if (name) {
                char f[strlen(name) + 1];

                f[acs_fold_name(name, strlen(name), f)] = 0;
                if (acs_strv_push(&tail, f) < 0)
                        goto oom;
        }
        char *what = NULL;
        if (name ? asprintf(&what, "%s/%s", path, name) < 0 : !(what = strdup(path)))
                goto oom;
        acs_guard *nv = realloc(g->v, (g->n + 1) * sizeof *nv);
        if (!nv) {
                free(what);
                goto oom;
        }
        g->v = nv;
        g->v[g->n++] = (acs_guard){ .dev = st.st_dev, .ino = st.st_ino, .tail = tail, .what = what };
        return 0;
oom:
        acs_strv_free(tail);
        return -ENOMEM;
}

int acs_guards_for_profile(const char *profile_path, acs_guards *ret, acs_error *err)
{
        _cleanup_strv_free_ char **dirs = acs_profile_search_path();
        acs_guards g = {};
        int r = dirs ? 0 : -ENOMEM;

        for (char **d = dirs; r >= 0 && d && *d; d++)
                r = add_guard(&g, *d, NULL);
        if (r >= 0 && profile_path) {
                /* the file as read (symlinks followed), and its name in its directory */
                _cleanup_free_ char *dir = strdup(profile_path);
                char *slash = dir ? strrchr(dir, '/') : NULL;

                r = dir ? add_guard(&g, profile_path, NULL) : -ENOMEM;
                if (r >= 0 && slash)
                        *slash = 0, r = add_guard(&g, *dir ? dir : "/", slash + 1);
                else if (r >= 0)
                        r = add_guard(&g, ".", profile_path);
        }
        if (r < 0) {
                acs_guards_done(&g);
                return acs_error_errno(err, r, "apply", "cannot find acs-launch's configuration directories");
        }
        *ret = g;
        return 0;
}
