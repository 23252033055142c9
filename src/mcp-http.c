/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `acs-launch mcp --http ADDR:PORT`: MCP over the Streamable HTTP transport.
 *
 * One poll loop, no threads: the listener, a signalfd (SIGCHLD, SIGTERM,
 * SIGINT, SIGHUP), each session's socket to its server child, and each
 * client connection. A connection reads one request at a time (head, then
 * body), each bounded in size and time, answers it at once or waits for
 * the session's answer, and writes only as far as the socket takes it: a
 * slow or stalled client costs its own buffer, never the loop. HTTP/1.1
 * keep-alive is kept; a refused head closes the connection.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>

#include "cgroup.h"
#include "mcp-http-int.h"
#include "mcp-http.h"
#include "mcp-policy.h"

#define HTTP_TOKEN_ENV "ACS_MCP_HTTP_TOKEN"
#define HTTP_TOKEN_MAX 4096

uint64_t acs_http_now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void acs_http_conn_append(acs_http_conn *c, const char *p, size_t n)
{
        if (c->state == CONN_LINGER || !n)
                return;
        if (c->out_len - c->out_off + n > HTTP_MAX_OUT) {
                /* a client this far behind is dropped, not buffered for */
                c->state = CONN_LINGER;
                c->deadline_ms = 0;
                return;
        }
        if (c->out_off && c->out_off == c->out_len)
                c->out_off = c->out_len = 0;
        if (c->out_len + n > c->out_cap) {
                size_t cap = c->out_cap ? c->out_cap : 4096;
                while (cap < c->out_len + n)
                        cap *= 2;
                char *q = realloc(c->out, cap);
                if (!q) {
                        c->state = CONN_LINGER;
                        c->deadline_ms = 0;
                        return;
                }
                c->out = q;
                c->out_cap = cap;
        }
        if (c->out_off == c->out_len)
                c->write_ms = acs_http_now_ms();
        memcpy(c->out + c->out_len, p, n);
        c->out_len += n;
}

void acs_http_respond(acs_http_server *srv, acs_http_conn *c, int status, const char *extra, const char *type,
                      const char *body, size_t len)
{
        char head[512];
        int n = snprintf(head, sizeof head, "HTTP/1.1 %d %s\r\n%s%s%s%s", status, acs_http_reason(status),
                         extra ? extra : "", type ? "Content-Type: " : "", type ? type : "",
                         type ? "\r\n" : "");

        (void)srv;
        if (status != 204)
                n += snprintf(head + n, sizeof head - (size_t)n, "Content-Length: %zu\r\n", len);
        n += snprintf(head + n, sizeof head - (size_t)n, "Cache-Control: no-store\r\n%s\r\n",
                      c->close_after ? "Connection: close\r\n" : "");
        acs_http_conn_append(c, head, (size_t)n < sizeof head ? (size_t)n : sizeof head - 1);
        acs_http_conn_append(c, body, len);
}

void acs_http_conn_exchange_done(acs_http_conn *c)
{
        free(c->wait_key);
        free(c->wait_id_json);
        free(c->progress_key);
        c->wait_key = c->wait_id_json = c->progress_key = NULL;
        c->session = NULL;
        c->sse = c->initialize = false;
        if (c->state == CONN_LINGER)
                return;
        memmove(c->in, c->in + c->need, c->in_len - c->need);
        c->in_len -= c->need;
        c->need = 0;
        c->state = c->close_after ? CONN_CLOSING : CONN_HEAD;
        c->deadline_ms = acs_http_now_ms() + (c->in_len ? HTTP_HEAD_MS : HTTP_IDLE_MS);
}

/* A refusal before the body: answer, and close (the body, if any, is never read). */
static void refuse(acs_http_conn *c)
{
        c->close_after = true;
        c->state = CONN_CLOSING;
}

