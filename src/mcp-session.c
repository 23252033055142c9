/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The MCP server's table of sessions (mcp-session.h). */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include <json-c/json.h>

#include "mcp-files.h"
#include "cli.h"
#include "mcp-session.h"
#include "pool.h"

/* How long a call's frame may take to go into an idle worker (which may still be making its sandbox). */
#define SESSION_SEND_MS 10000

typedef struct mcp_sess {
        struct mcp_sess *next;
        char *id;
        pid_t pid;
        int call_fd, out_fd;
        bool busy, closing;
        uint64_t last_ms;
} mcp_sess;

struct acs_sessions {
        const acs_options *opts;
        const acs_mcp_policy *policy;
        const sigset_t *mask;
        pid_t server;
        unsigned max, n;
        uint64_t idle_ms;
        mcp_sess *list;
};

static uint64_t now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

acs_sessions *acs_sessions_new(const acs_options *o, const acs_mcp_policy *pol, const sigset_t *mask, pid_t server)
{
        acs_sessions *S = calloc(1, sizeof *S);
        if (!S)
                return NULL;
        double idle = o->has_session_idle ? o->session_idle : ACS_SESSION_DEFAULT_IDLE;
        *S = (acs_sessions){ .opts = o, .policy = pol, .mask = mask, .server = server,
                             .max = o->has_max_sessions ? o->max_sessions : ACS_SESSIONS_DEFAULT_MAX,
                             .idle_ms = (uint64_t)(idle * 1000) };
        return S;
}

static mcp_sess *find(acs_sessions *S, const char *id)
{
        for (mcp_sess *s = S->list; s; s = s->next)
                if (!s->closing && strcmp(s->id, id) == 0)
                        return s;
        return NULL;
}

static void end(mcp_sess *s)
{
        if (s->call_fd >= 0)
                close(s->call_fd); /* EOF: the worker ends its sandbox and exits */
        s->call_fd = -1;
        s->closing = true;
}

bool acs_sessions_exists(acs_sessions *S, const char *id)
{
        return S && id && find(S, id);
}

/* Write the call's frame whole; a long one (a file for write_file) waits for the worker to read it. */
static int send_frame(int fd, const char *line, size_t len)
{
        /* a MiB pipe (the unprivileged maximum) passes a 2 MiB file in 3 wake-ups, not 40 */
        if (len > 65536 && fcntl(fd, F_GETPIPE_SZ) < (1 << 20))
                (void)fcntl(fd, F_SETPIPE_SZ, 1 << 20);
        uint64_t deadline = now_ms() + SESSION_SEND_MS;
        for (size_t off = 0; off < len;) {
                ssize_t n = write(fd, line + off, len - off);
                if (n > 0) {
                        off += (size_t)n;
                        continue;
                }
                if (n < 0 && errno != EAGAIN && errno != EINTR)
                        return -errno;
                uint64_t now = now_ms();
                if (now >= deadline)
                        return -ETIMEDOUT;
                struct pollfd p = { .fd = fd, .events = POLLOUT };
                (void)poll(&p, 1, (int)(deadline - now));
        }
        return 0;
}

