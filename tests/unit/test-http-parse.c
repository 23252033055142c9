/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Table-driven tests of the HTTP/1.1 request-head parser and the MCP front end's checks. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "http-parse.h"
#include "../tap.h"

#define H "Host: 127.0.0.1:8080\r\n"

static const struct {
        const char *head;
        int want; /* 1 complete, 0 need more, else the status of -EBADMSG */
        const char *method, *target;
        size_t n_headers;
} heads[] = {
        {"POST /mcp HTTP/1.1\r\n" H "Content-Length: 2\r\n\r\n{}", 1, "POST", "/mcp", 2},
        {"GET /mcp?x=1 HTTP/1.1\r\n" H "\r\n", 1, "GET", "/mcp?x=1", 1},
        {"DELETE /mcp HTTP/1.1\r\n" H "Mcp-Session-Id: abc\r\n\r\n", 1, "DELETE", "/mcp", 2},
        {"GET / HTTP/1.0\r\n\r\n", 1, "GET", "/", 0}, /* 1.0 needs no Host */
        {"GET / HTTP/1.1\r\nHost:x\r\nX-A:  spaced value \t\r\n\r\n", 1, "GET", "/", 2},
        {"GET / HTTP/1.1\r\nHost: x\r\nX: caf\xc3\xa9\r\n\r\n", 1, "GET", "/", 2}, /* obs-text */
        /* incomplete */
        {"", 0, NULL, NULL, 0},
        {"POST /mcp HTTP/1.1\r\n" H, 0, NULL, NULL, 0},
        {"POST /mcp HTTP/1.1\r\n" H "\r", 0, NULL, NULL, 0},
        /* malformed */
        {"\r\n\r\n", 400, NULL, NULL, 0},
        {"GET / HTTP/1.1\r\n\r\n", 400, NULL, NULL, 0},               /* no Host */
        {"GET / HTTP/1.1\n" H "\r\n\r\n", 400, NULL, NULL, 0},        /* bare LF */
        {"GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n", 400, NULL, NULL, 0}, /* bare CR */
        {"GET  / HTTP/1.1\r\n" H "\r\n", 400, NULL, NULL, 0},         /* two spaces */
        {"GET / HTTP/1.1 \r\n" H "\r\n", 400, NULL, NULL, 0},
        {"GET /\x01 HTTP/1.1\r\n" H "\r\n", 400, NULL, NULL, 0}, /* CTL in target */
        {"G(T / HTTP/1.1\r\n" H "\r\n", 400, NULL, NULL, 0},     /* not a token */
        {"GET / HTTX/1.1\r\n" H "\r\n", 400, NULL, NULL, 0},
        {"GET / HTTP/2.0\r\n" H "\r\n", 505, NULL, NULL, 0},
        {"GET / HTTP/1.1\r\n" H "Bad Name: x\r\n\r\n", 400, NULL, NULL, 0},
        {"GET / HTTP/1.1\r\n" H "Name : x\r\n\r\n", 400, NULL, NULL, 0},        /* space before colon */
        {"GET / HTTP/1.1\r\n" H "X: a\r\n folded\r\n\r\n", 400, NULL, NULL, 0}, /* obs-fold */
        {"GET / HTTP/1.1\r\n" H "X: a\x7f\r\n\r\n", 400, NULL, NULL, 0},
        {"GET / HTTP/1.1\r\n" H "NoColon\r\n\r\n", 400, NULL, NULL, 0},
        {"GET / HTTP/1.1\r\n" H H "\r\n", 400, NULL, NULL, 0}, /* two Hosts */
        {"POST / HTTP/1.1\r\n" H "Content-Length: 1\r\ncontent-length: 1\r\n\r\n", 400, NULL, NULL, 0},
        {"POST / HTTP/1.1\r\n" H "Mcp-Session-Id: a\r\nMcp-Session-Id: b\r\n\r\n", 400, NULL, NULL, 0},
        {"POST / HTTP/1.1\r\n" H "Authorization: a\r\nAuthorization: b\r\n\r\n", 400, NULL, NULL, 0},
};

