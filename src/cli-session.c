/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `acs-launch --server PATH --session ID` (issue 14): sessions that outlive
 * the CLI's connection. A serve connection lives only as long as one CLI
 * run, so the sessions of CLI runs belong to the server itself: one keeper
 * process, forked by the serve master, holds them, keyed by the client's
 * uid (SO_PEERCRED) and the id. A connection process hands a session run
 * over to it (the request, the client's socket and its stdout and stderr,
 * on a SOCK_SEQPACKET pair); the keeper answers the CLI as serve-cli.c
 * does ("ready", "go", the exit status) and runs the code in the session's
 * worker, which keeps one sandbox (acs_run_warm_start with .session) and
 * prints each call's output, summary or report on the CLI's files as a
 * cold run prints them (live, session.c).
 * Idle sessions end after --session-idle, at most --max-sessions are
 * kept, a session whose call's client hangs up is ended with its sandbox,
 * and everything ends with the server (SIGTERM from the master, else the
 * parent-death signal).
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include <json-c/json.h>

#include "cli-session.h"
#include "cli.h"
#include "clip.h"
#include "commands.h"
#include "mcp-policy.h"
#include "mcp-session.h"
#include "run-warm.h"
#include "serve-cli.h"
#include "supervise.h"

#define MSG_MAX (256u << 10) /* one request over the SEQPACKET pair; longer code: an error */
#define GRACE_MS 2000

typedef struct cli_session {
        struct cli_session *next;
        char key[160]; /* "uid:id" */
        pid_t pid;
        int sock;   /* to its worker: calls (with the CLI's fds) out, exit statuses in */
        int client; /* the CLI whose call runs now, else -1 */
        uint64_t last_ms;
} cli_session;