/* Parse what has arrived: heads, bodies, requests, as long as nothing waits to be written. */
static void conn_process(acs_http_server *srv, acs_http_conn *c)
{
        acs_http_request req;

        while ((c->state == CONN_HEAD || c->state == CONN_BODY) && c->out_off == c->out_len) {
                int r = acs_http_parse_head(c->in, c->in_len, HTTP_MAX_HEAD, &req);
                if (r == 0)
                        return;
                if (r < 0) {
                        c->close_after = true;
                        acs_http_respond(srv, c, req.status, NULL, "text/plain; charset=utf-8",
                                         "bad request head\n", 17);
                        refuse(c);
                        return;
                }
                if (c->state == CONN_HEAD) {
                        c->close_after = acs_http_wants_close(&req);
                        if (acs_http_check_head(srv, c, &req) < 0) {
                                refuse(c);
                                return;
                        }
                        c->state = CONN_BODY;
                        c->deadline_ms = acs_http_now_ms() + HTTP_BODY_MS;
                        /* curl waits a second for this before sending a body over 1 KiB */
                        const acs_http_str *expect = acs_http_header(&req, "expect");
                        if (expect && acs_http_str_eq(*expect, "100-continue") && c->in_len < c->need) {
                                static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
                                acs_http_conn_append(c, cont, sizeof cont - 1);
                        }
                }
                if (c->in_len < c->need)
                        return;
                acs_http_handle_request(srv, c, &req, c->in + req.head_len, c->need - req.head_len);
                if (c->state == CONN_BODY)
                        acs_http_conn_exchange_done(c);
        }
}

static void conn_read(acs_http_server *srv, acs_http_conn *c)
{
        size_t max = HTTP_MAX_HEAD + HTTP_MAX_BODY;

        if (c->state == CONN_LINGER) {
                char sink[4096];
                ssize_t n = recv(c->fd, sink, sizeof sink, MSG_DONTWAIT);
                if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
                        c->deadline_ms = 0;
                return;
        }
        if (c->in_cap - c->in_len < 16384 && c->in_cap < max) {
                size_t cap = c->in_cap ? c->in_cap * 2 : 16384;
                char *p = realloc(c->in, cap < max ? cap : max);
                if (!p) {
                        c->state = CONN_LINGER;
                        c->deadline_ms = 0;
                        return;
                }
                c->in = p;
                c->in_cap = cap < max ? cap : max;
        }
        ssize_t n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return;
        if (n <= 0) {
                c->state = CONN_LINGER;
                c->deadline_ms = 0;
                return;
        }
        if (c->state == CONN_HEAD && c->in_len == 0)
                c->deadline_ms = acs_http_now_ms() + HTTP_HEAD_MS;
        c->in_len += (size_t)n;
        conn_process(srv, c);
}

static void conn_flush(acs_http_conn *c)
{
        while (c->out_off < c->out_len) {
                ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
                                 MSG_DONTWAIT | MSG_NOSIGNAL);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        return;
                if (n <= 0) {
                        c->state = CONN_LINGER;
                        c->deadline_ms = 0;
                        return;
                }
                c->out_off += (size_t)n;
                c->write_ms = acs_http_now_ms();
        }
        if (c->state == CONN_CLOSING) {
                /* half-close, then read what the client still sends: closing with unread
                 * bytes would reset the connection and could lose the answer */
                shutdown(c->fd, SHUT_WR);
                c->state = CONN_LINGER;
                c->deadline_ms = acs_http_now_ms() + HTTP_LINGER_MS;
        }
}

static void conn_timeouts(acs_http_conn *c, uint64_t now)
{
        if (c->out_off < c->out_len && now - c->write_ms > HTTP_WRITE_MS) {
                c->state = CONN_LINGER;
                c->deadline_ms = 0;
                return;
        }
        if (c->state == CONN_WAIT && c->sse && now - c->event_ms >= HTTP_SSE_PING_MS)
                acs_http_conn_ping(c);
        if ((c->state != CONN_HEAD && c->state != CONN_BODY) || now < c->deadline_ms)
                return;
        if (c->state == CONN_HEAD && c->in_len == 0) {
                c->state = CONN_LINGER; /* idle keep-alive: just close */
                c->deadline_ms = 0;
                return;
        }
        c->close_after = true;
        acs_http_respond(NULL, c, 408, NULL, "text/plain; charset=utf-8", "request timeout\n", 16);
        refuse(c);
}

