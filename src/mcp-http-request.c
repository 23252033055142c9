/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The HTTP front end's requests: the Streamable HTTP transport of the MCP
 * specification (2025-06-18) at /mcp. POST carries one JSON-RPC message:
 * a request is answered with application/json, or with an SSE stream when
 * the client takes one and the call can report progress (tools/call); a
 * notification or response gets 202. GET (a server-initiated stream) is
 * 405, as the specification allows: every message the server sends
 * belongs to a request. DELETE ends the session.
 *
 * Every request first passes the checks that keep a browser tab and a
 * stranger out: Host and Origin name this machine when it listens on
 * loopback (DNS rebinding), the bearer token when one is set.
 */
#include <string.h>

#include <json-c/json.h>

#include "jsonrpc.h"
#include "mcp-http-int.h"
#include "mcp-tools.h"

static void respond_text(acs_http_server *srv, acs_http_conn *c, int status, const char *extra,
                         const char *msg)
{
        char body[512];
        int n = snprintf(body, sizeof body, "%s\n", msg);

        acs_http_respond(srv, c, status, extra, "text/plain; charset=utf-8", body,
                         n < 0                      ? 0
                         : (size_t)n >= sizeof body ? sizeof body - 1
                                                    : (size_t)n);
}

/* A JSON-RPC error as the HTTP answer (the SDK shows its text). */
static void respond_jrpc_error(acs_http_server *srv, acs_http_conn *c, int status, const char *id_json,
                               int code, const char *msg)
{
        char *line = NULL;

        if (acs_jrpc_error(id_json, code, msg, NULL, &line) < 0)
                respond_text(srv, c, 500, NULL, "out of memory");
        else
                acs_http_respond(srv, c, status, NULL, "application/json", line, strlen(line));
        free(line);
}

static bool media_type_is(const acs_http_str *v, const char *type)
{
        if (!v)
                return false;
        acs_http_str t = *v;
        const char *semi = memchr(t.p, ';', t.n);
        if (semi)
                t.n = (size_t)(semi - t.p);
        while (t.n && (t.p[t.n - 1] == ' ' || t.p[t.n - 1] == '\t'))
                t.n--;
        return acs_http_str_eq(t, type);
}

int acs_http_check_head(acs_http_server *srv, acs_http_conn *c, const acs_http_request *req)
{
        acs_http_str path, host;
        const acs_http_str *h = acs_http_header(req, "host");

        if (acs_http_target_path(req->target, &path) < 0 || !acs_http_str_eq(path, "/mcp")) {
                respond_text(srv, c, 404, NULL, "not found: the MCP endpoint is /mcp");
                return -ENOENT;
        }
        /* A page whose name was rebound to 127.0.0.1 still sends its own Host and Origin. */
        if (srv->loopback && h &&
            (acs_http_host_part(*h, false, &host) < 0 || !acs_http_host_is_loopback(host))) {
                respond_text(srv, c, 403, NULL,
                             "forbidden: Host must name this machine (localhost, 127.0.0.1, [::1])");
                return -EPERM;
        }
        if (!acs_http_origin_ok(acs_http_header(req, "origin"), NULL)) {
                respond_text(srv, c, 403, NULL, "forbidden: requests from a foreign Origin are refused");
                return -EPERM;
        }
        if (srv->token &&
            !acs_http_bearer_ok(acs_http_header(req, "authorization"), srv->token, srv->token_len)) {
                respond_text(srv, c, 401, "WWW-Authenticate: Bearer realm=\"acs-launch\"\r\n",
                             "unauthorized: this server needs Authorization: Bearer TOKEN");
                return -EACCES;
        }
        if (!acs_http_str_eq(req->method, "POST") && !acs_http_str_eq(req->method, "DELETE")) {
                respond_text(srv, c, 405, "Allow: POST, DELETE\r\n",
                             "method not allowed: POST messages, DELETE the session; there is no GET stream");
                return -EOPNOTSUPP;
        }
        uint64_t len;
        int status;
        if (acs_http_body_length(req, HTTP_MAX_BODY, &len, &status) < 0) {
                respond_text(srv, c, status, NULL,
                             status == 413   ? "content too large: a message is at most 4 MiB"
                             : status == 501 ? "chunked request bodies are not supported: send Content-Length"
                                             : "bad Content-Length");
                return -EBADMSG;
        }
        c->need = req->head_len + len;
        return 0;
}

