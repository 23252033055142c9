/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The static acs-launch and acs-launch-full. The static binary (the run
 * path: no loader, no relocations of shared libraries) must never dlopen:
 * a static program that does loads a second C library. So it hands over
 * what needs libpython, libmount or libgit2:
 *
 *   - whole subcommands (check, mcp, doctor, apply) by exec'ing
 *     acs-launch-full with the same arguments, before doing anything;
 *   - the patch of a finished run, by running `acs-launch-full __patch`
 *     with the two layers as fds 3 and 4 and the list of changes (JSON) on
 *     its stdin; it answers with the patch and the paths git cannot express.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include <json-c/json.h>

#include "diff.h"
#include "full.h"

#define HELPER_NAME "acs-launch-full"
#define PATCH_MAGIC "acs-patch/1"

/* Next to this binary (the build tree, a test's staged copy), else pkglibexecdir. */
static int full_path(char *buf, size_t size)
{
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

        if (n > 0) {
                self[n] = '\0';
                char *slash = strrchr(self, '/');
                if (slash) {
                        *slash = '\0';
                        if ((size_t)snprintf(buf, size, "%s/" HELPER_NAME, self) < size &&
                            access(buf, X_OK) == 0)
                                return 0;
                }
        }
        if ((size_t)snprintf(buf, size, "%s/" HELPER_NAME, ACS_PKGLIBEXECDIR) >= size)
                return -ENAMETOOLONG;
        return access(buf, X_OK) == 0 ? 0 : -errno;
}

int acs_exec_full(char **argv, acs_error *err)
{
        char path[PATH_MAX];
        int r = full_path(path, sizeof path);

        if (r < 0)
                return acs_error_errno(err, r, "install",
                                       "this needs %s (not found next to acs-launch or in %s)", HELPER_NAME,
                                       ACS_PKGLIBEXECDIR);
        execv(path, argv);
        return acs_error_errno(err, -errno, "install", "cannot execute %s", path);
}

/* ---- the patch, on the static side -------------------------------------- */

static int read_all(int fd, char **ret, size_t *ret_len)
{
        size_t len = 0, cap = 64 * 1024;
        char *b = malloc(cap + 1);

        if (!b)
                return -ENOMEM;
        for (;;) {
                if (len == cap) {
                        char *nb = realloc(b, 2 * cap + 1);
                        if (!nb) {
                                free(b);
                                return -ENOMEM;
                        }
                        b = nb;
                        cap *= 2;
                }
                ssize_t k = read(fd, b + len, cap - len);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0) {
                        int e = -errno;
                        free(b);
                        return e;
                }
                if (k == 0)
                        break;
                len += (size_t)k;
        }
        b[len] = '\0';
        *ret = b;
        *ret_len = len;
        return 0;
}

/* The child: layers as fds 3 and 4, stdin/stdout the pipes, then exec. */
static _noreturn_ void patch_child(const char *path, int upper_fd, int lower_fd, int in_fd, int out_fd,
                                   uint64_t max)
{
        char maxs[32];
        int u = fcntl(upper_fd, F_DUPFD_CLOEXEC, 10);
        int l = lower_fd >= 0 ? fcntl(lower_fd, F_DUPFD_CLOEXEC, 10) : -1;

        /* dup2 onto the same number would keep O_CLOEXEC: go through 10+ first */
        if (u < 0 || dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(u, 3) < 0 || (l >= 0 && dup2(l, 4) < 0))
                _exit(125);
        close_range(l >= 0 ? 5 : 4, ~0U, 0);
        snprintf(maxs, sizeof maxs, "%llu", (unsigned long long)max);
        execv(path, (char *[]){ "acs-launch", "__patch", l >= 0 ? "4" : "-1", maxs, NULL });
        _exit(127);
}

