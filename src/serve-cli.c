/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The server's side of `acs-launch --server` (cli-server.h). A serve
 * connection whose first line is the CLI's request is not an MCP client:
 * its connection process checks that one of its ready sandboxes can make
 * exactly the run the CLI would make (the same profile file, workspace,
 * environment kept, timeout; no option the pooled path does not take)
 * within the operator's policy (allowed profiles, --max-timeout), and only
 * then hands the code over to it with the CLI's stdout and stderr. The
 * pooled worker then does what a cold `acs-launch run` does after its
 * run (acs_cmd_run_finish), on those files, and sends back the exit
 * status. Anything else: the CLI is told to run cold, before anything ran.
 */
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>

#include <json-c/json.h>

#include "cli-server.h"
#include "cli-session.h"
#include "commands.h"
#include "jsonrpc.h"
#include "mcp-policy.h"
#include "pool.h"
#include "clip.h"
#include "run-warm.h"
#include "serve-cli.h"

/* How long a client that was told "ready" has to say "go". */
#define GO_WAIT_MS 5000
/* A cancelled run's worker gets this long to take its sandbox down before SIGKILL. */
#define CANCEL_GRACE_MS 3000

static void sleep_ms(long ms)
{
        nanosleep(&(struct timespec){.tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000}, NULL);
}

/* Is the first line the CLI's request? 1 yes, 0 no (an MCP client), < 0: a signal asks us to stop. */
static int peek_cli(int fd, int sfd)
{
        static const char prefix[] = ACS_CLI_RUN_PREFIX;
        char buf[sizeof prefix];
        bool chld = false;
        int r = 0;
        for (;;) {
                struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = sfd, .events = POLLIN}};
                if (poll(p, 2, -1) < 0 && errno != EINTR) {
                        r = -errno;
                        break;
                }
                if (p[1].revents) {
                        struct signalfd_siginfo si;
                        while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
                                if (si.ssi_signo == SIGCHLD)
                                        chld = true;
                                else
                                        r = -EINTR;
                        if (r < 0)
                                break;
                }
                if (!p[0].revents)
                        continue;
                ssize_t n = recv(fd, buf, sizeof prefix - 1, MSG_PEEK | MSG_DONTWAIT);
                if (n < 0 && (errno == EINTR || errno == EAGAIN))
                        continue;
                if (n <= 0 || memcmp(buf, prefix, (size_t)n) != 0)
                        break; /* EOF, or not ours: the MCP server reads it */
                if ((size_t)n == sizeof prefix - 1) {
                        r = 1;
                        break;
                }
                sleep_ms(1); /* a prefix split between two sends: the rest is on its way */
        }
        if (chld)
                (void)kill(getpid(), SIGCHLD); /* the MCP loop reaps the pool on it */
        return r;
}

/* The request line (NUL-terminated, without '\n') and the two fds that came with it. */
static int read_request(int fd, char **ret, int fds[2])
{
        size_t len = 0, cap = 65536;
        char *buf = malloc(cap);
        union {
                struct cmsghdr h;
                char b[CMSG_SPACE(2 * sizeof(int))];
        } u;
        bool got = false;
        if (!buf)
                return -ENOMEM;
        for (;;) {
                if (len + 1 >= cap) {
                        char *nb = cap >= ACS_CLI_RUN_MAX ? NULL : realloc(buf, cap * 2);
                        if (!nb)
                                break;
                        buf = nb;
                        cap *= 2;
                }
                /* a peek without control data (no fds installed twice), then up to the
                 * newline at most: the "go" line may follow at once */
                ssize_t n = recv(fd, buf + len, cap - len - 1, MSG_PEEK);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                char *nl = memchr(buf + len, '\n', (size_t)n);
                size_t take = nl ? (size_t)(nl - (buf + len)) + 1 : (size_t)n;
                struct iovec iov = {.iov_base = buf + len, .iov_len = take};
                struct msghdr m = {.msg_iov = &iov,
                                   .msg_iovlen = 1,
                                   .msg_control = u.b,
                                   .msg_controllen = got ? 0 : sizeof u.b};
                if ((n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC)) <= 0)
                        break;
                for (struct cmsghdr *c = got ? NULL : CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
                        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                                size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                                int tmp[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
                                memcpy(tmp, CMSG_DATA(c), (k > 8 ? 8 : k) * sizeof(int));
                                for (size_t i = 0; i < k && i < 8; i++)
                                        if (i < 2 && !got && fds[i] < 0)
                                                fds[i] = tmp[i];
                                        else
                                                close(tmp[i]);
                        }
                got = true;
                len += (size_t)n;
                if (nl) {
                        buf[len - 1] = '\0';
                        *ret = buf;
                        return 0;
                }
        }
        free(buf);
        return -EPROTO;
}

