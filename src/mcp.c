/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `acs-launch mcp`: JSON-RPC 2.0 over stdio, one message per line.
 *
 * One poll loop watches stdin, a signalfd (SIGCHLD, SIGTERM, SIGINT, SIGHUP)
 * and one result pipe per running call. The server never clones a sandbox
 * itself and has no threads: every tools/call runs in a forked worker
 * process, leader of its own process group, which calls the engine (which
 * clones the sandbox) and writes the serialised CallToolResult back on its
 * pipe before _exit. So a crash anywhere in a run — engine, scan module,
 * libpython — costs one call, not the server, and cancelling a call is one
 * kill(-pgid). The sandbox cannot outlive its worker: the engine sets
 * PR_SET_PDEATHSIG and its pid namespace dies with its init.
 *
 * Stdout carries only JSON-RPC lines; the worker's stdout is redirected to
 * stderr so that nothing in a run can write into the protocol stream.
 * Replies are queued and written only as far as stdout takes them without
 * blocking: a client that stops reading must not stop the loop (signals,
 * reaping, cancellation). While the queue is over a bound, the server stops
 * reading requests and starting calls, so a client that never reads cannot
 * make it hold more than that bound plus the results of the calls running.
 */
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>

#include <json-c/json.h>

#include "cgroup.h"
#include "jsonrpc.h"
#include "mcp-tools.h"
#include "diff.h"
#include "mcp.h"
#include "mcp-out.h"
#include "mcp-policy.h"
#include "mcp-files.h"
#include "serve-cli.h"
#include "mcp-session.h"
#include "mcp-worker.h"
#include "pool.h"
#include "prefault.h"
#include "profile.h"

/* Bounds on what a client can make the server hold. */
#define READ_CHUNK (64u << 10)
#define MAX_QUEUED 1024u
#define MAX_QUEUED_BYTES (256u << 20)
#define MAX_RESULT ACS_MCP_MAX_RESULT
/* Replies queued for a slow client beyond this: read no more requests, start no more calls. */
#define OUT_PAUSE (4u << 20)
/* After a cancellation the engine gets this long to stop the sandbox itself before SIGKILL. */
#define CANCEL_GRACE_MS 500
/* While calls run, the pool refills only after this long since it last gave one out, so that
 * starting sandboxes ahead does not take the CPU from the call that was just handed over. */
#define POOL_REFILL_MS 100

typedef struct mcp_job {
        struct mcp_job *next;
        char *id_json; /* echoed in the response, as the client wrote it */
        char *id_key;  /* matched by notifications/cancelled */
        acs_mcp_call call;
        pid_t pid;      /* 0 while queued */
        int out_fd;     /* result pipe, read end */
        int cancel_fd;  /* engine's cancel pipe, write end: closing it asks the engine to stop */
        char *buf;
        size_t len, cap;
        bool overflow, eof, reaped, cancelled;
        bool answered; /* its result went out before the worker was reaped */
        int wstatus;
        uint64_t kill_at_ms; /* cancelled: SIGKILL the process group then */
        /* the request's _meta.progressToken: notifications/progress while it runs (SDKs time out without) */
        struct json_object *progress_token;
        uint64_t started_ms, progress_at_ms, progress_last;
        char *session;       /* runs in this session's worker (mcp-session.h), which outlives it */
} mcp_job;

typedef struct mcp_server {
        const acs_options *opts;
        acs_mcp_policy policy;
        unsigned max_running, n_running;
        mcp_job *running;
        mcp_job *queue, **queue_tail;
        size_t n_queued, queued_bytes;
        const char *version; /* negotiated protocol version */
        bool initialized, stop;
        int sfd;
        sigset_t oldmask;
        pid_t pid;
        char *in;
        size_t in_len, in_cap, in_scanned;
        bool discarding, in_eof;
        acs_mcp_out out;    /* replies not yet taken by stdout */
        acs_pool *pool;     /* ready sandboxes (pool.h), or NULL */
        acs_sessions *sessions;
        uint64_t pool_taken_ms;
        bool prefault_due; /* a refill forked since the server last took its faults (prefault.h) */
} mcp_server;

static uint64_t now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static size_t out_pending(const mcp_server *s)
{
        return acs_mcp_out_pending(&s->out);
}

