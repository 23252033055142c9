/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * HTTP/1.1 request heads for `acs-launch mcp --http` (RFC 9112), and the
 * checks the MCP front end makes on them: body length, Accept, Origin,
 * Host, bearer token, the listen address. Pure: no I/O, no clock, no
 * environment. Strict on purpose: a server that is the only thing between
 * a browser tab and a sandbox launcher rejects what a lenient parser would
 * guess at (bare LF, folded lines, spaces before the colon, two lengths).
 */
#pragma once

#include <netinet/in.h>

#include "common.h"

#define ACS_HTTP_MAX_HEADERS 64

typedef struct acs_http_str {
        const char *p; /* not NUL-terminated; points into the parsed buffer */
        size_t n;
} acs_http_str;

typedef struct acs_http_field {
        acs_http_str name, value; /* value without surrounding whitespace */
} acs_http_field;

typedef struct acs_http_request {
        acs_http_str method, target;
        unsigned minor; /* HTTP/1.minor */
        size_t n_headers;
        acs_http_field headers[ACS_HTTP_MAX_HEADERS];
        size_t head_len; /* bytes up to and including the blank line */
        int status;      /* on -EBADMSG: the status to answer (400, 431, 501, 505) */
} acs_http_request;

/*
 * Parse the head at buf[0..len). Returns 1 with *req filled when the head
 * is complete, 0 when more bytes are needed (and fewer than max_head are
 * there), or -EBADMSG with req->status set. A header that must appear at
 * most once (Host, Content-Length, Transfer-Encoding, Authorization,
 * Origin, Mcp-Session-Id, MCP-Protocol-Version) appearing twice is 400.
 */
int acs_http_parse_head(const char *buf, size_t len, size_t max_head, acs_http_request *req);

/* The value of header name (case-insensitive), or NULL. */
const acs_http_str *acs_http_header(const acs_http_request *req, const char *name);
/* Case-insensitive comparison of s with a NUL-terminated string. */
bool acs_http_str_eq(acs_http_str s, const char *lit);

/*
 * The body's length: Content-Length (digits only, at most max), 0 without
 * one. -EBADMSG with *ret_status: 400 for a malformed length, 413 above
 * max, 501 for Transfer-Encoding (the front end takes no chunked bodies).
 */
int acs_http_body_length(const acs_http_request *req, uint64_t max, uint64_t *ret, int *ret_status);
/* Should the connection close after the response (Connection: close; HTTP/1.0 without keep-alive)? */
bool acs_http_wants_close(const acs_http_request *req);
/* Does the Accept value list media type (exact, type slash-star, or star-slash-star; q=0 excluded)? */
bool acs_http_accepts(const acs_http_str *accept, const char *type);
/* The path of an origin-form target, without query; -EINVAL for any other form. */
int acs_http_target_path(acs_http_str target, acs_http_str *ret);

/* "localhost", "127.0.0.1" (any 127/8), "::1", "[::1]": names that cannot point elsewhere. */
bool acs_http_host_is_loopback(acs_http_str host);
/* The host part of a Host value or an origin (scheme://host[:port]); -EINVAL if malformed. */
int acs_http_host_part(acs_http_str value, bool origin, acs_http_str *ret);
/*
 * Origin check against DNS rebinding: a request without Origin (not from
 * a browser) passes; an Origin passes if its host is a loopback name or
 * equals one of the extra allowed origins exactly (NULL-terminated list).
 */
bool acs_http_origin_ok(const acs_http_str *origin, char *const *allowed);
/* Authorization: "Bearer TOKEN" equal to token, compared in constant time. */
bool acs_http_bearer_ok(const acs_http_str *authz, const char *token, size_t token_len);
/* Constant-time equality of a[0..an) and b[0..bn) (time depends on bn only). */
bool acs_http_secret_eq(const char *a, size_t an, const char *b, size_t bn);

/*
 * --http ADDR:PORT, [V6]:PORT, :PORT or PORT (the last two: 127.0.0.1).
 * Fills a sockaddr_in or sockaddr_in6 in *ret, *ret_len. Port 0 is allowed
 * (the kernel picks one; the server logs it). -EINVAL if malformed.
 */
int acs_http_parse_listen(const char *spec, struct sockaddr_storage *ret, socklen_t *ret_len);
bool acs_http_addr_is_loopback(const struct sockaddr_storage *sa);

/* A session id as the front end makes them and as the spec allows (visible ASCII). */
bool acs_http_session_id_valid(acs_http_str id);
/* The reason phrase for the statuses the front end sends. */
const char *acs_http_reason(int status);
