/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The CLI's side of `--server` (cli-server.h). Linked into the static
 * acs-launch: a unix socket, a few lines of JSON (json-c, which the report
 * needs anyway) and nothing else, so that a run through a server costs
 * the CLI no more than its own start. The server is trusted only after
 * SO_PEERCRED says it runs as our uid, and its answers are only ever
 * "ready", "run cold" and an exit status: nothing in them names a file.
 */
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <time.h>

#include <json-c/json.h>

#include "cli-server.h"
#include "profile.h"

extern char **environ;

const char *acs_cli_server_unfit(const acs_options *o, bool stdin_is_null_or_tty)
{
        if (o->command != ACS_CMD_RUN || !o->code)
                return "only `run -c CODE` runs in a ready sandbox";
        if (o->args && o->args[0])
                return "arguments after -c CODE (sys.argv) are not passed to a ready sandbox";
        if (o->apply || o->patch || o->keep || o->report || o->dry_run)
                return "--apply, --patch, --keep, --report and --dry-run run cold";
        if (o->n_mounts || o->setenv || o->unsetenv || o->chdir || o->venv)
                return "--ro-bind, --bind, --tmpfs, --setenv, --unsetenv, --chdir and --venv run cold";
        if (o->has_memory || o->has_cpu || o->has_processes || o->has_open_files || o->has_file_size ||
            o->has_max_tokens || o->has_net)
                return "limit and --net overrides run cold (a ready sandbox has its profile's)";
        if (o->stdin_mode == ACS_STDIN_PIPE || o->stdin_mode == ACS_STDIN_TTY)
                return "--stdin pipe and --stdin tty run cold";
        if (o->stdin_mode == ACS_STDIN_AUTO && !o->json && !stdin_is_null_or_tty)
                return "stdin is neither a terminal nor /dev/null: the program would read it";
        if (o->profile && strchr(o->profile, '/'))
                return "a profile given as a path runs cold (a server loads profiles by name)";
        return NULL;
}

static bool stdin_null_or_tty(void)
{
        struct stat st;
        if (fstat(STDIN_FILENO, &st) < 0)
                return errno == EBADF; /* none: the cold run gives /dev/null too */
        return isatty(STDIN_FILENO) || (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3));
}

/* Connected to path, the peer checked to be our own uid; -errno. */
static int connect_server(const char *path, const char **why)
{
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        if (strlen(path) >= sizeof sa.sun_path) {
                *why = "the socket path is too long";
                return -ENAMETOOLONG;
        }
        strcpy(sa.sun_path, path);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
                int r = -errno;
                *why = r == -ENOENT         ? "no socket there"
                       : r == -ECONNREFUSED ? "nobody listens there (a stale socket)"
                                            : "cannot connect";
                if (fd >= 0)
                        close(fd);
                return r;
        }
        struct ucred cr;
        socklen_t len = sizeof cr;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 || cr.uid != geteuid()) {
                *why = "the server there runs as another user";
                close(fd);
                return -EPERM;
        }
        return fd;
}