/* Write what stdout takes now; a client that went away ends the server like EOF does. */
static void out_flush(mcp_server *s)
{
        if (acs_mcp_out_flush(&s->out, STDOUT_FILENO) < 0) {
                acs_log(2, "mcp: stdout closed, shutting down");
                s->stop = true;
        }
}

/* Queue one message line (and write what stdout takes at once). */
static void send_line(mcp_server *s, char *line)
{
        if (!line) {
                acs_log(0, "mcp: out of memory building a response");
                return;
        }
        if (acs_mcp_out_push(&s->out, line, strlen(line)) < 0) {
                /* A reply can be delayed, never dropped: without memory, stop like a dead client. */
                acs_log(0, "mcp: out of memory queueing a response, shutting down");
                s->stop = true;
        }
        free(line);
        out_flush(s);
}

static void reply_error(mcp_server *s, const char *id_json, int code, const char *msg)
{
        char *line = NULL;

        acs_jrpc_error(id_json, code, msg, NULL, &line);
        send_line(s, line);
}

static void reply_result(mcp_server *s, const char *id_json, struct json_object *result)
{
        char *line = NULL;

        if (!result) {
                reply_error(s, id_json, ACS_JRPC_INTERNAL_ERROR, "Internal error: out of memory");
                return;
        }
        acs_jrpc_result(id_json, result, &line);
        json_object_put(result);
        send_line(s, line);
}

static void job_free(mcp_job *j)
{
        if (!j)
                return;
        if (j->out_fd >= 0)
                close(j->out_fd);
        if (j->cancel_fd >= 0)
                close(j->cancel_fd);
        free(j->id_json);
        free(j->id_key);
        json_object_put(j->progress_token);
        acs_mcp_call_done(&j->call);
        free(j->buf);
        free(j->session);
        free(j);
}

/* ---- jobs ------------------------------------------------------------- */

static uint64_t now_ms(void);

static int job_start(mcp_server *s, mcp_job *j)
{
        int res[2], can[2];
        pid_t pid;

        if (j->session) {
                int r = acs_sessions_call(s->sessions, j->session, &j->call, &pid, &j->out_fd);
                if (r == 0)
                        j->pid = pid; /* no cancel pipe: cancelling kills the session */
                return r;
        }
        if (acs_pool_take(s->pool, &j->call, &pid, &j->out_fd, &j->cancel_fd) == 0) {
                j->pid = pid;
                s->pool_taken_ms = now_ms();
                return 0;
        }

        if (pipe2(res, O_CLOEXEC) < 0)
                return -errno;
        if (pipe2(can, O_CLOEXEC) < 0) {
                int r = -errno;
                close(res[0]);
                close(res[1]);
                return r;
        }
        fflush(stderr);
        pid = fork();
        if (pid < 0) {
                int r = -errno;
                close(res[0]);
                close(res[1]);
                close(can[0]);
                close(can[1]);
                return r;
        }
        if (pid == 0)
                acs_mcp_worker(s->opts, &s->policy, &j->call, res[1], can[0], &s->oldmask, s->pid);

        /* Also here, so that a cancel right after fork finds the group (the child races us). */
        (void)setpgid(pid, pid);
        close(res[1]);
        close(can[0]);
        (void)fcntl(res[0], F_SETFL, O_NONBLOCK);
        j->pid = pid;
        j->out_fd = res[0];
        j->cancel_fd = can[1];
        j->started_ms = now_ms();
        j->progress_at_ms = j->started_ms + ACS_MCP_PROGRESS_MS;
        return 0;
}

static void job_kill(mcp_job *j)
{
        if (j->pid > 0 && !j->reaped) {
                (void)kill(-j->pid, SIGKILL);
                (void)kill(j->pid, SIGKILL);
        }
}

static void start_queued(mcp_server *s)
{
        while (!s->stop && s->queue && s->n_running < s->max_running && out_pending(s) < OUT_PAUSE) {
                mcp_job *j = s->queue;
                int r;

                s->queue = j->next;
                if (!s->queue)
                        s->queue_tail = &s->queue;
                s->n_queued--;
                s->queued_bytes -= j->call.code_len;

                r = job_start(s, j);
                if (r < 0 && j->session) {
                        reply_result(s, j->id_json, acs_mcp_error_result(
                                r == -EBUSY ? "This session is running a call: wait for its result"
                                : r == -EUSERS ? "Too many sessions (--max-sessions): close one with close_session"
                                               : "Cannot start the session"));
                        job_free(j);
                        continue;
                }
                if (r < 0) {
                        char msg[160];

                        snprintf(msg, sizeof(msg), "Internal error: cannot start a worker: %s", strerror(-r));
                        reply_error(s, j->id_json, ACS_JRPC_INTERNAL_ERROR, msg);
                        job_free(j);
                        continue;
                }
                j->next = s->running;
                s->running = j;
                s->n_running++;
        }
}