static uint64_t now_ms(void)
{
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* A message and up to n fds; its length, 0 at EOF, < 0 on error. Extra fds are closed. */
static ssize_t recv_with_fds(int sock, char *buf, size_t size, int *fds, size_t n)
{
        union {
                struct cmsghdr h;
                char b[CMSG_SPACE(8 * sizeof(int))];
        } u;
        struct iovec iov = {.iov_base = buf, .iov_len = size};
        struct msghdr m = {
                .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof u.b};
        for (size_t i = 0; i < n; i++)
                fds[i] = -1;
        ssize_t len = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
        if (len < 0)
                return -errno;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                        size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                        int tmp[8];
                        memcpy(tmp, CMSG_DATA(c), (k > 8 ? 8 : k) * sizeof(int));
                        for (size_t i = 0; i < k && i < 8; i++)
                                if (i < n && fds[i] < 0)
                                        fds[i] = tmp[i];
                                else
                                        close(tmp[i]);
                }
        if (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
                return -EMSGSIZE;
        return len;
}

int acs_send_with_fds(int sock, const char *buf, size_t len, const int *fds, size_t n)
{
        union {
                struct cmsghdr h;
                char b[CMSG_SPACE(8 * sizeof(int))];
        } u = {0};
        struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
        struct msghdr m = {.msg_iov = &iov,
                           .msg_iovlen = 1,
                           .msg_control = u.b,
                           .msg_controllen = CMSG_SPACE(n * sizeof(int))};
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(n * sizeof(int));
        memcpy(CMSG_DATA(c), fds, n * sizeof(int));
        return sendmsg(sock, &m, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -errno;
}

/* ---- the session's worker ---------------------------------------------- */


/* One call: print as the CLI does after a run, on the CLI's files (fds). */
static int worker_call(acs_run_warm *w, const acs_profile *p, struct json_object *call, const int fds[2],
                       int saved_err, const char *start_error)
{
        struct json_object *x;
        const char *code = json_object_object_get_ex(call, "code", &x) ? json_object_get_string(x) : "";
        acs_options co = {.command = ACS_CMD_RUN, .code = (char *)code};
        double timeout = json_object_object_get_ex(call, "timeout", &x) ? json_object_get_double(x) : 0;
        co.json = json_object_object_get_ex(call, "json", &x) && json_object_get_boolean(x);
        co.quiet = json_object_object_get_ex(call, "quiet", &x) && json_object_get_boolean(x);
        fflush(stdout);
        if (dup2(fds[0], STDOUT_FILENO) < 0 || dup2(fds[1], STDERR_FILENO) < 0)
                return -errno;
        acs_outmark mark = ACS_OUTMARK_INIT;
        acs_report rep = {0};
        acs_error err = {0};
        int r, status;
        if (!w) {
                acs_error_set(&err, -ESRCH, "session", "%s", start_error);
                status = acs_fail_before_run(&co, &err);
        } else {
                /* live output without --json, as a cold run prints it (session.c) */
                w->req.stream = !co.json;
                w->req.no_patch = !co.json; /* what a cold run's report carries */
                w->req.mark = co.json ? NULL : &mark;
                r = acs_run_session_call(w, code, strlen(code), timeout, -1, &rep, &err);
                w->req.stream = false;
                w->req.mark = NULL;
                status = acs_cmd_run_finish(&co, p, &mark, &rep, r, &err, -1);
        }
        fflush(stdout);
        int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (devnull >= 0) {
                dup2(devnull, STDOUT_FILENO);
                close(devnull);
        }
        dup2(saved_err, STDERR_FILENO);
        return status;
}

_noreturn_ static void session_worker(const acs_options *o, const acs_mcp_policy *pol, const char *name,
                                      int sock, const sigset_t *mask, pid_t keeper)
{
        _cleanup_profile_ acs_profile *p = NULL;
        acs_run_warm *w = NULL;
        acs_error err = {0};
        char start_error[1400] = "";
        double cap;

        (void)setpgid(0, 0);
        signal(SIGPIPE, SIG_DFL);
        sigprocmask(SIG_SETMASK, mask, NULL);
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != keeper)
                _exit(1);
        int saved_err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
        acs_options ro = *o; /* the server's options, as a pooled run has them (pool.c) */
        ro.command = ACS_CMD_RUN;
        ro.json = true;
        ro.apply = false;
        ro.patch = ro.keep = ro.report = ro.code = NULL;
        ro.args = NULL;
        acs_mcp_call probe = {.tool = ACS_TOOL_PYTHON, .profile = (char *)name};
        if (acs_mcp_call_profile(pol, &probe, &p, &cap, &err) < 0)
                snprintf(start_error, sizeof start_error, "cannot load the session's profile: %s", err.msg);
        else {
                char *no_args[] = {NULL};
                acs_run_request req = {.kind = ACS_RUN_CODE,
                                       .profile = p,
                                       .opts = &ro,
                                       .argv = no_args,
                                       .stdin_fd = -1,
                                       .cancel_fd = -1,
                                       .session = true,
                                       .no_patch = true};
                if (acs_run_warm_start(&req, &w, &err) < 0) {
                        snprintf(start_error, sizeof start_error,
                                 "cannot start the session's sandbox (%s): %s", err.stage, err.msg);
                        w = NULL;
                }
        }
        static char buf[MSG_MAX];
        for (;;) {
                int fds[2];
                ssize_t n = recv_with_fds(sock, buf, sizeof buf - 1, fds, 2);
                if (n <= 0)
                        break;
                buf[n] = '\0';
                struct json_object *call = json_tokener_parse(buf);
                int status = call && fds[0] >= 0 && fds[1] >= 0
                                     ? worker_call(w, p, call, fds, saved_err, start_error)
                                     : 125;
                json_object_put(call);
                for (int i = 0; i < 2; i++)
                        if (fds[i] >= 0)
                                close(fds[i]);
                bool alive = w && acs_run_session_alive(w);
                char res[80];
                int len = snprintf(res, sizeof res, "{\"exit_status\":%d,\"ended\":%s}", status,
                                   alive ? "false" : "true");
                if (send(sock, res, (size_t)len, MSG_NOSIGNAL) != len || !alive)
                        break;
        }
        acs_run_warm_free(w); /* the sandbox, its layers and cgroup */
        _exit(0);
}

/* ---- the keeper -------------------------------------------------------- */

typedef struct keeper {
        const acs_options *o;
        acs_mcp_policy pol;
        const sigset_t *mask;
        cli_session *list;
        unsigned n, max;
        uint64_t idle_ms; /* 0: never */
} keeper;

static void answer_to(int fd, const char *body)
{
        char *line = NULL;
        if (asprintf(&line, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":%s}\n", body) >= 0)
                (void)!send(fd, line, strlen(line), MSG_NOSIGNAL);
        free(line);
}

static void answer_cold_to(int fd, const char *why)
{
        struct json_object *s = json_object_new_string(why);
        char *body = NULL;
        if (asprintf(&body, "{\"cold\":%s}", json_object_to_json_string(s)) >= 0)
                answer_to(fd, body);
        free(body);
        json_object_put(s);
}

static void session_end(keeper *k, cli_session *s, bool kill_it)
{
        for (cli_session **pp = &k->list; *pp; pp = &(*pp)->next)
                if (*pp == s) {
                        *pp = s->next;
                        break;
                }
        k->n--;
        close(s->sock); /* EOF: the worker takes its sandbox down and exits */
        if (s->client >= 0)
                close(s->client); /* the CLI sees the end without a status: the run failed */
        uint64_t t0 = now_ms();
        if (kill_it && s->pid > 0) { /* before a blocking wait: its call may run for minutes */
                (void)kill(-s->pid, SIGKILL);
                (void)kill(s->pid, SIGKILL);
        }
        while (s->pid > 0) {
                pid_t r = waitpid(s->pid, NULL, kill_it ? 0 : WNOHANG);
                if (r == s->pid || (r < 0 && errno != EINTR))
                        break;
                if (kill_it || now_ms() - t0 > GRACE_MS) {
                        (void)kill(-s->pid, SIGKILL);
                        (void)kill(s->pid, SIGKILL);
                        kill_it = true;
                } else
                        nanosleep(&(struct timespec){.tv_nsec = 2000000}, NULL);
        }
        free(s);
}

static cli_session *session_start(keeper *k, const char *key, const char *name)
{
        int sv[2];
        cli_session *s = calloc(1, sizeof *s);
        if (!s || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
                free(s);
                return NULL;
        }
        fflush(stderr);
        pid_t keeper_pid = getpid(), pid = fork();
        if (pid < 0) {
                close(sv[0]);
                close(sv[1]);
                free(s);
                return NULL;
        }
        if (pid == 0) {
                close(sv[0]);
                session_worker(k->o, &k->pol, name, sv[1], k->mask, keeper_pid);
        }
        close(sv[1]);
        (void)setpgid(pid, pid);
        *s = (cli_session){.next = k->list, .pid = pid, .sock = sv[0], .client = -1, .last_ms = now_ms()};
        snprintf(s->key, sizeof s->key, "%s", key);
        k->list = s;
        k->n++;
        return s;
}

static bool wait_go(int fd)
{
        char b[3];
        size_t len = 0;
        while (len < 3) {
                struct pollfd p = {.fd = fd, .events = POLLIN};
                if (poll(&p, 1, 5000) <= 0)
                        return false;
                ssize_t n = read(fd, b + len, 3 - len);
                if (n <= 0)
                        return false;
                len += (size_t)n;
        }
        return memcmp(b, "go\n", 3) == 0;
}

/* A session run a connection handed over: fds are the client's socket, stdout, stderr. */
static void take_request(keeper *k, const char *line, int fds[3])
{
        struct json_object *req = json_tokener_parse(line), *params = NULL, *x;
        struct ucred cr;
        socklen_t crlen = sizeof cr;
        acs_mcp_call c = {0};
        char why[256], key[160];
        const char *no = NULL, *id = NULL;
        if (!req || !json_object_object_get_ex(req, "params", &params) ||
            !json_object_object_get_ex(params, "session", &x) ||
            !acs_cli_session_id_valid(json_object_get_string(x)) ||
            getsockopt(fds[0], SOL_SOCKET, SO_PEERCRED, &cr, &crlen) < 0)
                no = "a session request the server cannot read";
        else {
                id = json_object_get_string(x);
                no = acs_serve_cli_unfit(k->o, &k->pol, params, &c, why, sizeof why);
        }
        cli_session *s = NULL;
        if (!no) {
                snprintf(key, sizeof key, "%u:%s", (unsigned)cr.uid, id);
                for (s = k->list; s && strcmp(s->key, key) != 0; s = s->next)
                        ;
                if (s && s->client >= 0)
                        no = "a call of that session is running";
                else if (!s && k->n >= k->max) {
                        snprintf(why, sizeof why, "the server keeps at most %u sessions (--max-sessions)",
                                 k->max);
                        no = why;
                } else if (!s && !(s = session_start(k, key, c.profile)))
                        no = "cannot start the session's worker";
        }
        if (no) {
                answer_cold_to(fds[0], no);
                goto out;
        }
        answer_to(fds[0], "{\"ready\":true}");
        if (!wait_go(fds[0]))
                goto out;
        struct json_object *call = json_object_new_object();
        json_object_object_add(call, "code", json_object_new_string(c.code));
        json_object_object_add(call, "timeout", json_object_new_double(c.timeout));
        json_object_object_add(call, "json",
                               json_object_new_boolean(json_object_object_get_ex(params, "json", &x) &&
                                                       json_object_get_boolean(x)));
        json_object_object_add(call, "quiet",
                               json_object_new_boolean(json_object_object_get_ex(params, "quiet", &x) &&
                                                       json_object_get_boolean(x)));
        const char *cs = json_object_to_json_string_ext(call, JSON_C_TO_STRING_PLAIN);
        int r = acs_send_with_fds(s->sock, cs, strlen(cs), fds + 1, 2);
        json_object_put(call);
        if (r < 0) {
                answer_cold_to(fds[0], "the session's worker went away");
                session_end(k, s, true);
                goto out;
        }
        s->client = fds[0];
        fds[0] = -1;
out:
        for (int i = 0; i < 3; i++)
                if (fds[i] >= 0)
                        close(fds[i]);
        json_object_put(req);
}

/* The worker answered the call in flight: pass the status on. */
static void call_done(keeper *k, cli_session *s)
{
        char buf[128];
        ssize_t n = recv(s->sock, buf, sizeof buf - 1, MSG_DONTWAIT);
        struct json_object *o = NULL, *x;
        if (n > 0) {
                buf[n] = '\0';
                o = json_tokener_parse(buf);
        }
        if (o && json_object_object_get_ex(o, "exit_status", &x)) {
                char body[64];
                snprintf(body, sizeof body, "{\"exit_status\":%d}", json_object_get_int(x));
                answer_to(s->client, body);
        }
        bool ended = !o || (json_object_object_get_ex(o, "ended", &x) && json_object_get_boolean(x));
        json_object_put(o);
        close(s->client);
        s->client = -1;
        s->last_ms = now_ms();
        if (ended)
                session_end(k, s, false);
}

static int keeper_timeout(const keeper *k)
{
        if (!k->idle_ms)
                return -1;
        int64_t next = -1;
        for (cli_session *s = k->list; s; s = s->next)
                if (s->client < 0) {
                        int64_t left = (int64_t)(s->last_ms + k->idle_ms) - (int64_t)now_ms();
                        if (next < 0 || left < next)
                                next = left < 0 ? 0 : left;
                }
        return next < 0 ? -1 : (int)(next > 60000 ? 60000 : next);
}

#define POLL_MAX 130

static void keeper_loop(keeper *k, int sock, int sfd)
{
        static char buf[MSG_MAX];
        for (bool stop = false; !stop;) {
                struct pollfd p[POLL_MAX] = {{.fd = sock, .events = POLLIN}, {.fd = sfd, .events = POLLIN}};
                cli_session *who[POLL_MAX] = {0};
                size_t n = 2;
                for (cli_session *s = k->list; s && n + 2 <= POLL_MAX; s = s->next)
                        if (s->client >= 0) {
                                who[n] = s;
                                p[n++] = (struct pollfd){.fd = s->sock, .events = POLLIN};
                                who[n] = s;
                                p[n++] = (struct pollfd){.fd = s->client, .events = POLLRDHUP};
                        }
                if (poll(p, n, keeper_timeout(k)) < 0 && errno != EINTR)
                        break;
                struct signalfd_siginfo si;
                if (p[1].revents)
                        while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
                                stop |= si.ssi_signo != SIGCHLD;
                for (size_t i = 2; i < n; i += 2) {
                        if (p[i].revents)
                                call_done(k, who[i]);
                        else if (p[i + 1].revents) /* the CLI went away mid-call: the session ends with it */
                                session_end(k, who[i], true);
                }
                if (p[0].revents & POLLIN) {
                        int fds[3];
                        ssize_t len = recv_with_fds(sock, buf, sizeof buf - 1, fds, 3);
                        if (len == 0)
                                break; /* the master is gone */
                        if (len > 0 && fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0) {
                                buf[len] = '\0';
                                take_request(k, buf, fds);
                        } else
                                for (int i = 0; i < 3; i++)
                                        if (fds[i] >= 0)
                                                close(fds[i]);
                } else if (p[0].revents)
                        break;
                uint64_t now = now_ms();
                for (cli_session *s = k->list, *next; s; s = next) {
                        next = s->next;
                        if (s->client < 0 && k->idle_ms && now - s->last_ms >= k->idle_ms)
                                session_end(k, s, false);
                        else if (s->client < 0 && waitpid(s->pid, NULL, WNOHANG) == s->pid) {
                                s->pid = -s->pid; /* reaped: session_end must not wait for it */
                                session_end(k, s, false);
                        }
                }
        }
        while (k->list)
                session_end(k, k->list, false);
}

_noreturn_ static void keeper_main(const acs_options *o, int sock, const sigset_t *oldmask, pid_t master)
{
        keeper k = {.o = o,
                    .mask = oldmask,
                    .max = o->has_max_sessions ? o->max_sessions : ACS_SESSIONS_DEFAULT_MAX,
                    .idle_ms = (uint64_t)((o->has_session_idle ? o->session_idle : ACS_SESSION_DEFAULT_IDLE) *
                                          1000)};
        acs_error err = {0};
        sigset_t mask;
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != master)
                _exit(1);
        /* nothing of the master's (its listening socket) reaches the sessions */
        if (sock > 3)
                close_range(3, (unsigned)sock - 1, 0);
        close_range((unsigned)sock + 1, ~0U, 0);
        sigemptyset(&mask);
        sigaddset(&mask, SIGCHLD);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
        if (sfd < 0 || acs_mcp_policy_load(o, &k.pol, &err) < 0)
                _exit(1); /* the connection processes say what is wrong with the options */
        keeper_loop(&k, sock, sfd);
        acs_mcp_policy_done(&k.pol);
        _exit(0);
}

pid_t acs_cli_sessions_start(const acs_options *o, const sigset_t *oldmask, int *ret_fd)
{
        int sv[2];
        *ret_fd = -1;
        if (o->has_max_sessions && o->max_sessions == 0)
                return 0;
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
                return -errno;
        /* a request with its code in one message */
        int size = MSG_MAX + 4096;
        (void)setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
        (void)setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
        fflush(stderr);
        pid_t master = getpid(), pid = fork();
        if (pid < 0) {
                int r = -errno;
                close(sv[0]);
                close(sv[1]);
                return r;
        }
        if (pid == 0) {
                close(sv[0]);
                keeper_main(o, sv[1], oldmask, master);
        }
        close(sv[1]);
        *ret_fd = sv[0];
        return pid;
}