static struct json_object *request(const acs_options *o, const acs_profile *prof)
{
        struct json_object *p = json_object_new_object(), *env = json_object_new_object();
        char ws[PATH_MAX];
        if (!p || !env || (o->workspace && !realpath(o->workspace, ws))) {
                json_object_put(p);
                json_object_put(env);
                return NULL;
        }
        json_object_object_add(p, "version", json_object_new_string(PACKAGE_VERSION));
        json_object_object_add(p, "code", json_object_new_string(o->code));
        json_object_object_add(p, "profile", json_object_new_string(prof->name));
        json_object_object_add(p, "profile_path", json_object_new_string(prof->path ? prof->path : ""));
        if (o->workspace) /* none: an empty one, as the server's when it has none */
                json_object_object_add(p, "workspace", json_object_new_string(ws));
        for (char **k = prof->env_keep; k && *k; k++) {
                const char *v = getenv(*k);
                json_object_object_add(env, *k, v ? json_object_new_string(v) : NULL);
        }
        json_object_object_add(p, "env", env);
        struct json_object *eng = json_object_new_object();
        static const char *const engine[] = ACS_CLI_ENGINE_ENV;
        for (size_t i = 0; eng && i < ELEMENTSOF(engine); i++) {
                const char *v = getenv(engine[i]);
                json_object_object_add(eng, engine[i], v ? json_object_new_string(v) : NULL);
        }
        json_object_object_add(p, "engine_env", eng);
        if (o->has_timeout)
                json_object_object_add(p, "timeout", json_object_new_double(o->timeout));
        json_object_object_add(p, "json", json_object_new_boolean(o->json));
        json_object_object_add(p, "quiet", json_object_new_boolean(o->quiet));
        if (o->session)
                json_object_object_add(p, "session", json_object_new_string(o->session));
        return p;
}

/* The request line with our stdout and stderr attached; -errno. */
static int send_request(int fd, const char *line, size_t len)
{
        int fds[2] = {STDOUT_FILENO, STDERR_FILENO};
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof fds)];
        } u = {0};
        struct iovec iov = {.iov_base = (void *)line, .iov_len = len};
        struct msghdr m = {
                .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof fds);
        memcpy(CMSG_DATA(c), fds, sizeof fds);
        ssize_t n = sendmsg(fd, &m, MSG_NOSIGNAL);
        if (n < 0)
                return -errno;
        for (size_t off = (size_t)n; off < len; off += (size_t)n)
                if ((n = send(fd, line + off, len - off, MSG_NOSIGNAL)) < 0) {
                        if (errno == EINTR) {
                                n = 0;
                                continue;
                        }
                        return -errno;
                }
        return 0;
}