/*
 * Straight into the job's buffer: a 64 KiB buffer on the stack was 16
 * stack pages written afresh each call, a fault each after a fork.
 * Past MAX_RESULT the rest is read into a small scratch and dropped.
 */
static void job_read(mcp_job *j)
{
        for (;;) {
                char scratch[4096], *to = scratch;
                size_t room = sizeof scratch;
                if (!j->overflow) {
                        if (j->cap - j->len < 4096) {
                                size_t cap = j->cap ? j->cap * 2 : 4096;
                                if (cap > MAX_RESULT + 4096)
                                        cap = MAX_RESULT + 4096;
                                char *b = cap > j->cap ? realloc(j->buf, cap) : NULL;
                                if (b) {
                                        j->buf = b;
                                        j->cap = cap;
                                }
                        }
                        if (j->cap > j->len) {
                                to = j->buf + j->len;
                                room = j->cap - j->len;
                        } else
                                j->overflow = true; /* out of memory, or over the bound */
                }
                ssize_t n = read(j->out_fd, to, room);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        return;
                if (n <= 0) {
                        j->eof = true;
                        return;
                }
                if (j->overflow)
                        continue;
                j->len += (size_t)n;
                if (j->len > MAX_RESULT)
                        j->overflow = true;
        }
}

/* The worker's payload is one JSON line ending in '\n'. */
static bool job_complete(const mcp_job *j)
{
        return !j->overflow && j->len > 0 && j->buf[j->len - 1] == '\n';
}

static void job_respond(mcp_server *s, mcp_job *j)
{
        char msg[200], *line = NULL;

        if (j->cancelled || j->answered)
                return; /* MCP: no response for a cancelled request */
        if (WIFEXITED(j->wstatus) && WEXITSTATUS(j->wstatus) == 0 && job_complete(j) &&
            acs_jrpc_result_raw(j->id_json, j->buf, j->len - 1, &line) == 0) {
                send_line(s, line);
                return;
        }
        if (j->overflow)
                snprintf(msg, sizeof(msg), "Internal error: the result exceeded %u MiB", MAX_RESULT >> 20);
        else if (WIFSIGNALED(j->wstatus))
                snprintf(msg, sizeof(msg), "Internal error: the worker running this call was killed by signal %d",
                         WTERMSIG(j->wstatus));
        else
                snprintf(msg, sizeof(msg), "Internal error: the worker running this call failed (status %d)",
                         WIFEXITED(j->wstatus) ? WEXITSTATUS(j->wstatus) : -1);
        reply_error(s, j->id_json, ACS_JRPC_INTERNAL_ERROR, msg);
}

/*
 * A worker writes its result as one line, last, and only when it is whole
 * (a failed write leaves no final newline): a complete line is answered at
 * once. The worker then reaps its sandbox, whose teardown (init's exit, the
 * overlays going away: sync-proto.h) no longer delays the call; the job
 * stays here, counted against --max-concurrency, until it is reaped.
 */
static void job_answer_early(mcp_server *s, mcp_job *j)
{
        char *line = NULL;

        if (j->answered || j->cancelled || j->session || j->overflow || !job_complete(j))
                return;
        if (acs_jrpc_result_raw(j->id_json, j->buf, j->len - 1, &line) < 0)
                return; /* answered when reaped, by job_respond */
        send_line(s, line);
        j->answered = true;
}

/* Reap finished workers and answer the calls whose results are in. */
static void jobs_collect(mcp_server *s)
{
        for (mcp_job **pp = &s->running; *pp;) {
                mcp_job *j = *pp;

                job_answer_early(s, j);

                if (j->session && !j->reaped) {
                        /* the session's worker lives on: one complete line (or its end) answers */
                        if (!job_complete(j) && !j->eof && !j->overflow) {
                                pp = &j->next;
                                continue;
                        }
                        j->reaped = true;
                        j->wstatus = job_complete(j) ? 0 : 1 << 8;
                        acs_sessions_call_done(s->sessions, j->pid);
                }
                if (!j->reaped) {
                        pid_t p = waitpid(j->pid, &j->wstatus, WNOHANG);

                        if (p == j->pid || (p < 0 && errno == ECHILD))
                                j->reaped = true;
                }
                /* An exited worker's payload may still sit in the pipe: drain it first. */
                if (j->reaped && !j->eof)
                        job_read(j);
                if (!j->reaped || (!j->eof && !job_complete(j) && !j->overflow)) {
                        pp = &j->next;
                        continue;
                }
                *pp = j->next;
                s->n_running--;
                job_respond(s, j);
                job_free(j);
        }
}