static int parse_answer(char *buf, size_t len, acs_changes *c, acs_error *err)
{
        int omitted = 0, consumed = 0;
        size_t n_skipped = 0, patch_len = 0;

        if (sscanf(buf, PATCH_MAGIC " omitted=%d skipped=%zu len=%zu\n%n", &omitted, &n_skipped, &patch_len,
                   &consumed) != 3 || consumed <= 0)
                return acs_error_set(err, -EPROTO, "patch", HELPER_NAME " gave no patch");
        char *p = buf + consumed, *end = buf + len;
        _cleanup_strv_free_ char **skipped = NULL;
        for (size_t i = 0; i < n_skipped; i++) {
                char *z = memchr(p, '\0', (size_t)(end - p));
                if (!z || acs_strv_push(&skipped, p) < 0)
                        return acs_error_set(err, -EPROTO, "patch", HELPER_NAME " gave a malformed answer");
                p = z + 1;
        }
        if ((size_t)(end - p) != patch_len)
                return acs_error_set(err, -EPROTO, "patch", HELPER_NAME " gave a truncated patch");
        free(c->patch);
        c->patch = NULL;
        c->patch_len = 0;
        c->patch_omitted = omitted;
        if (!omitted) {
                if (!(c->patch = malloc(patch_len + 1)))
                        return -ENOMEM;
                memcpy(c->patch, p, patch_len);
                c->patch[patch_len] = '\0';
                c->patch_len = patch_len;
        }
        acs_strv_free(c->patch_skipped);
        c->patch_skipped = TAKE_PTR(skipped);
        return 0;
}

int acs_patch_via_full(int upper_fd, int lower_fd, acs_changes *c, uint64_t max_patch_bytes, acs_error *err)
{
        char path[PATH_MAX];
        int in[2] = { -1, -1 }, out[2] = { -1, -1 }, r, st;
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;

        if ((r = full_path(path, sizeof path)) < 0)
                return acs_error_errno(err, r, "patch", "a patch needs %s (not found next to acs-launch or in %s)",
                                       HELPER_NAME, ACS_PKGLIBEXECDIR);
        json_object *j = acs_changes_to_json(c);
        const char *txt = j ? json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN) : NULL;
        if (!txt) {
                json_object_put(j);
                return -ENOMEM;
        }
        if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0) {
                r = acs_error_errno(err, -errno, "patch", "pipe");
                goto out;
        }
        pid_t pid = fork();
        if (pid < 0) {
                r = acs_error_errno(err, -errno, "patch", "fork");
                goto out;
        }
        if (pid == 0)
                patch_child(path, upper_fd, lower_fd, in[0], out[1], max_patch_bytes);
        closep(&in[0]);
        closep(&out[1]);
        /* the list is small next to the pipe's buffer only sometimes: the
         * child reads all of it before it writes, so writing first is safe */
        r = acs_write_all(in[1], txt, strlen(txt));
        closep(&in[1]);
        int rr = read_all(out[0], &buf, &len);
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                ;
        if (r < 0 || rr < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                r = acs_error_set(err, -EIO, "patch", HELPER_NAME " failed to build the patch (status %d)",
                                  WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
                goto out;
        }
        r = parse_answer(buf, len, c, err);
out:
        json_object_put(j);
        closep(&in[0]);
        closep(&in[1]);
        closep(&out[0]);
        closep(&out[1]);
        return r;
}

/* ---- the patch, on the full side ---------------------------------------- */

int acs_patch_helper_main(int argc, char **argv)
{
        acs_error err = { 0 };
        acs_changes c = {};
        _cleanup_free_ char *in = NULL;
        size_t len = 0;
        char *end;

        if (argc != 4)
                return 125;
        int lower_fd = (int)strtol(argv[2], &end, 10);
        unsigned long long max = strtoull(argv[3], NULL, 10);
        if (read_all(0, &in, &len) < 0)
                return 125;
        json_object *j = json_tokener_parse(in);
        int r = acs_changes_from_json(j, &c, &err);
        json_object_put(j);
        if (r >= 0)
                r = acs_changes_make_patch(3, lower_fd, &c, max, &err);
        if (r < 0) {
                fprintf(stderr, "acs-launch: %s\n", err.msg[0] ? err.msg : strerror(-r));
                acs_changes_free(&c);
                return 125;
        }
        size_t n_skipped = 0;
        for (char **p = c.patch_skipped; p && *p; p++)
                n_skipped++;
        printf(PATCH_MAGIC " omitted=%d skipped=%zu len=%zu\n", c.patch_omitted ? 1 : 0, n_skipped,
               c.patch_omitted ? (size_t)0 : c.patch_len);
        for (char **p = c.patch_skipped; p && *p; p++)
                fwrite(*p, 1, strlen(*p) + 1, stdout);
        if (!c.patch_omitted && c.patch_len)
                fwrite(c.patch, 1, c.patch_len, stdout);
        acs_changes_free(&c);
        return fflush(stdout) == 0 ? 0 : 125;
}