/* The session a request after initialize names, or an answer (400/404) and NULL. */
static acs_http_session *named_session(acs_http_server *srv, acs_http_conn *c, const acs_http_request *req)
{
        const acs_http_str *sid = acs_http_header(req, "mcp-session-id");
        acs_http_session *s;

        if (!sid) {
                respond_text(srv, c, 400, NULL, "bad request: Mcp-Session-Id is missing (initialize first)");
                return NULL;
        }
        if (!acs_http_session_id_valid(*sid) || !(s = acs_http_session_find(srv, *sid))) {
                respond_text(srv, c, 404, NULL, "session not found: initialize a new one");
                return NULL;
        }
        return s;
}

static void handle_delete(acs_http_server *srv, acs_http_conn *c, const acs_http_request *req)
{
        acs_http_session *s = named_session(srv, c, req);

        if (!s)
                return;
        acs_http_session_end(srv, s, "deleted by the client");
        acs_http_respond(srv, c, 204, NULL, NULL, NULL, 0);
}

static bool version_ok(const acs_http_request *req)
{
        const acs_http_str *v = acs_http_header(req, "mcp-protocol-version");
        char buf[32];

        /* absent: the client speaks 2025-03-26, which we serve */
        if (!v)
                return true;
        if (v->n >= sizeof buf)
                return false;
        memcpy(buf, v->p, v->n);
        buf[v->n] = '\0';
        return strcmp(acs_mcp_negotiate_version(buf), buf) == 0;
}

/* Send the request on and wait for its answer, on an SSE stream or as one JSON body. */
static void forward_request(acs_http_server *srv, acs_http_conn *c, acs_http_session *s,
                            const acs_jrpc_msg *m, char *line, size_t len, bool sse)
{
        json_object *meta, *tok;

        for (acs_http_conn *o = srv->conns; o; o = o->next)
                if (o->session == s && o->state == CONN_WAIT && strcmp(o->wait_key, m->id_key) == 0) {
                        respond_jrpc_error(srv, c, 409, m->id_json, ACS_JRPC_INVALID_REQUEST,
                                           "a request with this id is already running in this session");
                        return;
                }
        c->wait_key = strdup(m->id_key);
        c->wait_id_json = strdup(m->id_json);
        if (m->params && json_object_object_get_ex(m->params, "_meta", &meta) &&
            json_object_object_get_ex(meta, "progressToken", &tok))
                c->progress_key = strdup(json_object_to_json_string_ext(tok, JSON_C_TO_STRING_PLAIN));
        if (!c->wait_key || !c->wait_id_json || acs_http_session_send(s, line, len) < 0) {
                respond_text(srv, c, 500, NULL, "out of memory");
                return;
        }
        c->session = s;
        c->state = CONN_WAIT;
        c->sse = sse;
        c->event_ms = acs_http_now_ms();
        if (sse) {
                static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                                           "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n";
                acs_http_conn_append(c, head, sizeof head - 1);
                if (c->initialize) {
                        char hdr[64];
                        int k = snprintf(hdr, sizeof hdr, "Mcp-Session-Id: %s\r\n", s->id);
                        acs_http_conn_append(c, hdr, (size_t)k);
                }
                if (c->close_after)
                        acs_http_conn_append(c, "Connection: close\r\n", 19);
                acs_http_conn_append(c, "\r\n", 2);
        }
}

/* POST of a message that parsed: start or find the session, and send it on. */
static void handle_message(acs_http_server *srv, acs_http_conn *c, const acs_http_request *req,
                           const acs_jrpc_msg *m, char *line, size_t len)
{
        const acs_http_str *accept = acs_http_header(req, "accept");
        bool init = m->kind == ACS_JRPC_REQUEST && strcmp(m->method, "initialize") == 0;
        acs_http_session *s;

        if (init) {
                if (acs_http_header(req, "mcp-session-id")) {
                        respond_text(
                                srv, c, 400, NULL,
                                "bad request: initialize starts a session; send it without Mcp-Session-Id");
                        return;
                }
                if (srv->n_sessions >= HTTP_MAX_SESSIONS) {
                        respond_text(srv, c, 503, "Retry-After: 60\r\n",
                                     "too many sessions: end one with DELETE or retry later");
                        return;
                }
                int r = acs_http_session_start(srv, &s);
                if (r < 0) {
                        respond_text(srv, c, 503, NULL, "cannot start a session");
                        return;
                }
        } else if (!(s = named_session(srv, c, req)))
                return;
        if (m->kind != ACS_JRPC_REQUEST) {
                if (acs_http_session_send(s, line, len) < 0) {
                        respond_text(srv, c, 500, NULL, "out of memory");
                        return;
                }
                {
                        acs_http_respond(srv, c, 202, NULL, NULL, NULL, 0);
                        return;
                }
        }
        bool json = acs_http_accepts(accept, "application/json"),
             sse = acs_http_accepts(accept, "text/event-stream");
        c->initialize = init;
        /* SSE is chunked: never for an HTTP/1.0 client */
        sse = sse && req->minor >= 1 && (!json || strcmp(m->method, "tools/call") == 0);
        forward_request(srv, c, s, m, line, len, sse);
        if (init && c->state != CONN_WAIT)
                acs_http_session_end(srv, s, "initialize not forwarded");
}