static int answer(const char *fmt, ...) _printf_(1, 2);
static int answer(const char *fmt, ...)
{
        char *body = NULL, *line = NULL;
        va_list ap;
        va_start(ap, fmt);
        int n = vasprintf(&body, fmt, ap);
        va_end(ap);
        if (n < 0 || asprintf(&line, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":%s}\n", body) < 0) {
                free(body);
                return -ENOMEM;
        }
        int r = acs_write_all(STDOUT_FILENO, line, strlen(line));
        free(body);
        free(line);
        return r;
}

static void answer_cold(const char *why)
{
        struct json_object *s = json_object_new_string(why);
        (void)answer("{\"cold\":%s}", json_object_to_json_string(s));
        json_object_put(s);
}

static const char *str(struct json_object *o, const char *key)
{
        struct json_object *x;
        return json_object_object_get_ex(o, key, &x) && json_object_is_type(x, json_type_string)
                       ? json_object_get_string(x)
                       : NULL;
}

/* The variables of keys: the CLI's (env) and ours must agree (a cold run would see the CLI's). */
static bool same_env(const char *const *keys, struct json_object *env)
{
        for (const char *const *k = keys; k && *k; k++) {
                struct json_object *x = NULL;
                const char *mine = getenv(*k);
                bool has = env && json_object_object_get_ex(env, *k, &x) &&
                           json_object_is_type(x, json_type_string);
                if (has != (mine != NULL) || (has && strcmp(mine, json_object_get_string(x)) != 0))
                        return false;
        }
        return true;
}

const char *acs_serve_cli_unfit(const acs_options *o, const acs_mcp_policy *pol, struct json_object *params,
                                acs_mcp_call *c, char *why, size_t size)
{
        _cleanup_profile_ acs_profile *p = NULL;
        acs_error err = {0};
        struct json_object *x;
        const char *v = str(params, "version"), *name = str(params, "profile"), *code = str(params, "code");
        const char *path = str(params, "profile_path"), *ws = str(params, "workspace");
        double cap;
        if (!v || strcmp(v, PACKAGE_VERSION) != 0)
                return "the server is another version of acs-launch";
        if (!name || !code || !path)
                return "the request lacks the code or the profile";
        if (o->verbose)
                return "the server runs with -v: its traces would be in the run's output";
        if (o->n_mounts || o->setenv || o->unsetenv || o->chdir || o->venv || o->has_memory || o->has_cpu ||
            o->has_processes || o->has_open_files || o->has_file_size || o->has_max_tokens || o->has_net)
                return "the server's own options change its sandboxes";
        if (strcmp(name, pol->profiles[0]) != 0 && !acs_mcp_policy_allows(pol, name)) {
                snprintf(why, size, "the server does not allow profile %s", name);
                return why;
        }
        *c = (acs_mcp_call){.tool = ACS_TOOL_PYTHON,
                            .code = (char *)code,
                            .code_len = strlen(code),
                            .profile = strcmp(name, pol->profiles[0]) == 0 ? NULL : (char *)name};
        if (acs_mcp_call_profile(pol, c, &p, &cap, &err) < 0)
                return "the server cannot load that profile";
        if (!p->path || strcmp(p->path, path) != 0) {
                snprintf(why, size, "the server's profile %s is another file", name);
                return why;
        }
        char mine[PATH_MAX];
        if (!ws != !o->workspace || (ws && (!realpath(o->workspace, mine) || strcmp(mine, ws) != 0)))
                return "the server has another workspace";
        if (!same_env((const char *const *)p->env_keep,
                      json_object_object_get_ex(params, "env", &x) ? x : NULL))
                return "the environment the profile keeps ([env] keep) differs from the server's";
        static const char *const engine[] = ACS_CLI_ENGINE_ENV;
        if (!same_env((const char *const[]){engine[0], engine[1], NULL},
                      json_object_object_get_ex(params, "engine_env", &x) ? x : NULL))
                return "ACS_SCAN_MODULE_DIR or ACS_NO_FAST_CLONE differs from the server's";
        c->has_timeout = true;
        c->timeout = p->timeout;
        if (json_object_object_get_ex(params, "timeout", &x)) {
                if (acs_profile_is_locked(p, "timeout"))
                        return "the profile locks its timeout";
                c->timeout = json_object_get_double(x);
        }
        if (c->timeout <= 0 || c->timeout > cap || !(c->timeout == c->timeout)) {
                snprintf(why, size, "the server grants a timeout of at most %g s", cap);
                return why;
        }
        return NULL;
}

