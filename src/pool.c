/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pool of ready sandboxes (pool.h). Each slot is a forked worker that
 * has already made its sandbox -- namespaces, root, overlay workspace,
 * limits, caps dropped, no_new_privs, seccomp: the same plan and the same
 * engine as a cold run -- and started the profile's interpreter in it,
 * which waits for the code on the scan socket (acs_scan_boot_warm). The
 * worker waits for one call on its call pipe, hands the code over, and
 * from there on is exactly an `acs-launch mcp` call worker. Nothing but
 * one call ever reaches a pooled sandbox.
 *
 * The call goes over the pipe as one frame (pool.h) written whole into an
 * empty pipe (calls longer than its capacity run cold), so the server never
 * blocks on a worker that is still starting. Pool workers are in their
 * own process groups, die with the server (PR_SET_PDEATHSIG) and take
 * their sandboxes with them.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#include <json-c/json.h>

#include "jsonrpc.h"
#include "mcp-files.h"
#include "mcp-policy.h"
#include "mcp-worker.h"
#include "pool.h"
#include "prefault.h"
#include "profile.h"
#include "run.h"
#include "session-delta.h"
#include "serve-cli.h"
#include <sys/socket.h>

typedef struct pool_slot {
        struct pool_slot *next;
        size_t prof;    /* index in acs_pool.names */
        pid_t pid;
        int call_fd, out_fd, cancel_fd; /* our ends */
        int fd_sock; /* ours: a CLI's stdout and stderr go to the worker over it (serve-cli.h) */
} pool_slot;

struct acs_pool {
        const acs_options *opts;
        const acs_mcp_policy *policy;
        const sigset_t *mask;
        pid_t server;
        /* the profiles pooled: [0] NULL for the server's own, then --pool-profile names */
        char **names;
        size_t n_names;
        unsigned size, n; /* size: per profile */
        pool_slot *slots, **tail; /* oldest first: the most likely to be ready */
};

/* ---- the call on the wire ---------------------------------------------- */

int acs_pool_call_to_frame(const acs_mcp_call *c, const char *cli, char **ret, size_t *ret_len)
{
        struct json_object *o = json_object_new_object();
        if (!o)
                return -ENOMEM;
        json_object_object_add(o, "tool", json_object_new_int(c->tool));
        json_object_object_add(o, "code_len", json_object_new_uint64(c->code_len));
        if (c->has_timeout)
                json_object_object_add(o, "timeout", json_object_new_double(c->timeout));
        if (c->profile)
                json_object_object_add(o, "profile", json_object_new_string(c->profile));
        if (c->has_cpu)
                json_object_object_add(o, "cpu", json_object_new_uint64(c->cpu));
        if (c->has_memory)
                json_object_object_add(o, "memory", json_object_new_uint64(c->memory));
        if (c->has_processes)
                json_object_object_add(o, "processes", json_object_new_uint64(c->processes));
        if (c->has_open_files)
                json_object_object_add(o, "open_files", json_object_new_uint64(c->open_files));
        if (c->patch)
                json_object_object_add(o, "patch", json_object_new_boolean(1));
        if (c->cwd)
                json_object_object_add(o, "cwd", json_object_new_string(c->cwd));
        if (c->env) {
                struct json_object *a = json_object_new_array();
                for (char **e = c->env; *e; e++)
                        json_object_array_add(a, json_object_new_string(*e));
                json_object_object_add(o, "env", a);
        }
        if (c->path)
                json_object_object_add(o, "path", json_object_new_string(c->path));
        if (c->base64)
                json_object_object_add(o, "base64", json_object_new_boolean(1));
        _cleanup_free_ char *head = acs_jrpc_to_line(o);
        json_object_put(o);
        if (!head)
                return -ENOMEM;
        size_t hl = strlen(head);
        /* "{...}" -> "{...,"cli":CLI}": the CLI's part (serve-cli.h), JSON already */
        size_t cl = cli ? strlen(cli) + sizeof ",\"cli\":" - 1 : 0;
        char *f = malloc(hl + cl + 1 + c->code_len);
        if (!f)
                return -ENOMEM;
        char *q = mempcpy(f, head, hl - (cli ? 1 : 0));
        if (cli)
                q = stpcpy(stpcpy(q, ",\"cli\":"), cli), *q++ = '}';
        *q++ = '\n';
        if (c->code_len)
                q = mempcpy(q, c->code, c->code_len);
        *ret = f;
        *ret_len = (size_t)(q - f);
        return 0;
}