static void handle_post(acs_http_server *srv, acs_http_conn *c, const acs_http_request *req, char *body,
                        size_t len)
{
        const acs_http_str *accept = acs_http_header(req, "accept");
        acs_jrpc_msg m = {0};

        if (!media_type_is(acs_http_header(req, "content-type"), "application/json")) {
                respond_text(srv, c, 415, NULL, "unsupported media type: POST application/json");
                return;
        }
        if (!acs_http_accepts(accept, "application/json") && !acs_http_accepts(accept, "text/event-stream")) {
                respond_text(srv, c, 406, NULL, "not acceptable: Accept application/json, text/event-stream");
                return;
        }
        if (!version_ok(req)) {
                respond_text(srv, c, 400, NULL, "bad request: unsupported MCP-Protocol-Version");
                return;
        }
        /* One message per line for the session's server: a raw CR or LF can only be
         * whitespace between JSON tokens (strings cannot hold them), so a space is the same text. */
        for (size_t i = 0; i < len; i++)
                if (body[i] == '\n' || body[i] == '\r')
                        body[i] = ' ';
        if (acs_jrpc_blank(body, len)) {
                respond_jrpc_error(srv, c, 400, NULL, ACS_JRPC_PARSE_ERROR,
                                   "empty body: POST one JSON-RPC message");
                return;
        }
        if (acs_jrpc_parse(body, len, &m) < 0) {
                respond_text(srv, c, 500, NULL, "out of memory");
                return;
        }
        if (m.kind == ACS_JRPC_INVALID)
                respond_jrpc_error(srv, c, 400, m.id_json, m.err_code, m.err_msg);
        else
                handle_message(srv, c, req, &m, body, len);
        acs_jrpc_msg_done(&m);
}

void acs_http_handle_request(acs_http_server *srv, acs_http_conn *c, const acs_http_request *req, char *body,
                             size_t len)
{
        if (acs_http_str_eq(req->method, "DELETE"))
                handle_delete(srv, c, req);
        else
                handle_post(srv, c, req, body, len);
}

static void chunk(acs_http_conn *c, const char *pre, const char *p, size_t n, const char *post)
{
        char size[32];
        size_t total = strlen(pre) + n + strlen(post);
        int k = snprintf(size, sizeof size, "%zx\r\n", total);

        acs_http_conn_append(c, size, (size_t)k);
        acs_http_conn_append(c, pre, strlen(pre));
        acs_http_conn_append(c, p, n);
        acs_http_conn_append(c, post, strlen(post));
        acs_http_conn_append(c, "\r\n", 2);
}

void acs_http_conn_event(acs_http_conn *c, const char *line, size_t len)
{
        chunk(c, "event: message\ndata: ", line, len, "\n\n");
        c->event_ms = acs_http_now_ms();
}

void acs_http_conn_ping(acs_http_conn *c)
{
        chunk(c, ": ", "keep-alive", 10, "\n\n");
        c->event_ms = acs_http_now_ms();
}

void acs_http_conn_answer(acs_http_server *srv, acs_http_conn *c, const char *line, size_t len)
{
        if (c->sse) {
                acs_http_conn_event(c, line, len);
                acs_http_conn_append(c, "0\r\n\r\n", 5);
        } else {
                char hdr[64] = "";
                if (c->initialize && c->session)
                        snprintf(hdr, sizeof hdr, "Mcp-Session-Id: %s\r\n", c->session->id);
                acs_http_respond(srv, c, 200, hdr, "application/json", line, len);
        }
        acs_http_conn_exchange_done(c);
}
