/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The HTTP front end's sessions. Each Mcp-Session-Id is served by an
 * ordinary stdio MCP server (acs_mcp_main) in a forked child whose stdin
 * and stdout are one end of a socketpair: the child keeps its own
 * protocol state, worker processes and cancellation, exactly as under a
 * stdio client, and a crash in it costs one session. The front end only
 * routes lines: a response to the HTTP request waiting for its id, a
 * progress notification to the stream of the request that carried its
 * progressToken, anything else to any open stream of the session.
 *
 * The child dies with the front end (PR_SET_PDEATHSIG), its workers with
 * it, and their sandboxes with them (the same chain as under stdio).
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <json-c/json.h>

#include "jsonrpc.h"
#include "mcp-http-int.h"
#include "mcp.h"

/* In the child: become a stdio MCP server on fd, holding nothing of the front end's. */
_noreturn_ static void session_child(acs_http_server *srv, int fd, pid_t parent)
{
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
                _exit(125);
        if (dup2(fd, STDIN_FILENO) < 0 || dup2(fd, STDOUT_FILENO) < 0)
                _exit(125);
        /* the listener, other sessions' sockets, clients' connections, the signalfd */
        if (close_range(3, ~0U, 0) < 0)
                for (int i = 3; i < 1024; i++)
                        close(i);
        if (srv->token)
                explicit_bzero(srv->token, srv->token_len);
        sigprocmask(SIG_SETMASK, &srv->oldmask, NULL);
        _exit(acs_mcp_main(srv->opts));
}

int acs_http_session_start(acs_http_server *srv, acs_http_session **ret)
{
        unsigned char rnd[16];
        int sp[2];

        if (getrandom(rnd, sizeof rnd, 0) != sizeof rnd)
                return -EIO;
        acs_http_session *s = calloc(1, sizeof *s);
        if (!s)
                return -ENOMEM;
        for (size_t i = 0; i < sizeof rnd; i++)
                snprintf(s->id + 2 * i, 3, "%02x", rnd[i]);
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0) {
                free(s);
                return -errno;
        }
        fflush(stdout);
        fflush(stderr);
        pid_t parent = getpid(), pid = fork();
        if (pid < 0) {
                int r = -errno;
                close(sp[0]);
                close(sp[1]);
                free(s);
                return r;
        }
        if (pid == 0)
                session_child(srv, sp[1], parent);
        close(sp[1]);
        (void)fcntl(sp[0], F_SETFL, O_NONBLOCK);
        s->pid = pid;
        s->fd = sp[0];
        s->used_ms = acs_http_now_ms();
        acs_mcp_out_init(&s->out, s->fd);
        s->next = srv->sessions;
        srv->sessions = s;
        srv->n_sessions++;
        acs_log(2, "mcp --http: session %.8s... served by pid %d", s->id, (int)pid);
        *ret = s;
        return 0;
}

acs_http_session *acs_http_session_find(acs_http_server *srv, acs_http_str id)
{
        for (acs_http_session *s = srv->sessions; s; s = s->next)
                /* ids are random and public to their holder: a plain compare leaks nothing */
                if (!s->ended && id.n == strlen(s->id) && memcmp(id.p, s->id, id.n) == 0)
                        return s;
        return NULL;
}

int acs_http_session_send(acs_http_session *s, const char *line, size_t len)
{
        int r = acs_mcp_out_push(&s->out, line, len);

        if (r >= 0)
                acs_http_session_flush(s);
        s->used_ms = acs_http_now_ms();
        return r;
}

void acs_http_session_flush(acs_http_session *s)
{
        if (s->fd >= 0 && acs_mcp_out_pending(&s->out) > 0 && acs_mcp_out_flush(&s->out, s->fd) < 0) {
                /* the child is gone; SIGCHLD tells the rest */
                close(s->fd);
                s->fd = -1;
        }
}

static void fail_waiting(acs_http_server *srv, acs_http_session *s, const char *why)
{
        for (acs_http_conn *c = srv->conns; c; c = c->next) {
                if (c->session != s || c->state != CONN_WAIT)
                        continue;
                char *line = NULL, msg[160];
                snprintf(msg, sizeof msg, "the MCP session ended (%s)", why);
                c->initialize = false; /* no session to name */
                if (acs_jrpc_error(c->wait_id_json, ACS_JRPC_INTERNAL_ERROR, msg, NULL, &line) >= 0)
                        acs_http_conn_answer(srv, c, line, strlen(line));
                else
                        c->state = CONN_CLOSING;
                free(line);
                c->session = NULL;
        }
}

void acs_http_session_end(acs_http_server *srv, acs_http_session *s, const char *why)
{
        if (s->ended)
                return;
        acs_log(2, "mcp --http: session %.8s... ends: %s", s->id, why);
        s->ended = true;
        fail_waiting(srv, s, why);
        if (s->fd >= 0) {
                close(s->fd);
                s->fd = -1;
        }
        /* EOF alone would do; SIGTERM also stops a child busy with calls at once. */
        if (s->pid > 0)
                kill(s->pid, SIGTERM);
        s->kill_at_ms = acs_http_now_ms() + HTTP_SESSION_GRACE_MS;
}

static acs_http_conn *waiting_for(acs_http_server *srv, acs_http_session *s, const char *key, bool progress)
{
        for (acs_http_conn *c = srv->conns; c; c = c->next) {
                const char *k = progress ? c->progress_key : c->wait_key;
                if (c->session == s && c->state == CONN_WAIT && k && key && strcmp(k, key) == 0)
                        return c;
        }
        return NULL;
}