static bool get_u64(struct json_object *o, const char *k, uint64_t *v)
{
        struct json_object *x;
        if (!json_object_object_get_ex(o, k, &x))
                return false;
        *v = json_object_get_uint64(x);
        return true;
}

int acs_pool_call_from_frame(const char *buf, size_t len, acs_mcp_call *ret, size_t *ret_used)
{
        const char *nl = memchr(buf, '\n', len);
        *ret_used = 0;
        if (!nl)
                return len > ACS_POOL_HEADER_MAX ? -EINVAL : 0;
        size_t hl = (size_t)(nl - buf);
        struct json_tokener *tok = json_tokener_new();
        if (!tok)
                return -ENOMEM;
        struct json_object *o = json_tokener_parse_ex(tok, buf, (int)hl), *x;
        bool whole = o && json_tokener_get_parse_end(tok) == hl;
        json_tokener_free(tok);
        acs_mcp_call c = { 0 };
        uint64_t code_len = 0;
        int r = -EINVAL;
        struct json_object *tool;
        if (!whole || hl > ACS_POOL_HEADER_MAX || !json_object_is_type(o, json_type_object) ||
            !json_object_object_get_ex(o, "tool", &tool) || !json_object_object_get_ex(o, "code_len", &x) ||
            !json_object_is_type(x, json_type_int) || json_object_get_int64(x) < 0 ||
            (code_len = json_object_get_uint64(x)) > ACS_POOL_CODE_MAX)
                goto out;
        *ret_used = hl + 1 + (size_t)code_len;
        if (len < *ret_used) {
                r = 0; /* the header is whole: *ret_used says how much more to read */
                goto out;
        }
        c.tool = (acs_mcp_tool)json_object_get_int(tool);
        c.code_len = (size_t)code_len;
        if (!(c.code = malloc(c.code_len + 1)))
                goto nomem;
        memcpy(c.code, nl + 1, c.code_len);
        c.code[c.code_len] = '\0';
        if ((c.has_timeout = json_object_object_get_ex(o, "timeout", &x)))
                c.timeout = json_object_get_double(x);
        if (json_object_object_get_ex(o, "profile", &x) && !(c.profile = strdup(json_object_get_string(x))))
                goto nomem;
        c.has_cpu = get_u64(o, "cpu", &c.cpu);
        c.has_memory = get_u64(o, "memory", &c.memory);
        c.has_processes = get_u64(o, "processes", &c.processes);
        c.has_open_files = get_u64(o, "open_files", &c.open_files);
        c.patch = json_object_object_get_ex(o, "patch", &x) && json_object_get_boolean(x);
        if (json_object_object_get_ex(o, "cwd", &x) && !(c.cwd = strdup(json_object_get_string(x))))
                goto nomem;
        if (json_object_object_get_ex(o, "env", &x) && json_object_is_type(x, json_type_array))
                for (size_t i = 0; i < json_object_array_length(x); i++)
                        if (acs_strv_push(&c.env, json_object_get_string(json_object_array_get_idx(x, i))) < 0)
                                goto nomem;
        if (json_object_object_get_ex(o, "path", &x) && !(c.path = strdup(json_object_get_string(x))))
                goto nomem;
        c.base64 = json_object_object_get_ex(o, "base64", &x) && json_object_get_boolean(x);
        *ret = c;
        c = (acs_mcp_call){ 0 };
        r = 1;
        goto out;
nomem:
        r = -ENOMEM;
out:
        acs_mcp_call_done(&c);
        json_object_put(o);
        return r;
}

/* Does a sandbox of profile name (NULL: the server's) fit this call? Its profile, no limit override. */
static bool call_fits(const acs_mcp_policy *pol, const char *name, const acs_mcp_call *c)
{
        const char *want = c->profile && strcmp(c->profile, pol->profiles[0]) != 0 ? c->profile : NULL;
        bool same = !want ? !name : name && strcmp(want, name) == 0;
        /* a pooled run makes no patch (the MCP default): a call that asks for one runs cold */
        return c->tool == ACS_TOOL_PYTHON && same && !c->has_cpu && !c->has_memory && !c->has_processes &&
               !c->has_open_files && !c->patch && !c->cwd && !c->env;
}

/* ---- the worker -------------------------------------------------------- */

static void close_fds(int *fds, size_t n);

/* The run's options as acs_mcp_execute() makes them for an execute_python call without overrides. */
static void warm_options(const acs_options *o, acs_options *ro)
{
        *ro = *o;
        ro->command = ACS_CMD_RUN;
        ro->json = true;
        ro->apply = false;
        ro->patch = NULL;
        ro->keep = NULL;
        ro->report = NULL;
        ro->code = NULL;
        ro->args = NULL;
}

