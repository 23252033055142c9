/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Loading a kept layer for `acs-launch apply`, trusting nothing in it.
 *
 * Security argument: a keep directory is applied with the caller's rights
 * into the caller's workspace, so whoever can change it between the run and
 * the apply can write into that workspace. So: the directory and every
 * directory above it must be the caller's (or root's) and writable by nobody
 * else (a sticky directory like /tmp excepted: others cannot rename or
 * remove what is ours in it), as ssh and sudo check their files; every file
 * read is opened without following symlinks and without waiting (a FIFO is
 * an error, not a hang), and must be a regular file of the caller's that
 * others cannot write. Then what is applied must be exactly what was kept
 * and shown: every kept file and symlink matches its manifest entry (sha256,
 * target), tree/ holds nothing else, changes.patch matches the sha256 the
 * manifest recorded and shows exactly the manifest's changes (keep-patch.c).
 * Any disagreement refuses the whole layer: nothing is applied.
 */
#include <dirent.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "keep-load.h"
#include "keep-patch.h"

#define MAX_MANIFEST (512u << 20)

static int untrusted(acs_error *err, const char *what, const char *fmt_why, ...) _printf_(3, 4);
static int untrusted(acs_error *err, const char *what, const char *fmt_why, ...)
{
        char why[160];
        va_list ap;

        va_start(ap, fmt_why);
        vsnprintf(why, sizeof why, fmt_why, ap);
        va_end(ap);
        return acs_error_set(err, -EPERM, "apply", "%s %s: a kept layer must be yours alone (see acs-launch(1), "
                             "KEPT LAYERS)", what, why);
}

int acs_keep_dir_trusted(int dfd, const char *dir, acs_error *err)
{
        _cleanup_close_ int cur = openat(dfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
        _cleanup_free_ char *real = realpath(dir, NULL);
        uid_t me = geteuid();
        struct stat st, prev;

        if (cur < 0 || fstat(cur, &st) < 0)
                return acs_error_errno(err, -errno, "apply", "cannot stat %s", dir);
        if (st.st_uid != me)
                return untrusted(err, dir, "belongs to uid %u", st.st_uid);
        if (st.st_mode & 022)
                return untrusted(err, dir, "is writable by others (mode %04o)", st.st_mode & 07777);
        for (int level = 1; level < 4096; level++) {
                int up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
                char *slash = real ? strrchr(real, '/') : NULL;
                const char *name = real && slash && slash != real ? (*slash = 0, real) : "/";

                prev = st;
                if (up < 0 || fstat(up, &st) < 0) {
                        if (up >= 0)
                                close(up);
                        return acs_error_errno(err, -errno, "apply", "cannot check the directories above %s", dir);
                }
                closep(&cur);
                cur = up;
                if (st.st_dev == prev.st_dev && st.st_ino == prev.st_ino)
                        return 0; /* the root */
                if (st.st_uid != 0 && st.st_uid != me)
                        return untrusted(err, name, "(above the kept layer) belongs to uid %u", st.st_uid);
                if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))
                        return untrusted(err, name, "(above the kept layer) is writable by others and not "
                                         "sticky (mode %04o)", st.st_mode & 07777);
        }
        return acs_error_set(err, -ELOOP, "apply", "%s: too many directories above it", dir);
}

/* A regular file of ours, writable only by us: the fd, or -errno (err filled). */
int acs_keep_open_file(int dfd, const char *dir, const char *name, struct stat *ret_st, acs_error *err)
{
        _cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
        char what[PATH_MAX + 64];

        snprintf(what, sizeof what, "%s/%s", dir, name);
        if (fd < 0)
                return acs_error_errno(err, -errno, "apply", "cannot open %s", what);
        if (fstat(fd, ret_st) < 0)
                return acs_error_errno(err, -errno, "apply", "cannot stat %s", what);
        if (!S_ISREG(ret_st->st_mode))
                return acs_error_set(err, -EINVAL, "apply", "%s is not a regular file", what);
        if (ret_st->st_uid != geteuid())
                return untrusted(err, what, "belongs to uid %u", ret_st->st_uid);
        if (ret_st->st_mode & 022)
                return untrusted(err, what, "is writable by others (mode %04o)", ret_st->st_mode & 07777);
        return TAKE_FD(fd);
}