/* Wait for the worker's answer; the client gone or a signal cancels the run. -1 when none came. */
static int wait_worker(pid_t pid, int out_fd, int *cancel_fd, int sfd)
{
        char buf[256];
        size_t len = 0;
        struct timespec t0 = {0}, t;
        for (;;) {
                struct pollfd p[3] = {
                        {.fd = out_fd, .events = POLLIN},
                        {.fd = *cancel_fd >= 0 ? STDIN_FILENO : -1, .events = POLLIN | POLLRDHUP},
                        {.fd = sfd, .events = POLLIN}};
                if (poll(p, 3, *cancel_fd >= 0 ? -1 : 100) < 0 && errno != EINTR)
                        return -1;
                if (p[0].revents) {
                        ssize_t n = read(out_fd, buf + len, sizeof buf - 1 - len);
                        if (n < 0 && (errno == EINTR || errno == EAGAIN))
                                continue;
                        if (n <= 0)
                                return -1;
                        len += (size_t)n;
                        buf[len] = '\0';
                        if (memchr(buf, '\n', len) || len == sizeof buf - 1)
                                break;
                }
                bool stop = p[1].revents != 0; /* the client said nothing more: it went away */
                struct signalfd_siginfo si;
                if (p[2].revents)
                        while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
                                stop |= si.ssi_signo != SIGCHLD;
                if (stop && *cancel_fd >= 0) {
                        close(*cancel_fd); /* the engine kills the sandbox and reports */
                        *cancel_fd = -1;
                        clock_gettime(CLOCK_MONOTONIC, &t0);
                }
                if (*cancel_fd < 0) {
                        clock_gettime(CLOCK_MONOTONIC, &t);
                        if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >
                            CANCEL_GRACE_MS) {
                                (void)kill(-pid, SIGKILL);
                                (void)kill(pid, SIGKILL);
                                return -1;
                        }
                }
        }
        struct json_object *o = json_tokener_parse(buf), *x;
        int status = o && json_object_object_get_ex(o, "exit_status", &x) ? json_object_get_int(x) : -1;
        json_object_put(o);
        return status;
}

static bool wait_go(void)
{
        char b[3];
        size_t len = 0;
        while (len < 3) {
                struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
                int r = poll(&p, 1, GO_WAIT_MS);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r <= 0)
                        return false;
                ssize_t n = read(STDIN_FILENO, b + len, 3 - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return false;
                len += (size_t)n;
        }
        return memcmp(b, "go\n", 3) == 0;
}

static void run_it(acs_pool *pool, const acs_mcp_call *c, struct json_object *params, int fds[2], int sfd)
{
        struct json_object *x;
        bool json = json_object_object_get_ex(params, "json", &x) && json_object_get_boolean(x);
        bool quiet = json_object_object_get_ex(params, "quiet", &x) && json_object_get_boolean(x);
        char extra[64];
        snprintf(extra, sizeof extra, "{\"json\":%s,\"quiet\":%s}", json ? "true" : "false",
                 quiet ? "true" : "false");
        if (!acs_pool_ready_for(pool, c, extra)) {
                answer_cold("no ready sandbox of that profile (see --pool, --pool-profile)");
                return;
        }
        if (answer("{\"ready\":true}") < 0 || !wait_go())
                return;
        pid_t pid;
        int out_fd = -1, cancel_fd = -1;
        if (acs_pool_take_cli(pool, c, extra, fds, &pid, &out_fd, &cancel_fd) < 0) {
                answer_cold("the ready sandbox went away");
                return;
        }
        close(fds[0]);
        close(fds[1]);
        fds[0] = fds[1] = -1;
        int status = wait_worker(pid, out_fd, &cancel_fd, sfd);
        if (status >= 0)
                (void)answer("{\"exit_status\":%d}", status);
        if (cancel_fd >= 0)
                close(cancel_fd);
        close(out_fd);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
}

static int keeper_fd = -1;

void acs_serve_cli_set_keeper(int fd)
{
        keeper_fd = fd;
}