/* Wait for the call; false when the sandbox died first or the server closed the pipe. */
static bool wait_call(int call_fd, int pidfd, char **ret, size_t *ret_len)
{
        struct pollfd p[2] = { { .fd = call_fd, .events = POLLIN }, { .fd = pidfd, .events = POLLIN } };
        while (poll(p, pidfd >= 0 ? 2 : 1, -1) < 0)
                if (errno != EINTR)
                        return false;
        if (!(p[0].revents & (POLLIN | POLLHUP)))
                return false; /* the sandbox ended while it waited: replaced by the server */
        /* the server's own frame, bounded by its 16 MiB request bound and then some */
        char *buf = NULL;
        size_t len = 0;
        if (acs_read_all(call_fd, ACS_POOL_HEADER_MAX + ACS_POOL_CODE_MAX, &buf, &len) < 0)
                return false;
        if (len == 0) {
                free(buf);
                return false; /* EOF without a call: the pool is closing */
        }
        *ret = buf;
        *ret_len = len;
        return true;
}

/*
 * The timeout the call gets in the pooled sandbox, or < 0 when the call
 * must run cold (a timeout the profile may lock: the cold path says why).
 */
static double call_timeout(const acs_options *ro, const acs_profile *p, const acs_mcp_call *c)
{
        if (!c->has_timeout)
                return ro->has_timeout ? ro->timeout : p->timeout;
        if (p->timeout > 0 && (c->timeout == 0 || c->timeout > p->timeout))
                return -1;
        return c->timeout;
}

static struct json_object *run_warm(acs_run_warm *w, const acs_options *ro, const acs_profile *p,
                                    const acs_mcp_policy *pol, const acs_mcp_call *c, int cancel_fd)
{
        acs_report rep = { 0 };
        acs_error err = { 0 };
        struct json_object *r;
        double cap = pol->max_timeout;
        if (p->timeout > 0 && p->timeout < cap && acs_profile_is_locked(p, "timeout"))
                cap = p->timeout;
        if (acs_run_warm_finish(w, c->code, c->code_len, call_timeout(ro, p, c), cancel_fd, &rep, &err) < 0 &&
            !rep.error) {
                acs_report_done(&rep);
                char msg[1400];
                snprintf(msg, sizeof msg, "acs-launch could not run it (%s): %s", err.stage, err.msg);
                return acs_mcp_error_result(msg);
        }
        r = acs_mcp_run_result_fit(&rep, ACS_MCP_MAX_RESULT - 1, pol, cap);
        acs_report_done(&rep);
        return r;
}

static void close_all_but(const int *keep, size_t n)
{
        int last = 2;
        for (;;) {
                int next = -1;
                for (size_t i = 0; i < n; i++)
                        if (keep[i] > last && (next < 0 || keep[i] < next))
                                next = keep[i];
                if (next < 0)
                        break;
                if (next > last + 1)
                        close_range((unsigned)last + 1, (unsigned)next - 1, 0);
                last = next;
        }
        close_range((unsigned)last + 1, ~0U, 0);
}