static bool id_matches(const char *a, const char *b)
{
        return a && b && strcmp(a, b) == 0;
}

static void cancel_request(mcp_server *s, const char *id_key)
{
        for (mcp_job **pp = &s->queue; *pp; pp = &(*pp)->next) {
                mcp_job *j = *pp;

                if (!id_matches(j->id_key, id_key))
                        continue;
                *pp = j->next;
                if (s->queue_tail == &j->next)
                        s->queue_tail = pp;
                s->n_queued--;
                s->queued_bytes -= j->call.code_len;
                job_free(j);
                return;
        }
        for (mcp_job *j = s->running; j; j = j->next) {
                if (!id_matches(j->id_key, id_key) || j->cancelled || j->answered)
                        continue; /* an answered request is over: its id may be reused */
                j->cancelled = true;
                /* Ask the engine first (it cleans up); SIGKILL the group if it has not ended soon. */
                if (j->cancel_fd >= 0) {
                        close(j->cancel_fd);
                        j->cancel_fd = -1;
                }
                j->kill_at_ms = now_ms() + CANCEL_GRACE_MS;
                return;
        }
}

static int poll_timeout(const mcp_server *s)
{
        uint64_t now = now_ms(), next = UINT64_MAX;

        for (const mcp_job *j = s->running; j; j = j->next) {
                if (j->cancelled && !j->reaped && j->kill_at_ms < next)
                        next = j->kill_at_ms;
                if (j->progress_token && !j->cancelled && !j->answered && !j->reaped && j->progress_at_ms < next)
                        next = j->progress_at_ms;
        }
        if (acs_pool_missing(s->pool) && s->pool_taken_ms + POOL_REFILL_MS < next)
                next = s->pool_taken_ms + POOL_REFILL_MS;
        int idle = acs_sessions_tick(s->sessions);
        if (idle >= 0 && now + (uint64_t)idle < next)
                next = now + (uint64_t)idle;
        if (next == UINT64_MAX)
                return -1;
        return next <= now ? 0 : (int)(next - now);
}

static void kill_overdue(mcp_server *s)
{
        uint64_t now = now_ms();

        for (mcp_job *j = s->running; j; j = j->next)
                if (j->cancelled && !j->reaped && j->kill_at_ms <= now) {
                        job_kill(j);
                        j->kill_at_ms = UINT64_MAX; /* done: no more wake-ups for it */
                }
}

/* Long calls: tell the client they are alive (SDK clients time out at 60 s unless progress resets it). */
static void send_progress(mcp_server *s)
{
        uint64_t now = now_ms();

        for (mcp_job *j = s->running; j; j = j->next) {
                struct json_object *m;

                if (!j->progress_token || j->cancelled || j->answered || j->reaped || j->progress_at_ms > now)
                        continue;
                j->progress_at_ms = now + ACS_MCP_PROGRESS_MS;
                m = acs_mcp_progress_message(j->progress_token, now - j->started_ms, &j->progress_last);
                send_line(s, m ? acs_jrpc_to_line(m) : NULL);
                json_object_put(m);
        }
}

/* ---- messages --------------------------------------------------------- */

static void handle_initialize(mcp_server *s, const acs_jrpc_msg *m)
{
        struct json_object *v = NULL;
        const char *requested = NULL;

        if (json_object_is_type(m->params, json_type_object) &&
            json_object_object_get_ex(m->params, "protocolVersion", &v) && json_object_is_type(v, json_type_string))
                requested = json_object_get_string(v);
        if (!requested) {
                reply_error(s, m->id_json, ACS_JRPC_INVALID_PARAMS,
                            "Invalid params: initialize needs \"protocolVersion\" (string)");
                return;
        }
        s->version = acs_mcp_negotiate_version(requested);
        s->initialized = true;
        acs_log(2, "mcp: initialize: client asked for %s, using %s", requested, s->version);
        reply_result(s, m->id_json, acs_mcp_initialize_result(s->version, PACKAGE_VERSION));
}

