/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: the request heads `acs-launch mcp --http` reads from
 * the network (acs_http_parse_head) and the checks made on them. Checked
 * besides memory safety: a complete head ends within the input and the
 * limit, every header lies inside it and holds no CR, LF or NUL; a refusal
 * names a status; a body length is within the maximum.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http-parse.h"

#define MAX_HEAD 4096
#define MAX_BODY 1000

static void inside(const uint8_t *data, size_t size, acs_http_str s, bool value)
{
        if (s.n && ((const uint8_t *)s.p < data || (const uint8_t *)s.p + s.n > data + size))
                abort();
        if (value && (memchr(s.p, '\r', s.n) || memchr(s.p, '\n', s.n) || memchr(s.p, '\0', s.n)))
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        acs_http_request req;
        int r = acs_http_parse_head((const char *)data, size, MAX_HEAD, &req);

        if (r == -EBADMSG) {
                if (req.status < 400 || req.status > 505)
                        abort();
                return 0;
        }
        if (r == 0) {
                if (size >= MAX_HEAD)
                        abort();
                return 0;
        }
        if (r != 1 || req.head_len > size || req.head_len > MAX_HEAD ||
            req.n_headers > ACS_HTTP_MAX_HEADERS || !req.method.n || !req.target.n)
                abort();
        inside(data, req.head_len, req.method, true);
        inside(data, req.head_len, req.target, true);
        for (size_t i = 0; i < req.n_headers; i++) {
                inside(data, req.head_len, req.headers[i].name, true);
                inside(data, req.head_len, req.headers[i].value, true);
        }

        uint64_t len;
        int status = 0;
        if (acs_http_body_length(&req, MAX_BODY, &len, &status) < 0) {
                if (status != 400 && status != 413 && status != 501)
                        abort();
        } else if (len > MAX_BODY)
                abort();
        (void)acs_http_wants_close(&req);
        (void)acs_http_accepts(acs_http_header(&req, "accept"), "text/event-stream");
        acs_http_str path, host;
        if (acs_http_target_path(req.target, &path) == 0)
                inside(data, req.head_len, path, true);
        const acs_http_str *h = acs_http_header(&req, "host");
        if (h && acs_http_host_part(*h, false, &host) == 0) {
                inside(data, req.head_len, host, true);
                (void)acs_http_host_is_loopback(host);
        }
        const acs_http_str *origin = acs_http_header(&req, "origin");
        bool allowed = acs_http_origin_ok(origin, NULL);
        /* an allowed Origin names a loopback host */
        if (origin && allowed &&
            (acs_http_host_part(*origin, true, &host) < 0 || !acs_http_host_is_loopback(host)))
                abort();
        (void)acs_http_bearer_ok(acs_http_header(&req, "authorization"), "token", 5);
        const acs_http_str *sid = acs_http_header(&req, "mcp-session-id");
        if (sid)
                (void)acs_http_session_id_valid(*sid);
        return 0;
}