static int read_file(int dfd, const char *dir, const char *name, char **ret, size_t *ret_len, acs_error *err)
{
        struct stat st;
        _cleanup_close_ int fd = acs_keep_open_file(dfd, dir, name, &st, err);
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;

        if (fd < 0)
                return fd;
        if ((uint64_t)st.st_size > MAX_MANIFEST)
                return acs_error_set(err, -EFBIG, "apply", "%s/%s is larger than %u bytes", dir, name, MAX_MANIFEST);
        int r = acs_read_all(fd, (size_t)st.st_size, &buf, &len);
        if (r == -ENOMEM)
                return acs_error_set(err, -ENOMEM, "apply", "out of memory");
        if (r >= 0 && len < (size_t)st.st_size)
                r = -EIO; /* shorter than it was a moment ago */
        if (r < 0)
                return acs_error_errno(err, r, "apply", "cannot read %s/%s", dir, name);
        *ret = TAKE_PTR(buf);
        *ret_len = len;
        return 0;
}

static int get_time(json_object *m, struct timespec *ret)
{
        json_object *rs, *v;

        if (!json_object_object_get_ex(m, "run_start", &rs) || !json_object_object_get_ex(rs, "sec", &v))
                return -EINVAL;
        ret->tv_sec = json_object_get_int64(v);
        if (json_object_object_get_ex(rs, "nsec", &v))
                ret->tv_nsec = json_object_get_int64(v);
        /* 0 would turn conflict detection off; a future one could hide host changes */
        if (ret->tv_sec <= 0 || ret->tv_nsec < 0 || ret->tv_nsec >= 1000000000L || ret->tv_sec > time(NULL) + 60)
                return -EINVAL;
        return 0;
}

/* The manifest: the changes, run_start, the patch's sha256 ("" when none). */
static int load_manifest(int dfd, const char *dir, acs_changes *c, char patch_sha[static 65], acs_error *err)
{
        _cleanup_free_ char *buf = NULL;
        json_object *m, *v;
        size_t len = 0;
        int r;

        if ((r = read_file(dfd, dir, ACS_KEEP_MANIFEST, &buf, &len, err)) < 0)
                return r;
        m = json_tokener_parse(buf);
        if (!m || !json_object_object_get_ex(m, "schema", &v) || !json_object_is_type(v, json_type_string) ||
            strcmp(json_object_get_string(v), ACS_KEEP_SCHEMA) != 0 || !json_object_object_get_ex(m, "files", &v)) {
                json_object_put(m);
                return acs_error_set(err, -EINVAL, "apply", "%s/%s is not an %s manifest (a layer kept by an "
                                     "older acs-launch cannot be checked: apply its changes.patch with git apply)",
                                     dir, ACS_KEEP_MANIFEST, ACS_KEEP_SCHEMA);
        }
        r = acs_changes_from_json(v, c, err);
        if (r >= 0 && get_time(m, &c->run_start) < 0)
                r = acs_error_set(err, -EINVAL, "apply", "%s/%s: run_start is missing or not a time of a past "
                                  "run (conflict detection needs it)", dir, ACS_KEEP_MANIFEST);
        patch_sha[0] = 0;
        if (r >= 0 && json_object_object_get_ex(m, "patch_sha256", &v)) {
                const char *s = json_object_get_string(v);

                if (!s || strlen(s) != 64 || strspn(s, "0123456789abcdef") != 64)
                        r = acs_error_set(err, -EINVAL, "apply", "%s/%s: bad patch_sha256", dir, ACS_KEEP_MANIFEST);
                else
                        memcpy(patch_sha, s, 65);
        }
        json_object_put(m);
        return r;
}