static void test_heads(void)
{
        for (size_t i = 0; i < ELEMENTSOF(heads); i++) {
                acs_http_request req;
                int r = acs_http_parse_head(heads[i].head, strlen(heads[i].head), 4096, &req);
                int got = r == -EBADMSG ? req.status : r;
                char name[64];
                snprintf(name, sizeof name, "head case %zu: %s", i,
                         heads[i].want == 1 ? "complete" : heads[i].want ? "refused" : "needs more");
                is_int(got, heads[i].want, name);
                if (r == 1) {
                        ok(acs_http_str_eq(req.method, heads[i].method) &&
                                   acs_http_str_eq(req.target, heads[i].target),
                           "  method and target of case %zu", i);
                        is_int(req.n_headers, heads[i].n_headers, "  header count");
                        const char *body = strstr(heads[i].head, "\r\n\r\n") + 4;
                        is_int(req.head_len, (size_t)(body - heads[i].head),
                               "  head length stops at the blank line");
                }
        }
}

static void test_limits(void)
{
        char big[8192];
        acs_http_request req;
        size_t n = (size_t)snprintf(big, sizeof big, "GET / HTTP/1.1\r\n" H);

        /* a head that never ends within the limit is 431, not "need more" forever */
        memset(big + n, 'a', sizeof big - n);
        is_int(acs_http_parse_head(big, sizeof big, 1024, &req), -EBADMSG, "endless head refused");
        is_int(req.status, 431, "  with 431");
        is_int(acs_http_parse_head(big, 1000, 1024, &req), 0, "under the limit: need more");
        /* 65 headers */
        n = (size_t)snprintf(big, sizeof big, "GET / HTTP/1.1\r\n" H);
        for (int i = 0; i < ACS_HTTP_MAX_HEADERS; i++)
                n += (size_t)snprintf(big + n, sizeof big - n, "X-%d: v\r\n", i);
        n += (size_t)snprintf(big + n, sizeof big - n, "\r\n");
        is_int(acs_http_parse_head(big, n, sizeof big, &req), -EBADMSG, "too many headers refused");
        is_int(req.status, 431, "  with 431");
}

static const struct {
        const char *headers; /* extra header lines */
        int want;            /* 0 ok, else status */
        uint64_t len;
} lengths[] = {
        {"", 0, 0},
        {"Content-Length: 0\r\n", 0, 0},
        {"Content-Length: 1000\r\n", 0, 1000},
        {"Content-Length: 1001\r\n", 413, 0},
        {"Content-Length: 99999999999999999999999999\r\n", 413, 0},
        {"Content-Length: 1e3\r\n", 400, 0},
        {"Content-Length: -1\r\n", 400, 0},
        {"Content-Length: +5\r\n", 400, 0},
        {"Content-Length: 5, 5\r\n", 400, 0},
        {"Content-Length:\r\n", 400, 0},
        {"Transfer-Encoding: chunked\r\n", 501, 0},
        {"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", 400, 0},
};

static void test_lengths(void)
{
        for (size_t i = 0; i < ELEMENTSOF(lengths); i++) {
                char head[512];
                acs_http_request req;
                uint64_t len = 7;
                int status = 0;
                size_t n = (size_t)snprintf(head, sizeof head, "POST /mcp HTTP/1.1\r\n" H "%s\r\n",
                                            lengths[i].headers);
                if (acs_http_parse_head(head, n, sizeof head, &req) != 1) {
                        ok(0, "head of length case %zu parses", i);
                        continue;
                }
                int r = acs_http_body_length(&req, 1000, &len, &status);
                char name[64];
                snprintf(name, sizeof name, "length case %zu: %s", i, lengths[i].want ? "refused" : "taken");
                is_int(r < 0 ? status : 0, lengths[i].want, name);
                if (r == 0)
                        is_int(len, lengths[i].len, "  length");
        }
}

static acs_http_str S(const char *s)
{
        return (acs_http_str){s, strlen(s)};
}

