/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared between the HTTP front end's connection loop (mcp-http.c) and its sessions (mcp-http-session.c). */
#pragma once

#include <signal.h>
#include <sys/types.h>

#include "cli.h"
#include "http-parse.h"
#include "mcp-out.h"

/* Bounds on what clients can make the front end hold. */
#define HTTP_MAX_HEAD (16u << 10)
#define HTTP_MAX_BODY (4u << 20)
#define HTTP_MAX_CONNS 64u
#define HTTP_MAX_SESSIONS 16u
/* A line from a session child: a result is at most ACS_MCP_MAX_RESULT plus framing. */
#define HTTP_MAX_CHILD_LINE ((64u << 20) + (64u << 10))
/* A client whose unsent bytes exceed this is dropped rather than buffered for. */
#define HTTP_MAX_OUT ((64u << 20) + (1u << 20))
/* Slowloris: a head must arrive this soon after its first byte, a body after its head. */
#define HTTP_HEAD_MS 10000
#define HTTP_BODY_MS 30000
#define HTTP_IDLE_MS 60000
#define HTTP_WRITE_MS 30000
#define HTTP_LINGER_MS 2000
/* A comment on an SSE stream this often keeps proxies from timing out a long call. */
#define HTTP_SSE_PING_MS 15000
/* A session nobody used for this long ends (its client went away without DELETE). */
#define HTTP_SESSION_IDLE_MS (30u * 60 * 1000)
/* A session child gets this long to exit after its socket closes, then SIGKILL. */
#define HTTP_SESSION_GRACE_MS 5000

typedef struct acs_http_session {
        struct acs_http_session *next;
        char id[33];
        pid_t pid;       /* 0 once reaped */
        int fd;          /* our end of the child's stdin/stdout; -1 once closed */
        acs_mcp_out out; /* lines for the child */
        char *in;        /* bytes from the child, up to a partial line */
        size_t in_len, in_cap;
        bool ended; /* DELETE, idle or shutdown: no longer found by id */
        uint64_t used_ms, kill_at_ms;
        int wstatus;
} acs_http_session;

/* CLOSING: the last response is being written; LINGER: written, reading what the client still sends. */
typedef enum { CONN_HEAD, CONN_BODY, CONN_WAIT, CONN_CLOSING, CONN_LINGER } acs_http_conn_state;

typedef struct acs_http_conn {
        struct acs_http_conn *next;
        int fd;
        acs_http_conn_state state;
        char *in;
        size_t in_len, in_cap, need; /* CONN_BODY: bytes of head and body */
        char *out;
        size_t out_off, out_len, out_cap;
        uint64_t deadline_ms, write_ms, event_ms;
        bool close_after;
        /* CONN_WAIT: the request the session's answer goes to */
        acs_http_session *session;
        char *wait_key, *wait_id_json, *progress_key;
        bool sse, initialize;
} acs_http_conn;

typedef struct acs_http_server {
        const acs_options *opts;
        int lfd, sfd;
        sigset_t oldmask;
        bool loopback, stop;
        char *token;
        size_t token_len;
        acs_http_conn *conns;
        unsigned n_conns;
        acs_http_session *sessions;
        unsigned n_sessions;
} acs_http_server;

uint64_t acs_http_now_ms(void);

/* mcp-http.c: responses on a connection */
void acs_http_conn_append(acs_http_conn *c, const char *p, size_t n);
void acs_http_respond(acs_http_server *srv, acs_http_conn *c, int status, const char *extra_headers,
                      const char *type, const char *body, size_t len);
/* The answer to the request c waits for arrived (one JSON-RPC line): send it and end the exchange. */
void acs_http_conn_answer(acs_http_server *srv, acs_http_conn *c, const char *line, size_t len);
/* A notification or server request for c's SSE stream. */
void acs_http_conn_event(acs_http_conn *c, const char *line, size_t len);

void acs_http_conn_ping(acs_http_conn *c);
/* The exchange on c is over: the next request may follow (or the connection closes). */
void acs_http_conn_exchange_done(acs_http_conn *c);

/* mcp-http-request.c: checks made on a complete head (0, or answered with an error), then the request. */
int acs_http_check_head(acs_http_server *srv, acs_http_conn *c, const acs_http_request *req);
void acs_http_handle_request(acs_http_server *srv, acs_http_conn *c, const acs_http_request *req, char *body,
                             size_t len);

/* mcp-http-session.c */
int acs_http_session_start(acs_http_server *srv, acs_http_session **ret);
acs_http_session *acs_http_session_find(acs_http_server *srv, acs_http_str id);
/* Queue one JSON-RPC message (no newline in it) for the child. -ENOMEM. */
int acs_http_session_send(acs_http_session *s, const char *line, size_t len);
/* Close the child's input: it stops its calls and exits; waiting requests fail. */
void acs_http_session_end(acs_http_server *srv, acs_http_session *s, const char *why);
void acs_http_session_read(acs_http_server *srv, acs_http_session *s);
void acs_http_session_flush(acs_http_session *s);
/* After SIGCHLD: reap children, fail what waited on a session that died, free ended ones. */
void acs_http_sessions_reap(acs_http_server *srv);
/* Idle sessions end; ended ones past their grace get SIGKILL. */
void acs_http_sessions_tick(acs_http_server *srv, uint64_t now);
/* SIGTERM: end every session and wait for every child (SIGKILL after the grace). */
void acs_http_sessions_shutdown(acs_http_server *srv);