_noreturn_ static void pool_worker(const acs_pool *pl, size_t prof, int call_fd, int result_fd, int cancel_fd,
                                   int fd_sock)
{
        struct sigaction dfl = { .sa_handler = SIG_DFL };
        _cleanup_profile_ acs_profile *p = NULL;
        acs_run_warm *w = NULL;
        acs_mcp_call c = { 0 };
        acs_error err = { 0 };
        acs_options ro;
        double cap;
        char *line = NULL;

        (void)setpgid(0, 0);
        sigaction(SIGPIPE, &dfl, NULL);
        sigprocmask(SIG_SETMASK, pl->mask, NULL);
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != pl->server)
                _exit(1);
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd < 0 || dup2(fd, STDIN_FILENO) < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
                _exit(1);
        close_all_but((int[]){ call_fd, result_fd, cancel_fd, fd_sock }, 4);

        warm_options(pl->opts, &ro);
        acs_mcp_call probe = { .tool = ACS_TOOL_PYTHON, .profile = pl->names[prof] };
        if (acs_mcp_call_profile(pl->policy, &probe, &p, &cap, &err) == 0) {
                char *no_args[] = { NULL };
                acs_run_request req = { .kind = ACS_RUN_CODE, .profile = p, .opts = &ro, .argv = no_args,
                                        .stdin_fd = -1, .cancel_fd = -1, .no_patch = true };
                if (acs_run_warm_start(&req, &w, &err) < 0) {
                        acs_log(1, "pool: cannot start a sandbox ahead (%s): %s", err.stage, err.msg);
                        w = NULL; /* the call runs cold, and says what failed */
                }
        }
        size_t len = 0, used = 0;
        acs_prefault_private(); /* while it waits: prefault.h */
        if (!wait_call(call_fd, w ? acs_run_warm_pidfd(w) : -1, &line, &len) ||
            acs_pool_call_from_frame(line, len, &c, &used) != 1 || used != len) {
                acs_run_warm_free(w); /* its cgroup too: nothing of it is left */
                _exit(3);
        }
        close(call_fd);
        *strchr(line, '\n') = '\0'; /* the header: serve-cli.c reads its "cli" */
        /* `acs-launch --server`: the CLI's run, on its stdout and stderr (does not return) */
        acs_serve_cli_worker(line, fd_sock, w, p, &c, cancel_fd, result_fd);
        free(line);

        struct json_object *res;
        if (w && p && call_fits(pl->policy, pl->names[prof], &c) && call_timeout(&ro, p, &c) >= 0)
                res = run_warm(w, &ro, p, pl->policy, &c, cancel_fd);
        else {
                acs_run_warm_free(w);
                w = NULL;
                res = acs_mcp_execute(pl->opts, pl->policy, &c, cancel_fd);
        }
        line = res ? acs_jrpc_to_line(res) : NULL;
        int st = !line || acs_write_all(result_fd, line, strlen(line)) < 0 ||
                 acs_write_all(result_fd, "\n", 1) < 0;
        /* the result is out: now wait for the sandbox's teardown (init's
         * exit), which no longer delays the call */
        acs_run_warm_free(w);
        _exit(st);
}

/* ---- a session's worker ------------------------------------------------ */

/*
 * The next call from fd (its frame at the start of *buf, *len bytes read so
 * far): 1 with *c, 0 at EOF or on error, < 0 a frame that is not a call
 * (the stream is lost). The frame's own size is read, not doubled into.
 */