static void handle_call(mcp_server *s, const acs_jrpc_msg *m)
{
        char msg[1024];
        mcp_job *j;
        int code = 0, r;

        if (s->n_queued >= MAX_QUEUED || s->queued_bytes >= MAX_QUEUED_BYTES) {
                reply_error(s, m->id_json, ACS_JRPC_SERVER_BUSY,
                            "Server busy: too many calls queued; retry after some complete");
                return;
        }
        j = calloc(1, sizeof(*j));
        if (!j) {
                reply_error(s, m->id_json, ACS_JRPC_INTERNAL_ERROR, "Internal error: out of memory");
                return;
        }
        j->out_fd = j->cancel_fd = -1;
        if ((r = acs_sessions_take(s->sessions, s->opts, m->params, &j->session, msg, sizeof msg)) != 0) {
                if (r > 0) /* close_session: answered */
                        reply_result(s, m->id_json, acs_sessions_closed_result(msg));
                else
                        reply_result(s, m->id_json, acs_mcp_error_result(msg));
                job_free(j);
                return;
        }
        /* write_file, read_file: a session's files (mcp-files.h); their argument errors are the model's to read */
        if ((r = acs_files_parse(s->sessions, j->session, m->params, &j->call, msg, sizeof msg)) < 0) {
                reply_result(s, m->id_json, r == -ENOMEM ? acs_mcp_error_result("Out of memory")
                                                         : acs_mcp_error_result(msg));
                job_free(j);
                return;
        }
        if (r == 0)
                r = acs_mcp_parse_call(&s->policy, m->params, &j->call, &code, msg, sizeof(msg));
        /* The server's policy refusing a profile or a timeout is for the model to read, in any version. */
        if (r == -EACCES || ((r == -EINVAL || r == -ERANGE) && acs_mcp_input_errors_are_tool_errors(s->version))) {
                /* SEP-1303: the model sees what was wrong with its arguments */
                reply_result(s, m->id_json, acs_mcp_error_result(msg));
                job_free(j);
                return;
        }
        if (r < 0) {
                reply_error(s, m->id_json, r == -ENOMEM ? ACS_JRPC_INTERNAL_ERROR : code,
                            r == -ENOMEM ? "Internal error: out of memory" : msg);
                job_free(j);
                return;
        }
        if (j->session && j->call.tool == ACS_TOOL_INSPECT) {
                reply_result(s, m->id_json, acs_mcp_error_result("inspect_code_security takes no \"session\""));
                job_free(j);
                return;
        }
        j->id_json = strdup(m->id_json);
        j->id_key = strdup(m->id_key);
        j->progress_token = acs_mcp_progress_token(m->params);
        if (!j->id_json || !j->id_key) {
                reply_error(s, m->id_json, ACS_JRPC_INTERNAL_ERROR, "Internal error: out of memory");
                job_free(j);
                return;
        }
        *s->queue_tail = j;
        s->queue_tail = &j->next;
        s->n_queued++;
        s->queued_bytes += j->call.code_len;
        start_queued(s);
}

/* The tool list, with the server profile's allowed modules in the descriptions. */
static struct json_object *tools_list(mcp_server *s)
{
        struct json_object *r = acs_mcp_tools_list_result(&s->policy);
        const char *name = s->opts->profile ? s->opts->profile : "default";
        _cleanup_profile_ acs_profile *p = NULL;
        acs_error err = { 0 };
        if (r && acs_profile_load(name, &p, &err) == 0)
                acs_mcp_tools_describe_policy(r, p->name, p->allow_imports);
        if (r && s->sessions && !(s->opts->has_max_sessions && s->opts->max_sessions == 0))
                acs_sessions_describe(r);
        return r;
}

static void handle_request(mcp_server *s, const acs_jrpc_msg *m)
{
        char msg[200];

        /*
         * Requests before initialize are answered: the spec asks clients not
         * to send them, and answering (as the reference SDK server does) is
         * the more useful reading for a tool server with no per-session state.
         */
        if (strcmp(m->method, "initialize") == 0)
                handle_initialize(s, m);
        else if (strcmp(m->method, "ping") == 0)
                reply_result(s, m->id_json, json_object_new_object());
        else if (strcmp(m->method, "tools/list") == 0)
                reply_result(s, m->id_json, tools_list(s));
        else if (strcmp(m->method, "tools/call") == 0)
                handle_call(s, m);
        else {
                snprintf(msg, sizeof(msg), "Method not found: %.*s", acs_jrpc_utf8_prefix(m->method, 100),
                         m->method);
                reply_error(s, m->id_json, ACS_JRPC_METHOD_NOT_FOUND, msg);
        }
}