int acs_sessions_call(acs_sessions *S, const char *id, const acs_mcp_call *c, pid_t *pid, int *out_fd)
{
        mcp_sess *s = find(S, id);
        if (!s) {
                /* a closed session whose worker is not reaped yet is ending: it
                 * does not hold a place (close_session, then the same id at once) */
                size_t live = 0;
                for (mcp_sess *t = S->list; t; t = t->next)
                        live += !t->closing;
                if (live >= S->max)
                        return -EUSERS;
                if (!(s = calloc(1, sizeof *s)) || !(s->id = strdup(id))) {
                        free(s);
                        return -ENOMEM;
                }
                const char *name = c->profile && strcmp(c->profile, S->policy->profiles[0]) != 0 ? c->profile : NULL;
                s->pid = acs_pool_session_start(S->opts, S->policy, name, S->mask, S->server, &s->call_fd, &s->out_fd);
                if (s->pid < 0) {
                        int r = s->pid;
                        free(s->id);
                        free(s);
                        return r;
                }
                s->next = S->list;
                S->list = s;
                S->n++;
        }
        if (s->busy)
                return -EBUSY;
        _cleanup_free_ char *frame = NULL;
        size_t len = 0;
        int r = acs_pool_call_to_frame(c, NULL, &frame, &len);
        if (r < 0)
                return r;
        if ((r = send_frame(s->call_fd, frame, len)) < 0) {
                end(s); /* a worker that takes no call: the session is over */
                return r;
        }
        int fd = fcntl(s->out_fd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return -errno;
        s->busy = true;
        *pid = s->pid;
        *out_fd = fd;
        return 0;
}

void acs_sessions_call_done(acs_sessions *S, pid_t pid)
{
        for (mcp_sess *s = S ? S->list : NULL; s; s = s->next)
                if (s->pid == pid) {
                        s->busy = false;
                        s->last_ms = now_ms();
                }
}

int acs_sessions_close(acs_sessions *S, const char *id)
{
        mcp_sess *s = S ? find(S, id) : NULL;
        if (!s)
                return -ENOENT;
        end(s);
        return 0;
}

int acs_sessions_tick(acs_sessions *S)
{
        uint64_t now = now_ms(), next = UINT64_MAX;
        if (!S)
                return -1;
        for (mcp_sess **pp = &S->list; *pp;) {
                mcp_sess *s = *pp;
                int st;
                pid_t r = waitpid(s->pid, &st, WNOHANG);
                if (r == s->pid || (r < 0 && errno == ECHILD)) {
                        if (s->busy) { /* its call's job sees the pipe's EOF: reap it after that */
                                pp = &s->next;
                                continue;
                        }
                        *pp = s->next;
                        if (s->call_fd >= 0)
                                close(s->call_fd);
                        close(s->out_fd);
                        free(s->id);
                        free(s);
                        S->n--;
                        continue;
                }
                if (!s->busy && !s->closing && S->idle_ms) {
                        if (now >= s->last_ms + S->idle_ms) {
                                acs_log(2, "mcp: session %s idle: ended", s->id);
                                end(s);
                        } else if (s->last_ms + S->idle_ms < next)
                                next = s->last_ms + S->idle_ms;
                }
                pp = &s->next;
        }
        return next == UINT64_MAX ? -1 : (int)(next - now);
}

#define SESSION_GRACE_MS 2000

void acs_sessions_free(acs_sessions *S)
{
        if (!S)
                return;
        for (mcp_sess *s = S->list; s; s = s->next) {
                end(s);
                s->busy = false;
        }
        uint64_t t0 = now_ms();
        while (S->list) {
                acs_sessions_tick(S);
                if (!S->list)
                        break;
                if (now_ms() > t0 + SESSION_GRACE_MS)
                        for (mcp_sess *s = S->list; s; s = s->next) {
                                (void)kill(-s->pid, SIGKILL);
                                (void)kill(s->pid, SIGKILL);
                        }
                nanosleep(&(struct timespec){ .tv_nsec = 2000000 }, NULL);
        }
        free(S);
}

/* ---- the protocol side ------------------------------------------------ */

static const char session_prop[] =
        "{\"type\":\"string\",\"pattern\":\"^[A-Za-z0-9._:-]{1,128}$\",\"description\":\"Run in this "
        "session's sandbox, kept between calls: its /workspace, /tmp and Python globals persist, and "
        "execute_python, execute_command, write_file and read_file calls with the id share them (a new id "
        "starts one; close_session ends it). Without it every call gets a fresh sandbox.\"}";

static const char close_session_tool[] =
        "{\"name\":\"close_session\",\"title\":\"End a session\",\"description\":\"End the session "
        "that execute_python, execute_command, write_file and read_file calls named with \\\"session\\\": its "
        "sandbox, workspace and globals are destroyed.\","
        "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"session\":{\"type\":\"string\"}},"
        "\"required\":[\"session\"],\"additionalProperties\":false},"
        "\"annotations\":{\"title\":\"End a session\",\"readOnlyHint\":false,\"destructiveHint\":true,"
        "\"idempotentHint\":true,\"openWorldHint\":false}}";

/* execute_python's "session" argument and the close_session tool (mcp-session.h). */
void acs_sessions_describe(struct json_object *list)
{
        struct json_object *tools, *t, *name, *in, *props;
        if (!json_object_object_get_ex(list, "tools", &tools))
                return;
        for (size_t i = 0; i < json_object_array_length(tools); i++) {
                t = json_object_array_get_idx(tools, i);
                if (json_object_object_get_ex(t, "name", &name) &&
                    (strcmp(json_object_get_string(name), "execute_python") == 0 ||
                     strcmp(json_object_get_string(name), "execute_command") == 0) &&
                    json_object_object_get_ex(t, "inputSchema", &in) && json_object_object_get_ex(in, "properties", &props))
                        json_object_object_add(props, "session", json_tokener_parse(session_prop));
        }
        json_object_array_add(tools, json_tokener_parse(close_session_tool));
        acs_files_describe(list);
}

/* The closing tool's result: structuredContent {"session": ID, "closed": true}. */
struct json_object *acs_sessions_closed_result(const char *id)
{
        struct json_object *r = json_object_new_object(), *c = json_object_new_array(),
                           *t = json_object_new_object(), *sc = json_object_new_object();
        char text[200];
        snprintf(text, sizeof text, "Session %.128s closed: its sandbox is gone.", id);
        json_object_object_add(t, "type", json_object_new_string("text"));
        json_object_object_add(t, "text", json_object_new_string(text));
        json_object_array_add(c, t);
        json_object_object_add(sc, "session", json_object_new_string(id));
        json_object_object_add(sc, "closed", json_object_new_boolean(1));
        json_object_object_add(r, "content", c);
        json_object_object_add(r, "structuredContent", sc);
        json_object_object_add(r, "isError", json_object_new_boolean(0));
        return r;
}

/*
 * Sessions (mcp-session.h): close_session is answered here (1, its id in
 * msg); a "session" argument is taken out of the arguments into *ret (0),
 * so that the tool's own validation sees what it knows. < 0: a tool error
 * in msg.
 */
int acs_sessions_take(acs_sessions *S, const acs_options *o, struct json_object *params, char **ret, char *msg,
                      size_t size)
{
        struct json_object *name, *args = NULL, *v;
        if (!json_object_is_type(params, json_type_object) ||
            !json_object_object_get_ex(params, "name", &name) || !json_object_is_type(name, json_type_string))
                return 0; /* the parser says what is wrong */
        bool closing = strcmp(json_object_get_string(name), "close_session") == 0;
        if (!json_object_object_get_ex(params, "arguments", &args) || !json_object_is_type(args, json_type_object) ||
            !json_object_object_get_ex(args, "session", &v)) {
                if (closing)
                        snprintf(msg, size, "close_session needs \"session\": the id the calls used");
                return closing ? -EINVAL : 0;
        }
        const char *id = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
        if (!acs_cli_session_id_valid(id)) {
                snprintf(msg, size, "\"session\" must be 1 to 128 letters, digits, '.', '_', ':' or '-'");
                return -EINVAL;
        }
        if (closing) {
                if (acs_sessions_close(S, id) < 0) {
                        snprintf(msg, size, "No session %s on this connection", id);
                        return -ENOENT;
                }
                snprintf(msg, size, "%s", id);
                return 1;
        }
        if (!S || (o->has_max_sessions && o->max_sessions == 0)) {
                snprintf(msg, size, "This server keeps no sessions (--max-sessions 0): call without \"session\"");
                return -EOPNOTSUPP;
        }
        if (!(*ret = strdup(id)))
                return -ENOMEM;
        json_object_object_del(args, "session");
        return 0;
}