static int read_frame(int fd, char **buf, size_t *len, size_t *cap, acs_mcp_call *c, size_t *used)
{
        for (;;) {
                int r = acs_pool_call_from_frame(*buf ? *buf : "", *len, c, used);
                if (r != 0)
                        return r;
                size_t want = *used ? *used : *len + 65536;
                if (want > *cap) {
                        size_t nc = *used ? want : *cap * 2 > want ? *cap * 2 : want;
                        char *b = realloc(*buf, nc);
                        if (!b)
                                return 0;
                        *buf = b;
                        *cap = nc;
                }
                ssize_t n = read(fd, *buf + *len, *cap - *len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return 0;
                *len += (size_t)n;
        }
}

/*
 * Does a session's profile run commands? Only one whose scan lets its
 * Python start processes (warn, or subprocess allowed): a command is no way
 * around what the profile refuses the code.
 */
static bool runs_commands(const acs_profile *p)
{
        if (p->scan_mode != ACS_SCAN_ENFORCE)
                return true;
        for (char *const *v = p->allow_imports; v && *v; v++)
                if (strcmp(*v, "subprocess") == 0 || strcmp(*v, "*") == 0)
                        return true;
        return false;
}

/*
 * A session's call: call_fits, where a command without "profile" takes the
 * session's and may have cwd, env, and a "cpu" (checked by the caller) is the
 * call's own.
 */
static bool session_fits(const acs_mcp_policy *pol, const char *name, const acs_mcp_call *c)
{
        acs_mcp_call py = *c;
        py.has_cpu = false;
        if (c->tool == ACS_TOOL_COMMAND) {
                py.tool = ACS_TOOL_PYTHON;
                py.cwd = NULL;
                py.env = NULL;
                if (!c->profile)
                        py.profile = (char *)name;
        }
        return call_fits(pol, name, &py);
}

/*
 * The changes since the previous call into the result (files.since_previous,
 * and a line of its text), and this call's list kept for the next one. A
 * call without a list (refused before the diff) leaves *prev as it is.
 */
static void add_since_previous(struct json_object *res, acs_delta_snapshot *now, acs_delta_snapshot *prev)
{
        acs_delta d;
        struct json_object *sc, *files, *content, *text;
        if (acs_delta_compute(prev, now, &d) == 0) {
                if (json_object_object_get_ex(res, "structuredContent", &sc) &&
                    json_object_object_get_ex(sc, "files", &files) && json_object_is_type(files, json_type_object))
                        json_object_object_add(files, "since_previous", acs_delta_to_json(&d));
                if (json_object_object_get_ex(res, "content", &content) &&
                    (text = json_object_object_get(json_object_array_get_idx(content, 0), "text"))) {
                        _cleanup_free_ char *t = NULL;
                        if (asprintf(&t, "%ssince the previous call: %zu added, %zu modified, %zu deleted\n",
                                     json_object_get_string(text), d.n_added, d.n_modified, d.n_deleted) >= 0)
                                json_object_set_string(text, t);
                }
                acs_delta_done(&d);
        }
        acs_delta_snapshot_done(prev);
        *prev = *now;
        *now = (acs_delta_snapshot){ 0 };
}

static struct json_object *session_call(acs_run_warm *w, const acs_options *ro, const acs_profile *p,
                                        const acs_mcp_policy *pol, const char *name, const acs_mcp_call *c,
                                        acs_delta_snapshot *prev)
{
        acs_report rep = { 0 };
        acs_error err = { 0 };
        double t = call_timeout(ro, p, c), cap = pol->max_timeout;
        char msg[1400];
        if (!session_fits(pol, name, c) || t < 0)
                return acs_mcp_error_result("A session keeps the profile and the limits it started with: call "
                                            "without \"session\" for other ones");
        /* the session's cpu is per call; a call's "cpu" may only lower it */
        uint64_t cpu = ro->has_cpu ? ro->cpu : p->cpu;
        if (c->has_cpu && cpu && (c->cpu == 0 || c->cpu > cpu)) {
                snprintf(msg, sizeof msg, "\"cpu\" may only lower the session's limit of %llu s a call",
                         (unsigned long long)cpu);
                return acs_mcp_error_result(msg);
        }
        acs_run_session_set_cpu(w, c->has_cpu ? c->cpu : 0);
        if (c->tool == ACS_TOOL_COMMAND && !runs_commands(p)) {
                snprintf(msg, sizeof msg,
                         "This session's profile (%.200s) runs no commands: its scan lets Python start no "
                         "processes (no subprocess in [scan] allow_imports). Call execute_command without "
                         "\"session\" for a fresh sandbox",
                         p->name ? p->name : "?");
                return acs_mcp_error_result(msg);
        }
        if (!acs_run_session_alive(w))
                return acs_mcp_error_result("This session has ended (a timeout, a cancellation or a program that "
                                            "ended the interpreter): start another one");
        if (p->timeout > 0 && p->timeout < cap && acs_profile_is_locked(p, "timeout"))
                cap = p->timeout;
        int r = c->tool == ACS_TOOL_COMMAND
                        ? acs_run_session_command(w, c->code, c->code_len, c->cwd, c->env, t, -1, &rep, &err)
                        : acs_run_session_call(w, c->code, c->code_len, t, -1, &rep, &err);
        if (r < 0 && !rep.error) {
                snprintf(msg, sizeof msg, "acs-launch could not run it (%s): %s", err.stage, err.msg);
                acs_report_done(&rep);
                return acs_mcp_error_result(msg);
        }
        /* the whole list, before the result's fit may clip it */
        acs_delta_snapshot now = { 0 };
        bool have = rep.have_files && acs_delta_snapshot_take(&rep.files, &now) == 0;
        struct json_object *res = acs_mcp_run_result_fit(&rep, ACS_MCP_MAX_RESULT - 1, pol, cap);
        if (res && have)
                add_since_previous(res, &now, prev);
        acs_delta_snapshot_done(&now);
        acs_report_done(&rep);
        return res;
}

_noreturn_ static void session_worker(const acs_options *o, const acs_mcp_policy *pol, const char *name,
                                      const sigset_t *mask, pid_t server, int call_fd, int result_fd)
{
        struct sigaction dfl = { .sa_handler = SIG_DFL };
        _cleanup_profile_ acs_profile *p = NULL;
        acs_run_warm *w = NULL;
        acs_error err = { 0 };
        acs_options ro;
        double cap;
        char msg[1400] = "";

        (void)setpgid(0, 0);
        sigaction(SIGPIPE, &dfl, NULL);
        sigprocmask(SIG_SETMASK, mask, NULL);
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != server)
                _exit(1);
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd < 0 || dup2(fd, STDIN_FILENO) < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
                _exit(1);
        close_all_but((int[]){ call_fd, result_fd }, 2);

        warm_options(o, &ro);
        acs_mcp_call probe = { .tool = ACS_TOOL_PYTHON, .profile = (char *)name };
        if (acs_mcp_call_profile(pol, &probe, &p, &cap, &err) < 0)
                snprintf(msg, sizeof msg, "Cannot load the profile: %s", err.msg);
        else {
                char *no_args[] = { NULL };
                acs_run_request req = { .kind = ACS_RUN_CODE, .profile = p, .opts = &ro, .argv = no_args,
                                        .stdin_fd = -1, .cancel_fd = -1, .session = true, .no_patch = true };
                if (acs_run_warm_start(&req, &w, &err) < 0) {
                        snprintf(msg, sizeof msg, "Cannot start the session's sandbox (%s): %s", err.stage, err.msg);
                        w = NULL;
                }
        }
        char *buf = NULL;
        size_t len = 0, bcap = 0;
        acs_delta_snapshot prev = { 0 }; /* the session's start: nothing changed */
        acs_mcp_call c = { 0 };
        size_t used = 0;
        int fr;
        while ((fr = read_frame(call_fd, &buf, &len, &bcap, &c, &used)) != 0) {
                struct json_object *res =
                        fr < 0 ? acs_mcp_error_result("bad call")
                        : !w   ? acs_mcp_error_result(msg)
                        : c.tool == ACS_TOOL_WRITE_FILE || c.tool == ACS_TOOL_READ_FILE ? acs_files_call(w, &c)
                                                                                        : session_call(w, &ro, p, pol, name, &c, &prev);
                acs_mcp_call_done(&c); /* and zeroed for the next */
                if (fr > 0) {
                        memmove(buf, buf + used, len - used);
                        len -= used;
                }
                char *line = res ? acs_jrpc_to_line(res) : NULL;
                json_object_put(res);
                bool sent = line && acs_write_all(result_fd, line, strlen(line)) >= 0 &&
                            acs_write_all(result_fd, "\n", 1) >= 0;
                free(line);
                if (!sent || fr < 0) /* not a frame: where the next one starts is lost with it */
                        break;
        }
        acs_delta_snapshot_done(&prev);
        acs_run_warm_free(w); /* the sandbox, its layers and cgroup */
        _exit(0);
}