static void handle_notification(mcp_server *s, const acs_jrpc_msg *m)
{
        if (strcmp(m->method, "notifications/cancelled") == 0) {
                _cleanup_free_ char *id = acs_jrpc_param_id_key(m, "requestId");

                if (id)
                        cancel_request(s, id);
        }
        /* notifications/initialized and anything unknown need no action. */
}

static void handle_line(mcp_server *s, const char *line, size_t len)
{
        acs_jrpc_msg m;

        if (acs_jrpc_blank(line, len))
                return;
        if (acs_jrpc_parse(line, len, &m) < 0) {
                reply_error(s, NULL, ACS_JRPC_INTERNAL_ERROR, "Internal error: out of memory");
                return;
        }
        switch (m.kind) {
        case ACS_JRPC_INVALID:
                reply_error(s, m.id_json, m.err_code, m.err_msg);
                break;
        case ACS_JRPC_REQUEST:
                handle_request(s, &m);
                break;
        case ACS_JRPC_NOTIFICATION:
                handle_notification(s, &m);
                break;
        case ACS_JRPC_RESPONSE:
                break; /* we send no requests, so no response is awaited */
        }
        acs_jrpc_msg_done(&m);
}

/* ---- input ------------------------------------------------------------ */

/* Handle every complete line in the buffer; keep the partial rest. */
static void input_lines(mcp_server *s)
{
        size_t start = 0;

        while (!s->stop) {
                char *nl = memchr(s->in + s->in_scanned, '\n', s->in_len - s->in_scanned);

                if (!nl)
                        break;
                if (s->discarding) {
                        s->discarding = false; /* the oversize line ends here */
                } else {
                        handle_line(s, s->in + start, (size_t)(nl - (s->in + start)));
                }
                start = (size_t)(nl - s->in) + 1;
                s->in_scanned = start;
        }
        if (start > 0) /* (a line that grows over many reads is not copied on each) */
                memmove(s->in, s->in + start, s->in_len - start);
        s->in_len -= start;
        s->in_scanned = s->in_len;

        /* A line longer than the bound is answered once, then skipped up to its newline. */
        if (s->in_len > ACS_JRPC_MAX_LINE || (s->discarding && s->in_len > 0)) {
                if (!s->discarding)
                        reply_error(s, NULL, ACS_JRPC_INVALID_REQUEST,
                                    "Invalid Request: message exceeds 16 MiB; skipped");
                s->discarding = true;
                s->in_len = s->in_scanned = 0;
        }
}

static void input_read(mcp_server *s)
{
        ssize_t n;

        if (s->in_cap - s->in_len < READ_CHUNK) {
                size_t cap = s->in_cap ? s->in_cap * 2 : 4 * READ_CHUNK;
                char *b;

                if (cap > ACS_JRPC_MAX_LINE + 2 * READ_CHUNK)
                        cap = ACS_JRPC_MAX_LINE + 2 * READ_CHUNK;
                b = realloc(s->in, cap);
                if (!b) {
                        acs_log(0, "mcp: out of memory reading input");
                        s->stop = true;
                        return;
                }
                s->in = b;
                s->in_cap = cap;
        }
        /* One read per POLLIN never blocks, and leaves stdin's file flags alone. */
        n = read(STDIN_FILENO, s->in + s->in_len, s->in_cap - s->in_len);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
                return;
        if (n <= 0) {
                /* A last message without a newline still counts. */
                if (s->in_len > 0 && !s->discarding)
                        handle_line(s, s->in, s->in_len);
                s->in_len = 0;
                s->in_eof = true;
                return;
        }
        s->in_len += (size_t)n;
        input_lines(s);
}

/* ---- loop ------------------------------------------------------------- */