static char *progress_key_of(json_object *params)
{
        json_object *tok;

        if (!params || !json_object_object_get_ex(params, "progressToken", &tok))
                return NULL;
        return strdup(json_object_to_json_string_ext(tok, JSON_C_TO_STRING_PLAIN));
}

/* One line from the child: to whom. */
static void route(acs_http_server *srv, acs_http_session *s, const char *line, size_t len)
{
        acs_jrpc_msg m = {0};
        acs_http_conn *c = NULL;

        if (acs_jrpc_blank(line, len) || acs_jrpc_parse(line, len, &m) < 0)
                return;
        if (m.kind == ACS_JRPC_RESPONSE) {
                c = waiting_for(srv, s, m.id_key, false);
                if (c) {
                        bool failed = c->initialize && !json_object_object_get_ex(m.root, "result", NULL);
                        if (failed)
                                c->initialize = false;
                        acs_http_conn_answer(srv, c, line, len);
                        if (failed)
                                acs_http_session_end(srv, s, "initialize failed");
                }
        } else if (m.kind == ACS_JRPC_NOTIFICATION || m.kind == ACS_JRPC_REQUEST) {
                _cleanup_free_ char *key = NULL;
                if (m.method && strcmp(m.method, "notifications/progress") == 0 &&
                    (key = progress_key_of(m.params)))
                        c = waiting_for(srv, s, key, true);
                /* anything else goes to any open stream of the session (there is no GET stream) */
                for (acs_http_conn *o = srv->conns; !c && !key && o; o = o->next)
                        if (o->session == s && o->state == CONN_WAIT && o->sse)
                                c = o;
                if (c && c->sse)
                        acs_http_conn_event(c, line, len);
        }
        /* responses nobody waits for any more (their client went away) are dropped */
        acs_jrpc_msg_done(&m);
}

void acs_http_session_read(acs_http_server *srv, acs_http_session *s)
{
        for (;;) {
                if (s->in_cap - s->in_len < 65536) {
                        /* room for the longest line and one more read; never more */
                        const size_t limit = HTTP_MAX_CHILD_LINE + 65536;
                        size_t cap = s->in_cap ? s->in_cap * 2 : 131072;
                        if (cap > limit)
                                cap = limit;
                        char *p = s->in_cap < limit ? realloc(s->in, cap) : NULL;
                        if (!p) {
                                acs_http_session_end(srv, s, "a line from its server is too long");
                                return;
                        }
                        s->in = p;
                        s->in_cap = cap;
                }
                ssize_t n = read(s->fd, s->in + s->in_len, s->in_cap - s->in_len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        break;
                if (n <= 0) {
                        acs_http_session_end(srv, s, "its server exited");
                        return;
                }
                size_t start = 0, scan = s->in_len;
                s->in_len += (size_t)n;
                for (char *nl; (nl = memchr(s->in + scan, '\n', s->in_len - scan));) {
                        size_t end = (size_t)(nl - s->in);
                        route(srv, s, s->in + start, end - start);
                        if (s->ended)
                                return;
                        start = scan = end + 1;
                }
                memmove(s->in, s->in + start, s->in_len - start);
                s->in_len -= start;
        }
}

static void session_free(acs_http_session *s)
{
        if (s->fd >= 0)
                close(s->fd);
        acs_mcp_out_done(&s->out);
        free(s->in);
        free(s);
}

void acs_http_sessions_reap(acs_http_server *srv)
{
        int st;
        pid_t pid;

        while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
                for (acs_http_session *s = srv->sessions; s; s = s->next)
                        if (s->pid == pid) {
                                s->pid = 0;
                                s->wstatus = st;
                                acs_http_session_end(srv, s, "its server exited");
                        }
        for (acs_http_session **pp = &srv->sessions; *pp;) {
                acs_http_session *s = *pp;
                if (s->ended && s->pid == 0) {
                        *pp = s->next;
                        srv->n_sessions--;
                        session_free(s);
                } else
                        pp = &s->next;
        }
}

void acs_http_sessions_tick(acs_http_server *srv, uint64_t now)
{
        for (acs_http_session *s = srv->sessions; s; s = s->next) {
                bool busy = false;
                for (acs_http_conn *c = srv->conns; c && !busy; c = c->next)
                        busy = c->session == s && c->state == CONN_WAIT;
                if (!s->ended && !busy && now - s->used_ms > HTTP_SESSION_IDLE_MS)
                        acs_http_session_end(srv, s, "idle");
                if (s->ended && s->pid > 0 && now >= s->kill_at_ms) {
                        acs_log(1, "mcp --http: session server %d did not exit, killing it", (int)s->pid);
                        kill(s->pid, SIGKILL);
                        s->kill_at_ms = UINT64_MAX;
                }
        }
}

void acs_http_sessions_shutdown(acs_http_server *srv)
{
        for (acs_http_session *s = srv->sessions; s; s = s->next)
                acs_http_session_end(srv, s, "shutting down");
        for (;;) {
                acs_http_sessions_reap(srv);
                if (!srv->sessions)
                        break;
                uint64_t now = acs_http_now_ms(), next = UINT64_MAX;
                acs_http_sessions_tick(srv, now);
                for (acs_http_session *s = srv->sessions; s; s = s->next)
                        if (s->kill_at_ms < next)
                                next = s->kill_at_ms;
                /* SIGCHLD arrives on the signalfd; never longer than the grace */
                struct pollfd p = {.fd = srv->sfd, .events = POLLIN};
                int ms = next == UINT64_MAX ? 1000 : next > now ? (int)(next - now) : 0;
                if (poll(&p, 1, ms) > 0) {
                        struct signalfd_siginfo si;
                        while (read(srv->sfd, &si, sizeof si) == sizeof si)
                                ;
                }
        }
}