pid_t acs_pool_session_start(const acs_options *o, const acs_mcp_policy *pol, const char *name, const sigset_t *mask,
                             pid_t server, int *ret_call_fd, int *ret_out_fd)
{
        int call[2] = { -1, -1 }, res[2] = { -1, -1 };
        if (pipe2(call, O_CLOEXEC) < 0 || pipe2(res, O_CLOEXEC) < 0) {
                int r = -errno;
                close_fds((int[]){ call[0], call[1], res[0], res[1] }, 4);
                return r;
        }
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0) {
                int r = -errno;
                close_fds((int[]){ call[0], call[1], res[0], res[1] }, 4);
                return r;
        }
        if (pid == 0)
                session_worker(o, pol, name, mask, server, call[0], res[1]);
        (void)setpgid(pid, pid);
        close_fds((int[]){ call[0], res[1] }, 2);
        (void)fcntl(res[0], F_SETFL, O_NONBLOCK);
        (void)fcntl(call[1], F_SETFL, O_NONBLOCK);
        *ret_call_fd = call[1];
        *ret_out_fd = res[0];
        return pid;
}

/* ---- the server's side ------------------------------------------------- */

/*
 * The pool needs the in-sandbox scan (its interpreter waits in the
 * scanner): a profile without it gets none. 1: pool it, 0: not, < 0: a
 * --pool-profile clients may not use.
 */
static int profile_poolable(const acs_mcp_policy *pol, const char *name, acs_error *err)
{
        _cleanup_profile_ acs_profile *p = NULL;
        acs_mcp_call probe = { .tool = ACS_TOOL_PYTHON, .profile = (char *)name };
        double cap;
        if (name && !acs_mcp_policy_allows(pol, name))
                return acs_error_set(err, -EINVAL, "usage",
                                     "--pool-profile %s: clients may not use that profile (add --allow-profile %s)",
                                     name, name);
        if (acs_mcp_call_profile(pol, &probe, &p, &cap, err) < 0)
                return name ? -EINVAL : 0; /* the server's own: every call says why */
        if (p->scan_mode == ACS_SCAN_OFF)
                acs_log(2, "pool: none for profile %s: [scan] mode = off; its calls run cold", p->name);
        return p->scan_mode != ACS_SCAN_OFF;
}