/* changes.patch: present exactly when the manifest has its sha256, matching it. */
static int load_patch(int dfd, const char *dir, acs_changes *c, const char *patch_sha,
                      acs_patch_index *ret, bool *ret_have, acs_error *err)
{
        char hex[65];
        const char *bad;
        acs_crypto cr;
        struct stat st;
        int r;

        free(c->patch);
        c->patch = NULL, c->patch_len = 0, *ret_have = false;
        if (!*patch_sha) {
                if (fstatat(dfd, ACS_KEEP_PATCH, &st, AT_SYMLINK_NOFOLLOW) == 0 || !c->patch_omitted)
                        return acs_error_set(err, -EBADMSG, "apply", "%s: the manifest records no %s%s", dir,
                                             ACS_KEEP_PATCH, c->patch_omitted ? " but there is one" : " and does not say it was omitted");
                return 0; /* larger than the patch limit: the manifest and tree/ are all there is */
        }
        if ((r = read_file(dfd, dir, ACS_KEEP_PATCH, &c->patch, &c->patch_len, err)) < 0)
                return r;
        acs_crypto_load(&cr, err);
        if (acs_sha256_buf(&cr, c->patch, c->patch_len, hex) < 0 || strcmp(hex, patch_sha) != 0)
                return acs_error_set(err, -EBADMSG, "apply", "%s/%s changed after the run (its sha256 is not "
                                     "the one the manifest recorded)", dir, ACS_KEEP_PATCH);
        if ((r = acs_patch_index_parse(c->patch, c->patch_len, ret, &bad)) < 0)
                return acs_error_set(err, r, "apply", "%s/%s: not a patch acs-launch wrote, at: %.60s", dir,
                                     ACS_KEEP_PATCH, bad ? bad : "?");
        acs_patch_index_sort(ret);
        *ret_have = true;
        return 0;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool kept_type(acs_ftype t)
{
        return t == ACS_FT_FILE || t == ACS_FT_DIR || t == ACS_FT_SYMLINK;
}

/* One kept entry against its manifest entry; the git blob id of a file into blob. */
static int check_entry(int tree, const char *dir, const acs_change *ch, char blob[static 41], acs_error *err)
{
        _cleanup_close_ int parent = -1, fd = -1;
        const char *name = NULL;
        char buf[PATH_MAX + 1], sha[65];
        struct stat st;
        ssize_t k;

        blob[0] = 0;
        if (!acs_path_is_safe(ch->path))
                return acs_error_set(err, -EBADMSG, "apply", "%s: the manifest names an unsafe path: %s", dir, ch->path);
        parent = acs_open_parent_beneath(tree, ch->path, &name);
        if (parent < 0 || fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                if (!kept_type(ch->type))
                        return 0; /* FIFOs, sockets, devices are listed, never kept */
                return acs_error_set(err, -EBADMSG, "apply", "%s/tree/%s is missing", dir, ch->path);
        }
        if (acs_ftype_from_mode(st.st_mode) != ch->type || !kept_type(ch->type))
                return acs_error_set(err, -EBADMSG, "apply", "%s/tree/%s is a %s, the manifest says %s", dir, ch->path,
                                     acs_ftype_to_string(acs_ftype_from_mode(st.st_mode)), acs_ftype_to_string(ch->type));
        if (ch->type == ACS_FT_SYMLINK) {
                k = readlinkat(parent, name, buf, sizeof buf - 1);
                if (k < 0 || !ch->target || (buf[k] = 0, strcmp(buf, ch->target)))
                        return acs_error_set(err, -EBADMSG, "apply", "%s/tree/%s points elsewhere than the manifest says",
                                             dir, ch->path);
                return 0;
        }
        if (st.st_uid != geteuid() || (st.st_mode & 022))
                return untrusted(err, ch->path, "in tree/ is not yours alone (mode %04o)", st.st_mode & 07777);
        if (ch->type == ACS_FT_DIR)
                return 0;
        fd = openat(parent, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
        if (fd < 0 || acs_hash_fd_git(fd, sha, blob) < 0 || strcmp(sha, ch->sha256))
                return acs_error_set(err, -EBADMSG, "apply", "%s/tree/%s changed after the run (it does not match "
                                     "the sha256 the manifest recorded)", dir, ch->path);
        return 0;
}

/* Does a kept path lie below child ("child/...")? known is sorted. */
static bool holds_known(char **known, size_t n, const char *child)
{
        size_t len = strlen(child), lo = 0, hi = n;

        while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                int c = strncmp(known[mid], child, len);

                if (c < 0 || (c == 0 && known[mid][len] < '/'))
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo < n && strncmp(known[lo], child, len) == 0 && known[lo][len] == '/';
}

/* One directory of tree/: every entry kept by the manifest; subdirectories onto the stack. */
static int check_dir(int tree, const char *dir, const char *p, char **known, size_t n, char ***stack,
                     acs_error *err)
{
        int fd = *p ? acs_open_beneath(tree, p, O_RDONLY | O_DIRECTORY, 0)
                    : openat(tree, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct dirent *de;
        DIR *d;
        int r = 0;

        if (fd < 0 || !(d = fdopendir(fd))) {
                r = fd < 0 ? fd : -errno;
                if (fd >= 0)
                        close(fd);
                return acs_error_errno(err, r, "apply", "cannot list %s/tree/%s", dir, p);
        }
        while (r >= 0 && (de = readdir(d))) {
                _cleanup_free_ char *child = NULL;
                struct stat st;

                if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                        continue;
                if (asprintf(&child, "%s%s%s", p, *p ? "/" : "", de->d_name) < 0) {
                        child = NULL;
                        r = -ENOMEM;
                        break;
                }
                bool listed = bsearch(&child, known, n, sizeof *known, cmp_str) != NULL;
                bool below = holds_known(known, n, child);
                if (!listed && !below)
                        r = acs_error_set(err, -EBADMSG, "apply", "%s/tree/%s is not in the manifest", dir, child);
                else if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
                        r = acs_strv_push(stack, child);
        }
        closedir(d);
        return r;
}

/* Nothing in tree/ that the manifest lacks (iterative: tree/ may be deep). */
static int check_extra(int tree, const char *dir, const acs_changes *c, acs_error *err)
{
        const acs_change *lists[] = { c->added, c->modified };
        size_t ns[] = { c->n_added, c->n_modified }, n = 0;
        _cleanup_free_ char **known = calloc(c->n_added + c->n_modified + 1, sizeof *known);
        _cleanup_strv_free_ char **stack = NULL;
        int r = known ? acs_strv_push(&stack, "") : -ENOMEM;

        for (size_t l = 0; known && l < 2; l++)
                for (size_t i = 0; i < ns[l]; i++)
                        if (kept_type(lists[l][i].type))
                                known[n++] = lists[l][i].path;
        if (n)
                qsort(known, n, sizeof *known, cmp_str);
        while (r >= 0 && acs_strv_length(stack) > 0) {
                size_t top = acs_strv_length(stack) - 1;
                _cleanup_free_ char *p = stack[top];

                stack[top] = NULL;
                r = check_dir(tree, dir, p, known, n, &stack, err);
        }
        return r == -ENOMEM ? acs_error_set(err, r, "apply", "out of memory") : r;
}

static int verify(int tree, const char *dir, acs_changes *c, acs_patch_index *px, bool have_patch,
                  acs_error *err)
{
        acs_change *lists[] = { c->added, c->modified, c->deleted };
        size_t ns[] = { c->n_added, c->n_modified, c->n_deleted };
        static const char kinds[] = { 'A', 'M', 'D' };
        const char *why, *extra;
        char blob[41];
        int r;

        for (size_t l = 0; l < 3; l++)
                for (size_t i = 0; i < ns[l]; i++) {
                        acs_change *ch = &lists[l][i];

                        if (l < 2 && (r = check_entry(tree, dir, ch, blob, err)) < 0)
                                return r;
                        if (l == 2 && !acs_path_is_safe(ch->path))
                                return acs_error_set(err, -EBADMSG, "apply", "%s: the manifest names an unsafe "
                                                     "path: %s", dir, ch->path);
                        if (have_patch && acs_patch_check_change(px, ch, kinds[l], *blob ? blob : NULL, &why) < 0)
                                return acs_error_set(err, -EBADMSG, "apply", "%s: %s: %s (the manifest and %s "
                                                     "disagree)", dir, ch->path, why, ACS_KEEP_PATCH);
                        blob[0] = 0;
                }
        if (have_patch && (extra = acs_patch_unused(px)))
                return acs_error_set(err, -EBADMSG, "apply", "%s/%s shows %s, which the manifest does not have",
                                     dir, ACS_KEEP_PATCH, extra);
        return check_extra(tree, dir, c, err);
}

int acs_keep_load(const char *dir, acs_changes *ret_changes, int *ret_tree_fd, acs_error *err)
{
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), tree = -1;
        acs_changes c = {};
        acs_patch_index px = {};
        char patch_sha[65];
        bool have_patch = false;
        struct stat st;
        int r;

        if (dfd < 0)
                return acs_error_errno(err, -errno, "apply", "cannot open %s%s", dir,
                                       errno == ELOOP ? " (a symlink: give the kept directory itself)" : "");
        if ((r = acs_keep_dir_trusted(dfd, dir, err)) < 0 || (r = load_manifest(dfd, dir, &c, patch_sha, err)) < 0 ||
            (r = load_patch(dfd, dir, &c, patch_sha, &px, &have_patch, err)) < 0)
                goto fail;
        tree = openat(dfd, "tree", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (tree < 0 || fstat(tree, &st) < 0) {
                r = acs_error_errno(err, -errno, "apply", "cannot open %s/tree", dir);
                goto fail;
        }
        if (st.st_uid != geteuid() || (st.st_mode & 022)) {
                r = untrusted(err, dir, "/tree is not yours alone (mode %04o)", st.st_mode & 07777);
                goto fail;
        }
        if ((r = verify(tree, dir, &c, &px, have_patch, err)) < 0)
                goto fail;
        acs_patch_index_done(&px);
        *ret_changes = c;
        *ret_tree_fd = TAKE_FD(tree);
        return 0;
fail:
        acs_patch_index_done(&px);
        acs_changes_free(&c);
        return r;
}