static void test_accept_and_close(void)
{
        static const struct {
                const char *accept, *type;
                bool want;
        } acc[] = {
                {"application/json, text/event-stream", "text/event-stream", true},
                {"application/json, text/event-stream", "application/json", true},
                {"application/json", "text/event-stream", false},
                {"*/*", "text/event-stream", true},
                {"text/*", "text/event-stream", true},
                {"text/*", "application/json", false},
                {"Text/Event-Stream;q=0.5", "text/event-stream", true},
                {"text/event-stream;q=0", "text/event-stream", false},
                {"text/event-stream; q=0.000", "text/event-stream", false},
                {"text/event-streamx", "text/event-stream", false},
                {"", "application/json", false},
        };
        for (size_t i = 0; i < ELEMENTSOF(acc); i++) {
                acs_http_str a = S(acc[i].accept);
                ok(acs_http_accepts(&a, acc[i].type) == acc[i].want, "Accept '%s' %s %s", acc[i].accept,
                   acc[i].want ? "takes" : "refuses", acc[i].type);
        }
        ok(!acs_http_accepts(NULL, "application/json"), "no Accept header accepts nothing");

        static const struct {
                const char *head;
                bool close;
        } conn[] = {
                {"GET / HTTP/1.1\r\n" H "\r\n", false},
                {"GET / HTTP/1.1\r\n" H "Connection: close\r\n\r\n", true},
                {"GET / HTTP/1.1\r\n" H "Connection: TE, Close\r\n\r\n", true},
                {"GET / HTTP/1.0\r\n\r\n", true},
                {"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", false},
        };
        for (size_t i = 0; i < ELEMENTSOF(conn); i++) {
                acs_http_request req;
                acs_http_parse_head(conn[i].head, strlen(conn[i].head), 4096, &req);
                ok(acs_http_wants_close(&req) == conn[i].close, "connection case %zu closes: %d", i,
                   conn[i].close);
        }

        acs_http_str path;
        ok(acs_http_target_path(S("/mcp?a=b"), &path) == 0 && acs_http_str_eq(path, "/mcp"),
           "query stripped from path");
        ok(acs_http_target_path(S("http://evil/mcp"), &path) < 0, "absolute-form refused");
        ok(acs_http_target_path(S("*"), &path) < 0, "asterisk-form refused");
}

static void test_origin_host(void)
{
        static const struct {
                const char *origin;
                bool want;
        } origins[] = {
                {"http://localhost", true},
                {"http://localhost:8080", true},
                {"http://127.0.0.1:3000", true},
                {"https://127.9.9.9", true},
                {"http://[::1]:80", true},
                {"http://LOCALHOST:1", true},
                {"http://evil.example", false},
                {"http://localhost.evil.example", false},
                {"http://127.0.0.1.nip.io", false},
                {"http://localhost@evil.example", false},
                {"http://evil.example#localhost", false},
                {"http://127.1", false},
                {"http://0x7f000001", false},
                {"http://[::ffff:127.0.0.1]", false},
                {"null", false},
                {"", false},
                {"localhost", false},
                {"http://", false},
                {"http://localhost:", false},
                {"http://localhost:80x", false},
                {"http://localhost/", false},
                {"https://agent.example.com", true}, /* only with the allow list below */
        };
        char *allow[] = {(char *)"https://agent.example.com", NULL};
        for (size_t i = 0; i < ELEMENTSOF(origins); i++) {
                acs_http_str o = S(origins[i].origin);
                ok(acs_http_origin_ok(&o, allow) == origins[i].want, "Origin '%s' %s", origins[i].origin,
                   origins[i].want ? "allowed" : "refused");
        }
        acs_http_str o = S("https://agent.example.com");
        ok(!acs_http_origin_ok(&o, NULL), "an allowed origin is allowed only when listed");
        ok(acs_http_origin_ok(NULL, NULL), "no Origin (not a browser) passes");

        acs_http_str host;
        ok(acs_http_host_part(S("127.0.0.1:8080"), false, &host) == 0 && acs_http_host_is_loopback(host),
           "Host 127.0.0.1:8080");
        ok(acs_http_host_part(S("[::1]:8080"), false, &host) == 0 && acs_http_host_is_loopback(host),
           "Host [::1]:8080");
        ok(acs_http_host_part(S("evil.example:8080"), false, &host) == 0 && !acs_http_host_is_loopback(host),
           "Host evil.example is not loopback");
        ok(acs_http_host_part(S("[::1"), false, &host) < 0, "Host [::1 malformed");
}