int acs_pool_new(const acs_options *o, const acs_mcp_policy *pol, unsigned size, const sigset_t *mask,
                 pid_t server, acs_pool **ret, acs_error *err)
{
        *ret = NULL;
        if (!size)
                return 0;
        acs_pool *pl = calloc(1, sizeof *pl);
        size_t n = acs_strv_length(o->pool_profiles) + 1;
        if (!pl || !(pl->names = calloc(n, sizeof *pl->names))) {
                free(pl);
                return acs_error_set(err, -ENOMEM, "pool", "out of memory");
        }
        *pl = (acs_pool){ .opts = o, .policy = pol, .mask = mask, .server = server, .names = pl->names,
                          .size = size > ACS_POOL_MAX ? ACS_POOL_MAX : size };
        pl->tail = &pl->slots;
        for (size_t i = 0; i < n; i++) {
                char *name = i ? o->pool_profiles[i - 1] : NULL;
                if (name && pol->profiles[0] && strcmp(name, pol->profiles[0]) == 0)
                        continue; /* the server's own: already [0] */
                int r = profile_poolable(pol, name, err);
                if (r < 0) {
                        acs_pool_free(pl);
                        return r;
                }
                if (r > 0)
                        pl->names[pl->n_names++] = name; /* [0] may be NULL only for the server's own */
                else if (!name)
                        pl->names[pl->n_names++] = (char *)"\001"; /* a placeholder no call matches */
        }
        *ret = pl;
        return 0;
}

static void slot_close(pool_slot *s)
{
        if (s->call_fd >= 0)
                close(s->call_fd);
        if (s->out_fd >= 0)
                close(s->out_fd);
        if (s->cancel_fd >= 0)
                close(s->cancel_fd);
        if (s->fd_sock >= 0)
                close(s->fd_sock);
        free(s);
}

static void close_fds(int *fds, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (fds[i] >= 0)
                        close(fds[i]);
}

static int slot_start(acs_pool *pl, size_t prof)
{
        int call[2] = { -1, -1 }, res[2] = { -1, -1 }, can[2] = { -1, -1 }, fs[2] = { -1, -1 };
        pool_slot *s = calloc(1, sizeof *s);
        if (!s)
                return -ENOMEM;
        /* only `serve` takes CLI runs: an MCP server (an HTTP session's above
         * all) holds no socket it does not need */
        bool cli = pl->opts && pl->opts->command == ACS_CMD_SERVE;
        if (pipe2(call, O_CLOEXEC) < 0 || pipe2(res, O_CLOEXEC) < 0 || pipe2(can, O_CLOEXEC) < 0 ||
            (cli && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fs) < 0)) {
                int r = -errno;
                close_fds((int[]){ call[0], call[1], res[0], res[1], can[0], can[1], fs[0], fs[1] }, 8);
                free(s);
                return r;
        }
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0) {
                int r = -errno;
                close_fds((int[]){ call[0], call[1], res[0], res[1], can[0], can[1], fs[0], fs[1] }, 8);
                free(s);
                return r;
        }
        if (pid == 0)
                pool_worker(pl, prof, call[0], res[1], can[0], fs[1]);
        (void)setpgid(pid, pid);
        close_fds((int[]){ call[0], res[1], can[0], fs[1] }, 4);
        (void)fcntl(res[0], F_SETFL, O_NONBLOCK);
        (void)fcntl(call[1], F_SETFL, O_NONBLOCK);
        *s = (pool_slot){ .prof = prof, .pid = pid, .call_fd = call[1], .out_fd = res[0], .cancel_fd = can[1],
                          .fd_sock = fs[0] };
        *pl->tail = s;
        pl->tail = &s->next;
        pl->n++;
        return 0;
}

static bool placeholder(const acs_pool *pl, size_t k)
{
        return pl->names[k] && pl->names[k][0] == '\001';
}

unsigned acs_pool_missing(const acs_pool *pl)
{
        if (!pl)
                return 0;
        unsigned want = 0;
        for (size_t k = 0; k < pl->n_names; k++)
                want += placeholder(pl, k) ? 0 : pl->size;
        return pl->n < want ? want - pl->n : 0;
}

unsigned acs_pool_fill(acs_pool *pl)
{
        if (!pl)
                return 0;
        for (size_t k = 0; k < pl->n_names; k++) {
                unsigned have = 0;
                for (pool_slot *s = pl->slots; s; s = s->next)
                        have += s->prof == k;
                for (; !placeholder(pl, k) && have < pl->size; have++)
                        if (slot_start(pl, k) < 0)
                                return acs_pool_missing(pl);
        }
        return acs_pool_missing(pl);
}

static pool_slot *unlink_slot(acs_pool *pl, pool_slot **pp)
{
        pool_slot *s = *pp;
        *pp = s->next;
        if (pl->tail == &s->next)
                pl->tail = pp;
        pl->n--;
        s->next = NULL;
        return s;
}