static void handle_signals(mcp_server *s)
{
        struct signalfd_siginfo si;

        while (read(s->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
                if (si.ssi_signo == SIGCHLD)
                        continue; /* reaped in jobs_collect */
                acs_log(2, "mcp: signal %u, shutting down", si.ssi_signo);
                s->stop = true;
        }
}

/* EOF, a signal or a dead client: no call outlives the server. */
static void shutdown_jobs(mcp_server *s)
{
        acs_pool_free(s->pool);
        s->pool = NULL;
        while (s->queue) {
                mcp_job *j = s->queue;

                s->queue = j->next;
                job_free(j);
        }
        for (mcp_job *j = s->running; j; j = j->next)
                job_kill(j);
        while (s->running) {
                mcp_job *j = s->running;

                if (!j->reaped)
                        while (waitpid(j->pid, &j->wstatus, 0) < 0 && errno == EINTR)
                                ;
                s->running = j->next;
                job_free(j);
        }
        acs_sessions_free(s->sessions);
        s->sessions = NULL;
}

static void serve(mcp_server *s)
{
        bool jobs_ended = false;

        while (!s->stop) {
                size_t n = 0, max = 3 + s->n_running, in_i = 0, out_i = 0;
                struct pollfd pfd[max];
                mcp_job *owner[max];

                /* EOF: no call outlives it; the replies already queued still go out. */
                if (s->in_eof && !jobs_ended) {
                        shutdown_jobs(s);
                        jobs_ended = true;
                }
                if (s->in_eof && out_pending(s) == 0)
                        break;
                pfd[n++] = (struct pollfd){ .fd = s->sfd, .events = POLLIN };
                if (!s->in_eof && out_pending(s) < OUT_PAUSE) {
                        in_i = n;
                        pfd[n++] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
                }
                if (out_pending(s) > 0) {
                        out_i = n;
                        pfd[n++] = (struct pollfd){ .fd = STDOUT_FILENO, .events = POLLOUT };
                }
                for (mcp_job *j = s->running; j; j = j->next)
                        if (!j->eof) {
                                owner[n] = j;
                                pfd[n++] = (struct pollfd){ .fd = j->out_fd, .events = POLLIN };
                        }
                /* after a refill's fork, take the server's copy-on-write faults
                 * (prefault.h) while nothing waits for it, not in the next call */
                if (s->prefault_due && poll(pfd, n, 0) == 0) {
                        s->prefault_due = false;
                        acs_prefault_private();
                }
                if (poll(pfd, n, poll_timeout(s)) < 0) {
                        if (errno == EINTR)
                                continue;
                        acs_log(0, "mcp: poll: %m");
                        break;
                }
                if (pfd[0].revents)
                        handle_signals(s);
                if (out_i && pfd[out_i].revents)
                        out_flush(s);
                for (size_t i = 1; i < n; i++)
                        if (i != in_i && i != out_i && pfd[i].revents)
                                job_read(owner[i]);
                kill_overdue(s);
                jobs_collect(s);
                send_progress(s);
                /* Results first, then new input: a reply never waits behind a flood of requests. */
                if (!s->stop && in_i && pfd[in_i].revents)
                        input_read(s);
                start_queued(s);
                /* replace what was taken or died, off the handed-over call's critical path */
                acs_pool_reap(s->pool);
                unsigned missing = s->stop ? 0 : acs_pool_missing(s->pool);
                if (missing && (s->n_running == 0 || now_ms() >= s->pool_taken_ms + POOL_REFILL_MS) &&
                    acs_pool_fill(s->pool) < missing)
                        s->prefault_due = true;
        }
}

/* A call mostly waits (on its program, a timeout, the client): even on 1-2 CPUs, 4 at once by default. */
#define MIN_DEFAULT_CONCURRENCY 4

static unsigned default_concurrency(const acs_options *o)
{
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        long n = o->max_concurrency ? (long)o->max_concurrency
                                    : cpus > MIN_DEFAULT_CONCURRENCY ? cpus : MIN_DEFAULT_CONCURRENCY;

        return n < 1 ? 1 : n > 1024 ? 1024 : (unsigned)n;
}

int acs_mcp_main(const acs_options *o)
{
        return acs_mcp_main_on(o, NULL);
}

/*
 * serve: clients until one is an MCP client (true: serve it on stdio) or
 * the server stops (false). A CLI's run is served here (serve-cli.h);
 * when it ended quickly this process takes the next client with its pool.
 */
static bool take_clients(mcp_server *s, const acs_mcp_accept *acc)
{
        for (;;) {
                int r = acc->wait(acc->ctx, s->sfd);
                if (r < 0)
                        return false;
                if (r == 0) {
                        r = acs_serve_cli(s->opts, &s->policy, s->pool, s->sfd);
                        if (r == 0) {
                                acc->claim(acc->ctx);
                                return true;
                        }
                        if (r < 0 || !acc->release(acc->ctx))
                                return false;
                }
                /* a worker that ended while waiting, the sandbox a run took: replaced before the next client */
                acs_pool_reap(s->pool);
                acs_pool_fill(s->pool);
        }
}

int acs_mcp_main_on(const acs_options *o, const acs_mcp_accept *acc)
{
        mcp_server s = {
                .opts = o,
                .max_running = default_concurrency(o),
                .version = ACS_MCP_LATEST_VERSION,
                .sfd = -1,
                .pid = getpid(),
        };
        struct sigaction ign = { .sa_handler = SIG_IGN }, old_pipe;
        sigset_t mask;
        acs_error perr = { 0 };

        if (acs_mcp_policy_load(o, &s.policy, &perr) < 0) {
                fprintf(stderr, "acs-launch mcp: %s\n", perr.msg);
                return 125;
        }
        acs_mcp_out_init(&s.out, STDOUT_FILENO);

        /*
         * Requests and results of up to 16 MiB (a 2 MiB file in base64, twice
         * in a read_file result) are built and freed on every call. By default
         * glibc maps each such buffer afresh and gives it back when freed, so
         * every call faults it in again page by page: on these VMs that was
         * most of a 2 MiB write_file's or read_file's time. Keep them in the
         * heap and keep up to 32 MiB of freed heap (scan-py.c keeps as much):
         * the server, its session workers and pool workers (forked, they
         * inherit this) reuse pages already there.
         */
        mallopt(M_MMAP_THRESHOLD, 32 << 20);
        mallopt(M_TRIM_THRESHOLD, 32 << 20);

        /* Ready the diff's hashing once here: every forked worker inherits it. */
        if (acs_diff_preload(true, &perr) < 0)
                fprintf(stderr, "acs-launch mcp: %s (patches will be slower)\n", perr.msg);

        /* In a delegated cgroup, leave it to the runs' cgroups (see cgroup.h). */
        acs_cgroup_enter_leaf();

        s.queue_tail = &s.queue;
        sigemptyset(&mask);
        sigaddset(&mask, SIGCHLD);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        if (sigprocmask(SIG_BLOCK, &mask, &s.oldmask) < 0) {
                acs_log(0, "mcp: sigprocmask: %m");
                acs_mcp_policy_done(&s.policy);
                return 125;
        }
        s.sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
        if (s.sfd < 0) {
                acs_log(0, "mcp: signalfd: %m");
                sigprocmask(SIG_SETMASK, &s.oldmask, NULL);
                acs_mcp_policy_done(&s.policy);
                return 125;
        }
        /* A client that closes our stdout must surface as EPIPE, not kill us mid-cleanup. */
        sigaction(SIGPIPE, &ign, &old_pipe);

        if (acs_pool_new(o, &s.policy, o->has_pool ? o->pool : ACS_POOL_DEFAULT, &s.oldmask, s.pid, &s.pool,
                         &perr) < 0) {
                fprintf(stderr, "acs-launch mcp: %s\n", perr.msg);
                close(s.sfd);
                sigprocmask(SIG_SETMASK, &s.oldmask, NULL);
                acs_mcp_policy_done(&s.policy);
                acs_mcp_out_done(&s.out);
                return 125;
        }
        acs_pool_fill(s.pool);
        s.sessions = acs_sessions_new(o, &s.policy, &s.oldmask, s.pid);
        /* serve: clients accepted once the pool is ready (serve.c) */
        if (acc && !take_clients(&s, acc))
                s.stop = true;
        acs_log(2, "mcp: serving on stdio, at most %u concurrent calls, profiles allowed: %zu, timeout at most %g s",
                s.max_running, acs_strv_length(s.policy.profiles), s.policy.max_timeout);
        if (!s.stop)
                serve(&s);
        shutdown_jobs(&s);

        free(s.in);
        acs_mcp_out_done(&s.out);
        acs_mcp_policy_done(&s.policy);
        close(s.sfd);
        sigaction(SIGPIPE, &old_pipe, NULL);
        sigprocmask(SIG_SETMASK, &s.oldmask, NULL);
        return 0;
}