static void conn_free(acs_http_conn *c)
{
        close(c->fd);
        free(c->in);
        free(c->out);
        free(c->wait_key);
        free(c->wait_id_json);
        free(c->progress_key);
        free(c);
}

static void accept_all(acs_http_server *srv)
{
        static const char busy[] =
                "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nRetry-After: 1\r\n"
                "Connection: close\r\n\r\n";

        for (;;) {
                int fd = accept4(srv->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
                if (fd < 0) {
                        if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
                                acs_log(1, "mcp --http: accept: %m");
                        return;
                }
                acs_http_conn *c = srv->n_conns < HTTP_MAX_CONNS ? calloc(1, sizeof *c) : NULL;
                if (!c) {
                        (void)!send(fd, busy, sizeof busy - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
                        close(fd);
                        continue;
                }
                /* An SSE event follows its headers after the call runs: Nagle would
                 * hold it until the client's delayed ACK of the headers. */
                (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
                c->fd = fd;
                c->state = CONN_HEAD;
                c->deadline_ms = acs_http_now_ms() + HTTP_HEAD_MS;
                c->next = srv->conns;
                srv->conns = c;
                srv->n_conns++;
        }
}

static void handle_signals(acs_http_server *srv)
{
        struct signalfd_siginfo si;

        while (read(srv->sfd, &si, sizeof si) == sizeof si) {
                if (si.ssi_signo == SIGCHLD)
                        acs_http_sessions_reap(srv);
                else {
                        acs_log(2, "mcp --http: signal %u, shutting down", si.ssi_signo);
                        srv->stop = true;
                }
        }
}

static short conn_events(const acs_http_conn *c)
{
        short ev = c->out_off < c->out_len ? POLLOUT : 0;

        if (c->state == CONN_HEAD || c->state == CONN_BODY || c->state == CONN_LINGER)
                ev |= POLLIN;
        if (c->state == CONN_WAIT)
                ev |= POLLRDHUP; /* the client went away while its call runs */
        return ev;
}

static int poll_timeout(const acs_http_server *srv, uint64_t now)
{
        uint64_t next = now + 1000;

        for (const acs_http_conn *c = srv->conns; c; c = c->next)
                if ((c->state == CONN_HEAD || c->state == CONN_BODY || c->state == CONN_LINGER) &&
                    c->deadline_ms < next)
                        next = c->deadline_ms;
        return next > now ? (int)(next - now) : 0;
}

/* Close what is finished: dropped connections at once, lingering ones at their deadline. */
static void conns_sweep(acs_http_server *srv, uint64_t now)
{
        for (acs_http_conn **pp = &srv->conns; *pp;) {
                acs_http_conn *c = *pp;
                if (c->state == CONN_LINGER && (c->deadline_ms == 0 || now >= c->deadline_ms)) {
                        *pp = c->next;
                        srv->n_conns--;
                        conn_free(c);
                } else
                        pp = &c->next;
        }
}

static void conn_events_done(acs_http_server *srv, acs_http_conn *c, short rev)
{
        if (rev & POLLOUT)
                conn_flush(c);
        if (c->state == CONN_WAIT && (rev & (POLLRDHUP | POLLHUP | POLLERR))) {
                /* the call goes on in the session; its answer will find nobody and be dropped */
                c->state = CONN_LINGER;
                c->deadline_ms = 0;
        } else if (rev & (POLLIN | POLLHUP | POLLERR))
                conn_read(srv, c);
}

static void serve(acs_http_server *srv)
{
        while (!srv->stop) {
                size_t max = 2 + srv->n_sessions + srv->n_conns, n = 2;
                struct pollfd pfd[max];
                acs_http_session *ses[max];
                acs_http_conn *con[max];
                uint64_t now = acs_http_now_ms();

                pfd[0] = (struct pollfd){.fd = srv->sfd, .events = POLLIN};
                pfd[1] = (struct pollfd){.fd = srv->lfd, .events = POLLIN};
                for (acs_http_session *s = srv->sessions; s && n < max; s = s->next)
                        if (s->fd >= 0) {
                                ses[n] = s, con[n] = NULL;
                                pfd[n++] = (struct pollfd){
                                        .fd = s->fd,
                                        .events = POLLIN | (acs_mcp_out_pending(&s->out) ? POLLOUT : 0)};
                        }
                for (acs_http_conn *c = srv->conns; c && n < max; c = c->next) {
                        ses[n] = NULL, con[n] = c;
                        pfd[n++] = (struct pollfd){.fd = c->fd, .events = conn_events(c)};
                }
                if (poll(pfd, n, poll_timeout(srv, now)) < 0 && errno != EINTR) {
                        acs_log(0, "mcp --http: poll: %m");
                        break;
                }
                if (pfd[1].revents)
                        accept_all(srv);
                for (size_t i = 2; i < n; i++) {
                        if (!pfd[i].revents)
                                continue;
                        if (ses[i] && ses[i]->fd >= 0 && (pfd[i].revents & POLLOUT))
                                acs_http_session_flush(ses[i]);
                        if (ses[i] && ses[i]->fd >= 0 && (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
                                acs_http_session_read(srv, ses[i]);
                        if (con[i])
                                conn_events_done(srv, con[i], pfd[i].revents);
                }
                now = acs_http_now_ms();
                for (acs_http_conn *c = srv->conns; c; c = c->next) {
                        conn_process(srv, c); /* a request that followed an answer */
                        if (c->out_off < c->out_len || c->state == CONN_CLOSING)
                                conn_flush(c);
                        conn_timeouts(c, now);
                }
                conns_sweep(srv, now);
                acs_http_sessions_tick(srv, now);
                /* last: reaping frees sessions the loop above may still have pointed to */
                if (pfd[0].revents)
                        handle_signals(srv);
        }
}

/* The token: --http-token-file FILE, else $ACS_MCP_HTTP_TOKEN (then unset: no child sees it). */
static int load_token(const acs_options *o, acs_http_server *srv, acs_error *err)
{
        char buf[HTTP_TOKEN_MAX + 2];
        size_t n = 0;
        const char *env = getenv(HTTP_TOKEN_ENV);

        if (o->http_token_file) {
                _cleanup_close_ int fd = open(o->http_token_file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
                if (fd < 0)
                        return acs_error_errno(err, -errno, "usage", "--http-token-file %s",
                                               o->http_token_file);
                int k = acs_read_small(fd, buf, sizeof buf);
                if (k < 0)
                        return acs_error_errno(err, k, "usage", "--http-token-file %s", o->http_token_file);
                n = (size_t)k;
                if (n > HTTP_TOKEN_MAX)
                        return acs_error_set(err, -EINVAL, "usage",
                                             "--http-token-file %s: longer than %d bytes", o->http_token_file,
                                             HTTP_TOKEN_MAX);
        } else if (env) {
                n = strlen(env);
                if (n > HTTP_TOKEN_MAX)
                        return acs_error_set(err, -EINVAL, "usage", HTTP_TOKEN_ENV ": longer than %d bytes",
                                             HTTP_TOKEN_MAX);
                memcpy(buf, env, n);
        } else
                return 0;
        /* /proc/PID/environ shows the original block, which unsetenv leaves
         * as it was and every session child inherits: wipe the bytes too. */
        if (env)
                explicit_bzero((char *)env, strlen(env));
        unsetenv(HTTP_TOKEN_ENV);
        while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
                n--;
        buf[n] = '\0';
        /* what a client can send after "Bearer ": RFC 6750's token68 characters */
        for (size_t i = 0; i < n; i++)
                if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/=",
                            buf[i])) {
                        explicit_bzero(buf, sizeof buf);
                        return acs_error_set(
                                err, -EINVAL, "usage",
                                "%s: the token may hold only letters, digits and -._~+/= (one line)",
                                o->http_token_file ? o->http_token_file : HTTP_TOKEN_ENV);
                }
        if (n == 0)
                return acs_error_set(err, -EINVAL, "usage", "%s: the token is empty",
                                     o->http_token_file ? o->http_token_file : HTTP_TOKEN_ENV);
        srv->token = strdup(buf);
        srv->token_len = n;
        explicit_bzero(buf, sizeof buf);
        return srv->token ? 0 : -ENOMEM;
}

static int listen_on(const acs_options *o, acs_http_server *srv, acs_error *err)
{
        struct sockaddr_storage ss;
        socklen_t len;
        char host[INET6_ADDRSTRLEN];
        int one = 1;

        if (acs_http_parse_listen(o->http, &ss, &len) < 0)
                return acs_error_set(err, -EINVAL, "usage",
                                     "--http: expected ADDR:PORT, [ADDR6]:PORT or PORT, got '%s'", o->http);
        srv->loopback = acs_http_addr_is_loopback(&ss);
        if (!srv->loopback && !srv->token)
                return acs_error_set(
                        err, -EPERM, "usage",
                        "--http %s: a non-loopback address needs a token (--http-token-file FILE or %s)",
                        o->http, HTTP_TOKEN_ENV);
        srv->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (srv->lfd < 0)
                return acs_error_errno(err, -errno, "setup", "--http: socket");
        (void)setsockopt(srv->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(srv->lfd, (struct sockaddr *)&ss, len) < 0)
                return acs_error_errno(err, -errno, "setup", "--http %s: bind", o->http);
        if (listen(srv->lfd, 128) < 0)
                return acs_error_errno(err, -errno, "setup", "--http %s: listen", o->http);
        len = sizeof ss;
        if (getsockname(srv->lfd, (struct sockaddr *)&ss, &len) < 0)
                return acs_error_errno(err, -errno, "setup", "--http: getsockname");
        bool v6 = ss.ss_family == AF_INET6;
        inet_ntop(ss.ss_family,
                  v6 ? (void *)&((struct sockaddr_in6 *)&ss)->sin6_addr
                     : (void *)&((struct sockaddr_in *)&ss)->sin_addr,
                  host, sizeof host);
        unsigned port =
                ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port : ((struct sockaddr_in *)&ss)->sin_port);
        /* the line a supervisor or a test reads to find the port (also with port 0) */
        fprintf(stderr, "acs-launch mcp: serving MCP over HTTP at http://%s%s%s:%u/mcp%s\n", v6 ? "[" : "",
                host, v6 ? "]" : "", port, srv->token ? " (bearer token required)" : "");
        return 0;
}

int acs_mcp_http_main(const acs_options *o)
{
        acs_http_server srv = {.opts = o, .lfd = -1, .sfd = -1};
        acs_error err = {0};
        acs_mcp_policy pol;
        sigset_t mask;
        int status = 125;

        /* refuse a bad --profile now, not in every session */
        if (acs_mcp_policy_load(o, &pol, &err) < 0)
                goto out;
        acs_mcp_policy_done(&pol);
        if (load_token(o, &srv, &err) < 0 || listen_on(o, &srv, &err) < 0)
                goto out;
        sigemptyset(&mask);
        sigaddset(&mask, SIGCHLD);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        if (sigprocmask(SIG_BLOCK, &mask, &srv.oldmask) < 0 ||
            (srv.sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
                acs_error_errno(&err, -errno, "setup", "mcp --http: signalfd");
                goto out;
        }
        /* In a delegated cgroup (Delegate=yes), leave it to the runs' cgroups
         * before forking any session, as the stdio server does (see cgroup.h):
         * with the front end still in it, no session could enable the
         * controllers the runs' limits need. */
        acs_cgroup_enter_leaf();
        serve(&srv);
        close(srv.lfd);
        srv.lfd = -1;
        while (srv.conns) {
                acs_http_conn *c = srv.conns;
                srv.conns = c->next;
                conn_free(c);
        }
        srv.n_conns = 0;
        acs_http_sessions_shutdown(&srv);
        status = 0;
out:
        if (status)
                fprintf(stderr, "acs-launch mcp: %s\n", err.msg);
        if (srv.sfd >= 0) {
                close(srv.sfd);
                sigprocmask(SIG_SETMASK, &srv.oldmask, NULL);
        }
        if (srv.lfd >= 0)
                close(srv.lfd);
        if (srv.token) {
                explicit_bzero(srv.token, srv.token_len);
                free(srv.token);
        }
        return status;
}