void acs_pool_reap(acs_pool *pl)
{
        if (!pl)
                return;
        for (pool_slot **pp = &pl->slots; *pp;) {
                int st;
                pid_t r = waitpid((*pp)->pid, &st, WNOHANG);
                if (r == (*pp)->pid || (r < 0 && errno == ECHILD)) {
                        acs_log(2, "pool: a waiting sandbox ended (worker %d); replacing it", (int)(*pp)->pid);
                        slot_close(unlink_slot(pl, pp));
                } else
                        pp = &(*pp)->next;
        }
}

/* The first slot that fits c, and its call's frame (with cli, serve-cli.h's part); NULL: none. */
static pool_slot **find_slot(acs_pool *pl, const acs_mcp_call *c, const char *cli, char **ret_line, size_t *ret_len)
{
        if (!pl)
                return NULL;
        pool_slot **pp = &pl->slots;
        while (*pp && !call_fits(pl->policy, pl->names[(*pp)->prof], c))
                pp = &(*pp)->next;
        char *line = NULL;
        size_t len = 0;
        if (!*pp || acs_pool_call_to_frame(c, cli, &line, &len) < 0)
                return NULL;
        int cap = fcntl((*pp)->call_fd, F_GETPIPE_SZ);
        if (cap < 0 || len > (size_t)cap) {
                free(line); /* it would not fit the empty pipe in one write: cold */
                return NULL;
        }
        *ret_line = line;
        *ret_len = len;
        return pp;
}

bool acs_pool_ready_for(acs_pool *pl, const acs_mcp_call *c, const char *cli)
{
        _cleanup_free_ char *line = NULL;
        size_t len;
        return find_slot(pl, c, cli, &line, &len) != NULL;
}

int acs_pool_take(acs_pool *pl, const acs_mcp_call *c, pid_t *pid, int *out_fd, int *cancel_fd)
{
        return acs_pool_take_cli(pl, c, NULL, NULL, pid, out_fd, cancel_fd);
}

int acs_pool_take_cli(acs_pool *pl, const acs_mcp_call *c, const char *cli, const int *fds, pid_t *pid,
                      int *out_fd, int *cancel_fd)
{
        _cleanup_free_ char *line = NULL;
        size_t len = 0;
        pool_slot **pp = find_slot(pl, c, cli, &line, &len);
        if (!pp)
                return -ENOENT;
        pool_slot *s = unlink_slot(pl, pp);
        int r = 0;
        if (fds) { /* before the call: the worker takes them when it reads it */
                char byte = 0;
                union {
                        struct cmsghdr h;
                        char b[CMSG_SPACE(2 * sizeof(int))];
                } u = { 0 };
                struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
                struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b,
                                    .msg_controllen = sizeof u.b };
                struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
                cm->cmsg_level = SOL_SOCKET;
                cm->cmsg_type = SCM_RIGHTS;
                cm->cmsg_len = CMSG_LEN(2 * sizeof(int));
                memcpy(CMSG_DATA(cm), fds, 2 * sizeof(int));
                if (sendmsg(s->fd_sock, &m, MSG_NOSIGNAL | MSG_DONTWAIT) != 1)
                        r = -errno;
        }
        ssize_t n = r < 0 ? -1 : write(s->call_fd, line, len);
        r = r < 0 ? r : n == (ssize_t)len ? 0 : n < 0 ? -errno : -EIO;
        close(s->call_fd);
        s->call_fd = -1;
        if (r < 0) {
                (void)kill(-s->pid, SIGKILL);
                (void)kill(s->pid, SIGKILL);
                while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
                        ;
                slot_close(s);
                return r;
        }
        *pid = s->pid;
        *out_fd = s->out_fd;
        *cancel_fd = s->cancel_fd;
        s->out_fd = s->cancel_fd = -1;
        slot_close(s);
        return 0;
}

/* How long a closing pool's workers get to take their sandboxes down themselves. */
#define POOL_GRACE_MS 2000

void acs_pool_free(acs_pool *pl)
{
        if (!pl)
                return;
        /* EOF on the call pipe: each worker destroys its sandbox (cgroup included) and exits */
        for (pool_slot *s = pl->slots; s; s = s->next) {
                close(s->call_fd);
                s->call_fd = -1;
        }
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        while (pl->slots) {
                acs_pool_reap(pl);
                if (!pl->slots)
                        break;
                clock_gettime(CLOCK_MONOTONIC, &t);
                if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > POOL_GRACE_MS)
                        for (pool_slot *s = pl->slots; s; s = s->next) {
                                (void)kill(-s->pid, SIGKILL);
                                (void)kill(s->pid, SIGKILL);
                        }
                nanosleep(&(struct timespec){ .tv_nsec = 2000000 }, NULL);
        }
        free(pl->names);
        free(pl);
}