/* One answer line's result object; NULL on EOF, timeout (ms >= 0) or garbage. */
static struct json_object *read_answer(int fd, int ms)
{
        char buf[4096];
        size_t len = 0;
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (;;) {
                int left = -1;
                if (ms >= 0) {
                        clock_gettime(CLOCK_MONOTONIC, &t);
                        left = ms - (int)((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
                        if (left < 0)
                                return NULL;
                }
                struct pollfd p = {.fd = fd, .events = POLLIN};
                int r = poll(&p, 1, left);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r <= 0)
                        return NULL;
                /* up to the newline and no further: what follows is the next answer */
                ssize_t n = recv(fd, buf + len, sizeof buf - 1 - len, MSG_PEEK);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return NULL;
                char *nl = memchr(buf + len, '\n', (size_t)n);
                size_t take = nl ? (size_t)(nl - (buf + len)) + 1 : (size_t)n;
                if (recv(fd, buf + len, take, 0) != (ssize_t)take)
                        return NULL;
                len += take;
                if (nl)
                        break;
                if (len >= sizeof buf - 1)
                        return NULL;
        }
        buf[len - 1] = '\0';
        struct json_object *o = json_tokener_parse(buf), *res = NULL;
        if (o && json_object_object_get_ex(o, "result", &res) && json_object_is_type(res, json_type_object))
                json_object_get(res);
        else
                res = NULL;
        json_object_put(o);
        return res;
}

static const char *answer_str(struct json_object *a, const char *key)
{
        struct json_object *x;
        return a && json_object_object_get_ex(a, key, &x) && json_object_is_type(x, json_type_string)
                       ? json_object_get_string(x)
                       : NULL;
}

typedef struct ask {
        int fd;
        char why[512];
} ask;

/*
 * The exchange: 1 and *status when the server ran it; 0 when it did not
 * (why says so) and nothing ran; -EIO when the server went away during the
 * run (its output may be half printed: running it again would run it twice).
 */
static int exchange(ask *a, const char *line, size_t len, int *status)
{
        struct json_object *ans = NULL, *x;
        int r = send_request(a->fd, line, len);
        if (r < 0) {
                snprintf(a->why, sizeof a->why, "cannot send the run: %s", strerror(-r));
                return 0;
        }
        if (!(ans = read_answer(a->fd, ACS_CLI_SERVER_WAIT_MS))) {
                snprintf(a->why, sizeof a->why, "no answer within %d ms", ACS_CLI_SERVER_WAIT_MS);
                return 0;
        }
        if (!json_object_object_get_ex(ans, "ready", &x) || !json_object_get_boolean(x)) {
                const char *w = answer_str(ans, "cold");
                snprintf(a->why, sizeof a->why, "it cannot run it so: %s", w ? w : "(no reason given)");
                json_object_put(ans);
                return 0;
        }
        json_object_put(ans);
        if (send(a->fd, "go\n", 3, MSG_NOSIGNAL) != 3) {
                snprintf(a->why, sizeof a->why, "it went away before the run");
                return 0;
        }
        if (!(ans = read_answer(a->fd, -1))) {
                snprintf(a->why, sizeof a->why, "the server ended during the run");
                return -EIO;
        }
        int rc = 0;
        if (json_object_object_get_ex(ans, "exit_status", &x) && json_object_is_type(x, json_type_int)) {
                *status = json_object_get_int(x);
                rc = 1;
        } else {
                const char *w = answer_str(ans, "cold");
                snprintf(a->why, sizeof a->why, "it could not run it after all: %s",
                         w ? w : "(no reason given)");
        }
        json_object_put(ans);
        return rc;
}

int acs_cli_server_run(const acs_options *o, const acs_profile *prof, int report_fd, int *status,
                       acs_error *err)
{
        (void)report_fd; /* --report runs cold (acs_cli_server_unfit) */
        const char *path = o->has_server ? o->server : getenv("ACS_SERVER"), *why = NULL;
        if (!path || !path[0]) {
                if (o->session)
                        return acs_error_set(
                                err, -EINVAL, "usage",
                                "--session %s needs a running server: give --server PATH (or set "
                                "ACS_SERVER) for `acs-launch serve --socket PATH`",
                                o->session);
                return 0;
        }
        ask a = {.fd = -1};
        if ((why = acs_cli_server_unfit(o, stdin_null_or_tty()))) {
                snprintf(a.why, sizeof a.why, "%s", why);
        } else if ((a.fd = connect_server(path, &why)) < 0) {
                snprintf(a.why, sizeof a.why, "%s", why);
        } else {
                struct json_object *params = request(o, prof);
                if (!params)
                        snprintf(a.why, sizeof a.why, "cannot resolve the workspace: %s", strerror(errno));
                else {
                        const char *ps = json_object_to_json_string_ext(params, JSON_C_TO_STRING_PLAIN);
                        _cleanup_free_ char *line = NULL;
                        int n = asprintf(&line, "%s,\"id\":1,\"params\":%s}\n", ACS_CLI_RUN_PREFIX, ps);
                        int r = n < 0 ? 0 : exchange(&a, line, (size_t)n, status);
                        json_object_put(params);
                        close(a.fd);
                        a.fd = -1;
                        if (r > 0) {
                                if (o->verbose)
                                        fprintf(stderr, "acs-launch: server %s ran it in a ready sandbox\n",
                                                path);
                                return 1;
                        }
                        if (r < 0)
                                return acs_error_set(err, -EIO, "server",
                                                     "%s (%s): its output so far is above", a.why, path);
                }
        }
        if (a.fd >= 0)
                close(a.fd);
        if (o->session)
                return acs_error_set(err, -EINVAL, "server",
                                     "--session %s: the server at %s cannot run it: %s", o->session, path,
                                     a.why);
        if (o->verbose)
                fprintf(stderr, "acs-launch: server %s: %s; running cold\n", path, a.why);
        return 0;
}