/* A session run goes to the keeper (cli-session.c) with the client and its files; why not, or NULL. */
static const char *to_keeper(const char *line, const int fds[2])
{
        if (keeper_fd < 0)
                return "the server keeps no sessions (--max-sessions 0)";
        if (acs_send_with_fds(keeper_fd, line, strlen(line), (int[]){STDIN_FILENO, fds[0], fds[1]}, 3) < 0)
                return "the session's request is too long, or the server's session keeper is gone";
        return NULL;
}

int acs_serve_cli(const acs_options *o, const acs_mcp_policy *pol, acs_pool *pool, int sfd)
{
        int r = peek_cli(STDIN_FILENO, sfd);
        if (r <= 0)
                return r;
        _cleanup_free_ char *line = NULL;
        int fds[2] = {-1, -1};
        struct json_object *req = NULL, *params = NULL;
        char why[256];
        if (read_request(STDIN_FILENO, &line, fds) < 0 || fds[0] < 0 || fds[1] < 0 ||
            !(req = json_tokener_parse(line)) || !json_object_object_get_ex(req, "params", &params) ||
            !json_object_is_type(params, json_type_object))
                answer_cold("a request the server cannot read");
        else {
                acs_mcp_call c = {0};
                struct json_object *x;
                const char *no = NULL;
                if (json_object_object_get_ex(params, "session", &x))
                        no = to_keeper(line, fds);
                else if (!(no = acs_serve_cli_unfit(o, pol, params, &c, why, sizeof why)))
                        run_it(pool, &c, params, fds, sfd);
                if (no)
                        answer_cold(no);
        }
        for (int i = 0; i < 2; i++)
                if (fds[i] >= 0)
                        close(fds[i]);
        json_object_put(req);
        return 1;
}

/* ---- in the pooled worker ---------------------------------------------- */

static int recv_fds(int sock, int fds[2])
{
        union {
                struct cmsghdr h;
                char b[CMSG_SPACE(2 * sizeof(int))];
        } u;
        char byte;
        struct iovec iov = {.iov_base = &byte, .iov_len = 1};
        struct msghdr m = {
                .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof u.b};
        if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT) != 1)
                return -EPROTO;
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(2 * sizeof(int)))
                return -EPROTO;
        memcpy(fds, CMSG_DATA(c), 2 * sizeof(int));
        return 0;
}

void acs_serve_cli_worker(const char *line, int fd_sock, acs_run_warm *w, const acs_profile *p,
                          const acs_mcp_call *c, int cancel_fd, int result_fd)
{
        struct json_object *o = json_tokener_parse(line), *cli, *x;
        if (!o || !json_object_object_get_ex(o, "cli", &cli)) {
                json_object_put(o);
                return;
        }
        int fds[2];
        char res[64];
        if (!w || !p || recv_fds(fd_sock, fds) < 0) {
                static const char cold[] = "{\"cold\":\"the ready sandbox could not start\"}\n";
                acs_run_warm_free(w);
                _exit(acs_write_all(result_fd, cold, sizeof cold - 1) < 0);
        }
        acs_options co = {.command = ACS_CMD_RUN, .code = c->code};
        co.json = json_object_object_get_ex(cli, "json", &x) && json_object_get_boolean(x);
        co.quiet = json_object_object_get_ex(cli, "quiet", &x) && json_object_get_boolean(x);
        json_object_put(o);
        fflush(stdout);
        fflush(stderr);
        if (dup2(fds[0], STDOUT_FILENO) < 0 || dup2(fds[1], STDERR_FILENO) < 0)
                _exit(1);
        close(fds[0]);
        close(fds[1]);
        /* what a cold run of the CLI sets (cmd-run.c): live output without --json, a patch with it */
        acs_outmark mark = ACS_OUTMARK_INIT;
        w->req.stream = !co.json;
        w->req.no_patch = false;
        w->req.mark = co.json ? NULL : &mark;
        acs_report rep = {0};
        acs_error err = {0};
        int r = acs_run_warm_finish(w, c->code, c->code_len, c->timeout, cancel_fd, &rep, &err);
        int status = acs_cmd_run_finish(&co, p, &mark, &rep, r, &err, -1);
        /* everything is printed: the CLI may exit while init's teardown is waited for */
        snprintf(res, sizeof res, "{\"exit_status\":%d}\n", status);
        int st = acs_write_all(result_fd, res, strlen(res)) < 0;
        acs_run_warm_free(w);
        _exit(st);
}