static void test_bearer(void)
{
        static const char token[] = "s3cret-token";
        static const struct {
                const char *authz;
                bool want;
        } cases[] = {
                {"Bearer s3cret-token", true},
                {"bearer s3cret-token", true},
                {"Bearer  s3cret-token", true},
                {"Bearer s3cret-toke", false},
                {"Bearer s3cret-token2", false},
                {"Bearer S3cret-token", false},
                {"Basic s3cret-token", false},
                {"Bearer", false},
                {"Bearer ", false},
                {"s3cret-token", false},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                acs_http_str a = S(cases[i].authz);
                ok(acs_http_bearer_ok(&a, token, strlen(token)) == cases[i].want, "Authorization '%s'",
                   cases[i].authz);
        }
        ok(!acs_http_bearer_ok(NULL, token, strlen(token)), "no Authorization refused");
        acs_http_str empty = S("Bearer ");
        ok(!acs_http_bearer_ok(&empty, "", 0), "an empty token never matches");
        ok(acs_http_secret_eq("abc", 3, "abc", 3) && !acs_http_secret_eq("abc", 3, "abd", 3) &&
                   !acs_http_secret_eq("ab", 2, "abc", 3) && !acs_http_secret_eq("abcd", 4, "abc", 3),
           "secret_eq compares length and bytes");
}

static void test_listen(void)
{
        static const struct {
                const char *spec;
                int family; /* 0: refused */
                const char *addr;
                unsigned port;
                bool loopback;
        } cases[] = {
                {"8080", AF_INET, "127.0.0.1", 8080, true},
                {":8080", AF_INET, "127.0.0.1", 8080, true},
                {"0", AF_INET, "127.0.0.1", 0, true},
                {"127.0.0.1:9", AF_INET, "127.0.0.1", 9, true},
                {"0.0.0.0:443", AF_INET, "0.0.0.0", 443, false},
                {"192.0.2.1:1", AF_INET, "192.0.2.1", 1, false},
                {"[::1]:8080", AF_INET6, "::1", 8080, true},
                {"[::]:8080", AF_INET6, "::", 8080, false},
                {"", 0, NULL, 0, false},
                {":", 0, NULL, 0, false},
                {"65536", 0, NULL, 0, false},
                {"123456", 0, NULL, 0, false},
                {"-1", 0, NULL, 0, false},
                {"localhost:80", 0, NULL, 0, false},
                {"::1:80", 0, NULL, 0, false},
                {"[::1]", 0, NULL, 0, false},
                {"[::1]80", 0, NULL, 0, false},
                {"1.2.3:80", 0, NULL, 0, false},
                {"1.2.3.4:", 0, NULL, 0, false},
                {"1.2.3.4:8x", 0, NULL, 0, false},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct sockaddr_storage ss;
                socklen_t len = 0;
                int r = acs_http_parse_listen(cases[i].spec, &ss, &len);
                if (!cases[i].family) {
                        ok(r == -EINVAL, "--http '%s' refused", cases[i].spec);
                        continue;
                }
                char buf[INET6_ADDRSTRLEN] = "";
                unsigned port = 0;
                if (r == 0 && ss.ss_family == AF_INET) {
                        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, buf, sizeof buf);
                        port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
                } else if (r == 0 && ss.ss_family == AF_INET6) {
                        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, buf, sizeof buf);
                        port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
                }
                ok(r == 0 && ss.ss_family == cases[i].family && strcmp(buf, cases[i].addr) == 0 &&
                           port == cases[i].port && acs_http_addr_is_loopback(&ss) == cases[i].loopback,
                   "--http '%s' -> %s port %u%s", cases[i].spec, cases[i].addr, cases[i].port,
                   cases[i].loopback ? " (loopback)" : "");
        }
}

int main(void)
{
        test_heads();
        test_limits();
        test_lengths();
        test_accept_and_close();
        test_origin_host();
        test_bearer();
        test_listen();
        ok(acs_http_session_id_valid(S("0123abcdef")) && !acs_http_session_id_valid(S("")) &&
                   !acs_http_session_id_valid(S("a b")) && !acs_http_session_id_valid(S("a\x7f")),
           "session ids are visible ASCII");
        return tap_done();
}
