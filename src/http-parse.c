/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* HTTP/1.1 request heads and the front end's checks on them. Pure; see http-parse.h. */
#include <arpa/inet.h>
#include <string.h>

#include "http-parse.h"

static bool is_tchar(unsigned char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* field-vchar, SP, HTAB and obs-text; never CTLs (NUL, CR, LF, DEL). */
static bool is_value_char(unsigned char c)
{
        return c == '\t' || (c >= 0x20 && c != 0x7f);
}

static unsigned char lower(unsigned char c)
{
        return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

bool acs_http_str_eq(acs_http_str s, const char *lit)
{
        size_t n = strlen(lit);

        if (s.n != n)
                return false;
        for (size_t i = 0; i < n; i++)
                if (lower((unsigned char)s.p[i]) != lower((unsigned char)lit[i]))
                        return false;
        return true;
}

static int bad(acs_http_request *req, int status)
{
        req->status = status;
        return -EBADMSG;
}

/* Offset of the first "\r\n\r\n" in buf[0..len) plus 4, or 0. */
static size_t head_end(const char *buf, size_t len)
{
        for (size_t i = 0; i + 3 < len; i++)
                if (buf[i] == '\r' && buf[i + 1] == '\n' && buf[i + 2] == '\r' && buf[i + 3] == '\n')
                        return i + 4;
        return 0;
}

/* request-line = method SP request-target SP HTTP-version CRLF */
static int parse_request_line(const char *p, size_t n, acs_http_request *req)
{
        size_t i = 0;

        while (i < n && is_tchar((unsigned char)p[i]))
                i++;
        if (i == 0 || i >= n || p[i] != ' ')
                return bad(req, 400);
        req->method = (acs_http_str){p, i};
        size_t t = ++i;
        while (i < n && (unsigned char)p[i] > 0x20 && (unsigned char)p[i] != 0x7f)
                i++;
        if (i == t || i >= n || p[i] != ' ')
                return bad(req, 400);
        req->target = (acs_http_str){p + t, i - t};
        i++;
        if (n - i != 8 || memcmp(p + i, "HTTP/", 5) != 0 || p[i + 6] != '.' || p[i + 5] < '0' ||
            p[i + 5] > '9' || p[i + 7] < '0' || p[i + 7] > '9')
                return bad(req, 400);
        if (p[i + 5] != '1')
                return bad(req, 505);
        req->minor = (unsigned)(p[i + 7] - '0');
        return 0;
}

static const char *const singletons[] = {
        "host",   "content-length", "transfer-encoding",    "authorization",
        "origin", "mcp-session-id", "mcp-protocol-version",
};

static int parse_header_line(const char *p, size_t n, acs_http_request *req)
{
        size_t i = 0;

        while (i < n && is_tchar((unsigned char)p[i]))
                i++;
        /* no name, obs-fold (a line starting with whitespace), whitespace before the colon */
        if (i == 0 || i >= n || p[i] != ':')
                return bad(req, 400);
        acs_http_str name = {p, i};
        size_t v = i + 1, e = n;
        while (v < e && (p[v] == ' ' || p[v] == '\t'))
                v++;
        while (e > v && (p[e - 1] == ' ' || p[e - 1] == '\t'))
                e--;
        for (size_t k = v; k < e; k++)
                if (!is_value_char((unsigned char)p[k]))
                        return bad(req, 400);
        if (req->n_headers == ACS_HTTP_MAX_HEADERS)
                return bad(req, 431);
        for (size_t s = 0; s < ELEMENTSOF(singletons); s++)
                if (acs_http_str_eq(name, singletons[s]) && acs_http_header(req, singletons[s]))
                        return bad(req, 400);
        req->headers[req->n_headers++] = (acs_http_field){name, {p + v, e - v}};
        return 0;
}

int acs_http_parse_head(const char *buf, size_t len, size_t max_head, acs_http_request *req)
{
        *req = (acs_http_request){0};
        size_t end = head_end(buf, len < max_head ? len : max_head);

        if (end == 0)
                return len >= max_head ? bad(req, 431) : 0;
        const char *p = buf, *stop = buf + end - 2; /* the final CRLF ends the head */
        bool first = true;
        while (p < stop) {
                const char *eol = memchr(p, '\n', (size_t)(stop - p));
                /* every line ends in CRLF; a bare LF or CR is an error, not a line break */
                if (!eol || eol == p || eol[-1] != '\r')
                        return bad(req, 400);
                size_t n = (size_t)(eol - 1 - p);
                if (memchr(p, '\r', n) || memchr(p, '\0', n))
                        return bad(req, 400);
                int r = first ? parse_request_line(p, n, req) : parse_header_line(p, n, req);
                if (r < 0)
                        return r;
                first = false;
                p = eol + 1;
        }
        if (first)
                return bad(req, 400);
        /* HTTP/1.1 requires Host (RFC 9112 3.2) */
        if (req->minor >= 1 && !acs_http_header(req, "host"))
                return bad(req, 400);
        req->head_len = end;
        return 1;
}

const acs_http_str *acs_http_header(const acs_http_request *req, const char *name)
{
        for (size_t i = 0; i < req->n_headers; i++)
                if (acs_http_str_eq(req->headers[i].name, name))
                        return &req->headers[i].value;
        return NULL;
}

int acs_http_body_length(const acs_http_request *req, uint64_t max, uint64_t *ret, int *ret_status)
{
        const acs_http_str *te = acs_http_header(req, "transfer-encoding");
        const acs_http_str *cl = acs_http_header(req, "content-length");

        *ret = 0;
        if (te) {
                /* both: a smuggling attempt (RFC 9112 6.1); TE alone: not supported here */
                *ret_status = cl ? 400 : 501;
                return -EBADMSG;
        }
        if (!cl)
                return 0;
        uint64_t v = 0;
        bool big = false;
        if (cl->n == 0) {
                *ret_status = 400;
                return -EBADMSG;
        }
        for (size_t i = 0; i < cl->n; i++) {
                if (cl->p[i] < '0' || cl->p[i] > '9') {
                        *ret_status = 400;
                        return -EBADMSG;
                }
                /* saturate instead of wrapping: a huge length is too large, not small */
                if (v > (UINT64_MAX - 9) / 10)
                        big = true;
                else
                        v = v * 10 + (uint64_t)(cl->p[i] - '0');
        }
        if (big || v > max) {
                *ret_status = 413;
                return -EBADMSG;
        }
        *ret = v;
        return 0;
}

/* Walk a comma-separated list: the next element, trimmed, into *ret. */
static bool list_next(acs_http_str *rest, acs_http_str *ret)
{
        while (rest->n && (rest->p[0] == ',' || rest->p[0] == ' ' || rest->p[0] == '\t')) {
                rest->p++;
                rest->n--;
        }
        if (!rest->n)
                return false;
        const char *comma = memchr(rest->p, ',', rest->n);
        size_t n = comma ? (size_t)(comma - rest->p) : rest->n;
        *ret = (acs_http_str){rest->p, n};
        while (ret->n && (ret->p[ret->n - 1] == ' ' || ret->p[ret->n - 1] == '\t'))
                ret->n--;
        rest->p += n;
        rest->n -= n;
        return true;
}

bool acs_http_wants_close(const acs_http_request *req)
{
        const acs_http_str *c = acs_http_header(req, "connection");
        bool close = false, keep = false;

        if (c) {
                acs_http_str rest = *c, tok;
                while (list_next(&rest, &tok)) {
                        close |= acs_http_str_eq(tok, "close");
                        keep |= acs_http_str_eq(tok, "keep-alive");
                }
        }
        return close || (req->minor == 0 && !keep);
}

/* A media range's q parameter is exactly 0 ("q=0", "q=0.0", ...). */
static bool q_zero(acs_http_str params)
{
        acs_http_str rest = params;

        while (rest.n) {
                const char *semi = memchr(rest.p, ';', rest.n);
                size_t n = semi ? (size_t)(semi - rest.p) : rest.n;
                acs_http_str prm = {rest.p, n};
                while (prm.n && (prm.p[0] == ' ' || prm.p[0] == '\t')) {
                        prm.p++;
                        prm.n--;
                }
                if (prm.n >= 2 && lower((unsigned char)prm.p[0]) == 'q' && prm.p[1] == '=') {
                        bool zero = prm.n > 2 && prm.p[2] == '0';
                        for (size_t i = 3; zero && i < prm.n; i++)
                                zero = prm.p[i] == '0' || (i == 3 && prm.p[i] == '.') || prm.p[i] == ' ';
                        return zero;
                }
                rest.p += n + (semi ? 1 : 0);
                rest.n -= n + (semi ? 1 : 0);
        }
        return false;
}

bool acs_http_accepts(const acs_http_str *accept, const char *type)
{
        if (!accept)
                return false;
        const char *slash = strchr(type, '/');
        size_t major = slash ? (size_t)(slash - type) : strlen(type);
        acs_http_str rest = *accept, el;

        while (list_next(&rest, &el)) {
                const char *semi = memchr(el.p, ';', el.n);
                acs_http_str range = {el.p, semi ? (size_t)(semi - el.p) : el.n};
                acs_http_str params = {semi ? semi + 1 : el.p + el.n, semi ? el.n - range.n - 1 : 0};
                while (range.n && (range.p[range.n - 1] == ' ' || range.p[range.n - 1] == '\t'))
                        range.n--;
                bool match = acs_http_str_eq(range, type) || acs_http_str_eq(range, "*/*");
                if (!match && range.n == major + 2 && range.p[major] == '/' && range.p[major + 1] == '*') {
                        match = true;
                        for (size_t i = 0; i < major && match; i++)
                                match = lower((unsigned char)range.p[i]) == lower((unsigned char)type[i]);
                }
                if (match && !q_zero(params))
                        return true;
        }
        return false;
}

int acs_http_target_path(acs_http_str target, acs_http_str *ret)
{
        if (!target.n || target.p[0] != '/')
                return -EINVAL;
        const char *q = memchr(target.p, '?', target.n);
        const char *h = memchr(target.p, '#', target.n);
        if (h && (!q || h < q))
                return -EINVAL;
        *ret = (acs_http_str){target.p, q ? (size_t)(q - target.p) : target.n};
        return 0;
}

bool acs_http_host_is_loopback(acs_http_str host)
{
        char buf[INET6_ADDRSTRLEN + 2];
        struct in_addr a4;
        struct in6_addr a6;

        if (acs_http_str_eq(host, "localhost"))
                return true;
        if (host.n >= sizeof buf)
                return false;
        if (host.n >= 2 && host.p[0] == '[' && host.p[host.n - 1] == ']') {
                memcpy(buf, host.p + 1, host.n - 2);
                buf[host.n - 2] = '\0';
                return inet_pton(AF_INET6, buf, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
        }
        memcpy(buf, host.p, host.n);
        buf[host.n] = '\0';
        if (inet_pton(AF_INET6, buf, &a6) == 1)
                return IN6_IS_ADDR_LOOPBACK(&a6);
        /* inet_pton takes only the dotted quad, never "127.1" or octal forms */
        return inet_pton(AF_INET, buf, &a4) == 1 && (ntohl(a4.s_addr) >> 24) == 127;
}

int acs_http_host_part(acs_http_str v, bool origin, acs_http_str *ret)
{
        if (origin) {
                const char *sep = NULL;
                for (size_t i = 0; i + 2 < v.n; i++)
                        if (v.p[i] == ':' && v.p[i + 1] == '/' && v.p[i + 2] == '/') {
                                sep = v.p + i + 3;
                                break;
                        }
                if (!sep)
                        return -EINVAL;
                v = (acs_http_str){sep, v.n - (size_t)(sep - v.p)};
        }
        if (!v.n)
                return -EINVAL;
        size_t n;
        if (v.p[0] == '[') {
                const char *rb = memchr(v.p, ']', v.n);
                if (!rb)
                        return -EINVAL;
                n = (size_t)(rb - v.p) + 1;
        } else {
                const char *colon = memchr(v.p, ':', v.n);
                n = colon ? (size_t)(colon - v.p) : v.n;
        }
        /* what follows the host: nothing, or ":" and digits */
        if (n < v.n) {
                if (v.p[n] != ':' || n + 1 == v.n)
                        return -EINVAL;
                for (size_t i = n + 1; i < v.n; i++)
                        if (v.p[i] < '0' || v.p[i] > '9')
                                return -EINVAL;
        }
        if (n == 0 || memchr(v.p, '/', n) || memchr(v.p, '@', n))
                return -EINVAL;
        *ret = (acs_http_str){v.p, n};
        return 0;
}

bool acs_http_origin_ok(const acs_http_str *origin, char *const *allowed)
{
        acs_http_str host;

        if (!origin)
                return true;
        for (size_t i = 0; allowed && allowed[i]; i++)
                if (origin->n == strlen(allowed[i]) && memcmp(origin->p, allowed[i], origin->n) == 0)
                        return true;
        /* "null" (sandboxed frames, file:) and anything unparsable are foreign */
        if (acs_http_host_part(*origin, true, &host) < 0)
                return false;
        return acs_http_host_is_loopback(host);
}

bool acs_http_secret_eq(const char *a, size_t an, const char *b, size_t bn)
{
        /* Time depends only on bn (the secret's length, which the server knows):
         * every byte of b is compared, against a's byte or against a zero. */
        unsigned char diff = an != bn;

        for (size_t i = 0; i < bn; i++) {
                unsigned char ca = i < an ? (unsigned char)a[i] : 0;
                diff |= ca ^ (unsigned char)b[i];
        }
        return diff == 0;
}

bool acs_http_bearer_ok(const acs_http_str *authz, const char *token, size_t token_len)
{
        if (!authz || authz->n < 7 || !acs_http_str_eq((acs_http_str){authz->p, 6}, "bearer") ||
            authz->p[6] != ' ')
                return false;
        acs_http_str t = {authz->p + 7, authz->n - 7};
        while (t.n && t.p[0] == ' ') {
                t.p++;
                t.n--;
        }
        return token_len > 0 && acs_http_secret_eq(t.p, t.n, token, token_len);
}

static int parse_port(const char *s, uint16_t *ret)
{
        unsigned v = 0;

        if (!*s || strlen(s) > 5)
                return -EINVAL;
        for (; *s; s++) {
                if (*s < '0' || *s > '9')
                        return -EINVAL;
                v = v * 10 + (unsigned)(*s - '0');
        }
        if (v > 65535)
                return -EINVAL;
        *ret = (uint16_t)v;
        return 0;
}

int acs_http_parse_listen(const char *spec, struct sockaddr_storage *ret, socklen_t *ret_len)
{
        char host[INET6_ADDRSTRLEN + 1] = "127.0.0.1";
        const char *port = spec;
        uint16_t p;

        memset(ret, 0, sizeof *ret);
        if (spec[0] == '[') {
                const char *rb = strchr(spec, ']');
                if (!rb || rb[1] != ':' || (size_t)(rb - spec - 1) >= sizeof host)
                        return -EINVAL;
                memcpy(host, spec + 1, (size_t)(rb - spec - 1));
                host[rb - spec - 1] = '\0';
                port = rb + 2;
                struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ret;
                if (parse_port(port, &p) < 0 || inet_pton(AF_INET6, host, &s6->sin6_addr) != 1)
                        return -EINVAL;
                s6->sin6_family = AF_INET6;
                s6->sin6_port = htons(p);
                *ret_len = sizeof *s6;
                return 0;
        }
        const char *colon = strrchr(spec, ':');
        if (colon) {
                size_t n = (size_t)(colon - spec);
                if (n >= sizeof host || memchr(spec, ':', n))
                        return -EINVAL;
                if (n) {
                        memcpy(host, spec, n);
                        host[n] = '\0';
                }
                port = colon + 1;
        }
        struct sockaddr_in *s4 = (struct sockaddr_in *)ret;
        if (parse_port(port, &p) < 0 || inet_pton(AF_INET, host, &s4->sin_addr) != 1)
                return -EINVAL;
        s4->sin_family = AF_INET;
        s4->sin_port = htons(p);
        *ret_len = sizeof *s4;
        return 0;
}

bool acs_http_addr_is_loopback(const struct sockaddr_storage *sa)
{
        if (sa->ss_family == AF_INET)
                return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
        if (sa->ss_family == AF_INET6)
                return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
        return false;
}

bool acs_http_session_id_valid(acs_http_str id)
{
        if (id.n == 0 || id.n > 128)
                return false;
        for (size_t i = 0; i < id.n; i++)
                if ((unsigned char)id.p[i] < 0x21 || (unsigned char)id.p[i] > 0x7e)
                        return false;
        return true;
}

const char *acs_http_reason(int status)
{
        switch (status) {
        case 200: return "OK";
        case 202: return "Accepted";
        case 204: return "No Content";
        case 400: return "Bad Request";
        case 401: return "Unauthorized";
        case 403: return "Forbidden";
        case 404: return "Not Found";
        case 405: return "Method Not Allowed";
        case 406: return "Not Acceptable";
        case 408: return "Request Timeout";
        case 409: return "Conflict";
        case 413: return "Content Too Large";
        case 415: return "Unsupported Media Type";
        case 431: return "Request Header Fields Too Large";
        case 500: return "Internal Server Error";
        case 501: return "Not Implemented";
        case 503: return "Service Unavailable";
        case 505: return "HTTP Version Not Supported";
        default: return "Error";
        }
}
