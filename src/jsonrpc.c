/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * JSON-RPC 2.0 message classification and response building (pure).
 *
 * Everything a client sends is untrusted: the parser is json-c in strict
 * mode with UTF-8 validation and a bounded nesting depth, so a hostile line
 * costs time proportional to its length and nothing else. Every outcome is a
 * classified message; nothing here can fail except on allocation.
 */
#include <string.h>

#include <json-c/json.h>

#include "jsonrpc.h"

/* Deep enough for any MCP message; bounds the parser's recursion on hostile input. */
#define JRPC_MAX_DEPTH 64

static const int line_flags = JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE;

char *acs_jrpc_to_line(struct json_object *o)
{
        const char *s = json_object_to_json_string_ext(o, line_flags);

        return s ? strdup(s) : NULL;
}

bool acs_jrpc_blank(const char *line, size_t len)
{
        for (size_t i = 0; i < len; i++)
                if (!strchr(" \t\r\n", line[i]) || line[i] == '\0')
                        return false;
        return true;
}

static void set_invalid(acs_jrpc_msg *m, int code, const char *msg)
{
        m->kind = ACS_JRPC_INVALID;
        m->err_code = code;
        m->err_msg = msg;
}

/* ---- raw tokens ------------------------------------------------------- */

/*
 * These scan text json-c has already accepted (strict mode), so they only
 * need to find where a value ends, not to validate it.
 */
static bool is_ws(char c)
{
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static size_t skip_ws(const char *s, size_t n, size_t i)
{
        while (i < n && is_ws(s[i]))
                i++;
        return i;
}

/* The end (exclusive) of the JSON value starting at s[i]. */
static size_t value_end(const char *s, size_t n, size_t i)
{
        size_t depth = 0;
        bool in_str = false;

        for (; i < n; i++) {
                char c = s[i];

                if (in_str) {
                        if (c == '\\')
                                i++;
                        else if (c == '"') {
                                in_str = false;
                                if (depth == 0)
                                        return i + 1;
                        }
                } else if (c == '"')
                        in_str = true;
                else if (c == '{' || c == '[')
                        depth++;
                else if (c == '}' || c == ']') {
                        if (depth == 0)
                                return i;
                        if (--depth == 0)
                                return i + 1;
                } else if (depth == 0 && (c == ',' || c == ':' || is_ws(c)))
                        return i;
        }
        return n;
}

/* One JSON value from s[0..n) (no NUL inside), or NULL. */
static struct json_object *parse_len(const char *s, size_t n)
{
        struct json_tokener *tok = json_tokener_new_ex(JRPC_MAX_DEPTH);
        struct json_object *o;

        if (!tok)
                return NULL;
        json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
        o = json_tokener_parse_ex(tok, s, (int)n);
        json_tokener_free(tok);
        return o;
}

/* Does the JSON string token s[0..n) (quotes included) hold exactly key? */
static bool key_equals(const char *s, size_t n, const char *key)
{
        struct json_object *o;
        bool eq;

        if (!memchr(s, '\\', n))
                return n >= 2 && n - 2 == strlen(key) && memcmp(s + 1, key, n - 2) == 0;
        o = parse_len(s, n);
        eq = json_object_is_type(o, json_type_string) && (size_t)json_object_get_string_len(o) == strlen(key) &&
             strcmp(json_object_get_string(o), key) == 0;
        json_object_put(o);
        return eq;
}

/* The raw text of member key of the object text s[0..n); the last one if repeated, as json-c keeps. */
static bool raw_member(const char *s, size_t n, const char *key, const char **ret, size_t *ret_len)
{
        size_t i = skip_ws(s, n, 0);
        bool found = false;

        if (i >= n || s[i] != '{')
                return false;
        for (i++;;) {
                size_t kend, vend;
                bool match;

                i = skip_ws(s, n, i);
                if (i >= n || s[i] != '"')
                        return found;
                kend = value_end(s, n, i);
                match = key_equals(s + i, kend - i, key);
                i = skip_ws(s, n, kend);
                if (i >= n || s[i] != ':')
                        return found;
                i = skip_ws(s, n, i + 1);
                vend = value_end(s, n, i);
                if (match) {
                        *ret = s + i;
                        *ret_len = vend - i;
                        found = true;
                }
                i = skip_ws(s, n, vend);
                if (i >= n || s[i] != ',')
                        return found;
                i++;
        }
}

/* A JSON number as the grammar has it (json-c also takes NaN and Infinity, which JSON has not). */
static bool json_number_text(const char *s, size_t n)
{
        size_t i = 0;

        if (i < n && s[i] == '-')
                i++;
        if (i >= n || s[i] < '0' || s[i] > '9')
                return false;
        for (; i < n; i++)
                if (!strchr("0123456789.eE+-", s[i]) || s[i] == '\0')
                        return false;
        return true;
}

/* MCP narrows JSON-RPC: an id is a string or a number, never null. */
static bool id_usable(struct json_object *id, const char *raw, size_t raw_len)
{
        json_type t = json_object_get_type(id);

        /* a raw control character in the string is not JSON (json-c lets it
         * through): echoed byte for byte it would make our answer invalid
         * JSON, or split its line */
        if (t == json_type_string) {
                for (size_t i = 0; i < raw_len; i++)
                        if ((unsigned char)raw[i] < 0x20)
                                return false;
                return raw_len >= 2 && raw[0] == '"';
        }
        return (t == json_type_int || t == json_type_double) && json_number_text(raw, raw_len);
}

char *acs_jrpc_id_key(struct json_object *id, const char *raw, size_t raw_len)
{
        if (json_object_is_type(id, json_type_string))
                return acs_jrpc_to_line(id);
        return strndup(raw, raw_len);
}

char *acs_jrpc_param_id_key(const acs_jrpc_msg *m, const char *member)
{
        struct json_object *v;
        const char *praw, *raw;
        size_t plen, len;

        if (!m->raw || !json_object_is_type(m->params, json_type_object) ||
            !json_object_object_get_ex(m->params, member, &v) ||
            !raw_member(m->raw, m->raw_len, "params", &praw, &plen) || !raw_member(praw, plen, member, &raw, &len) ||
            !id_usable(v, raw, len))
                return NULL;
        return acs_jrpc_id_key(v, raw, len);
}

/* A string member without embedded NULs, or NULL. */
static const char *get_plain_string(struct json_object *o)
{
        const char *s;

        if (!json_object_is_type(o, json_type_string))
                return NULL;
        s = json_object_get_string(o);
        if (strlen(s) != (size_t)json_object_get_string_len(o))
                return NULL;
        return s;
}

static int classify(acs_jrpc_msg *m)
{
        struct json_object *root = m->root, *v, *id = NULL;
        const char *version, *raw_id = NULL;
        bool has_id, has_method;
        size_t raw_len = 0;

        if (json_object_is_type(root, json_type_array)) {
                set_invalid(m, ACS_JRPC_INVALID_REQUEST,
                            "Invalid Request: JSON-RPC batches are not supported by this protocol version");
                return 0;
        }
        if (!json_object_is_type(root, json_type_object)) {
                set_invalid(m, ACS_JRPC_INVALID_REQUEST, "Invalid Request: a message must be a JSON object");
                return 0;
        }

        has_id = json_object_object_get_ex(root, "id", &id);
        if (has_id && raw_member(m->raw, m->raw_len, "id", &raw_id, &raw_len) && id_usable(id, raw_id, raw_len)) {
                m->id_json = strndup(raw_id, raw_len);
                m->id_key = acs_jrpc_id_key(id, raw_id, raw_len);
                if (!m->id_json || !m->id_key)
                        return -ENOMEM;
        } else
                raw_id = NULL;

        version = json_object_object_get_ex(root, "jsonrpc", &v) ? get_plain_string(v) : NULL;
        if (!version || strcmp(version, "2.0") != 0) {
                set_invalid(m, ACS_JRPC_INVALID_REQUEST, "Invalid Request: \"jsonrpc\" must be \"2.0\"");
                return 0;
        }

        has_method = json_object_object_get_ex(root, "method", &v);
        if (!has_method) {
                if (has_id && (json_object_object_get_ex(root, "result", NULL) ||
                               json_object_object_get_ex(root, "error", NULL))) {
                        m->kind = ACS_JRPC_RESPONSE;
                        return 0;
                }
                set_invalid(m, ACS_JRPC_INVALID_REQUEST, "Invalid Request: \"method\" is missing");
                return 0;
        }
        m->method = get_plain_string(v);
        if (!m->method || !*m->method) {
                set_invalid(m, ACS_JRPC_INVALID_REQUEST,
                            "Invalid Request: \"method\" must be a non-empty string");
                return 0;
        }
        if (has_id && !raw_id) {
                set_invalid(m, ACS_JRPC_INVALID_REQUEST,
                            "Invalid Request: \"id\" must be a string or a number (not null; "
                            "no raw control character)");
                return 0;
        }
        if (json_object_object_get_ex(root, "params", &v)) {
                if (!json_object_is_type(v, json_type_object) && !json_object_is_type(v, json_type_array)) {
                        set_invalid(m, ACS_JRPC_INVALID_REQUEST,
                                    "Invalid Request: \"params\" must be an object");
                        return 0;
                }
                m->params = v;
        }
        m->kind = has_id ? ACS_JRPC_REQUEST : ACS_JRPC_NOTIFICATION;
        return 0;
}

int acs_jrpc_parse(const char *line, size_t len, acs_jrpc_msg *ret)
{
        struct json_tokener *tok;
        bool is_null;
        size_t end;

        *ret = (acs_jrpc_msg){ 0 };
        if (len > ACS_JRPC_MAX_LINE) {
                set_invalid(ret, ACS_JRPC_INVALID_REQUEST, "Invalid Request: message too large");
                return 0;
        }
        if (len > 0 && line[len - 1] == '\r')
                len--;
        ret->raw = line;
        ret->raw_len = len;
        /* json-c would stop at a NUL byte; JSON text never contains one. */
        if (memchr(line, '\0', len)) {
                set_invalid(ret, ACS_JRPC_PARSE_ERROR, "Parse error: NUL byte in message");
                return 0;
        }

        tok = json_tokener_new_ex(JRPC_MAX_DEPTH);
        if (!tok)
                return -ENOMEM;
        json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS |
                                            JSON_TOKENER_VALIDATE_UTF8);
        ret->root = json_tokener_parse_ex(tok, line, (int)len);
        end = json_tokener_get_parse_end(tok);
        if (!ret->root && json_tokener_get_error(tok) == json_tokener_continue) {
                /*
                 * The whole line was consumed. A bare scalar ("42", "null")
                 * only ends at a delimiter: feed one blank to finish it;
                 * anything still incomplete is a parse error.
                 */
                ret->root = json_tokener_parse_ex(tok, " ", 1);
                end = len;
        }
        /* The JSON value null parses to NULL with success: valid JSON, no request. */
        is_null = !ret->root && json_tokener_get_error(tok) == json_tokener_success;
        json_tokener_free(tok);
        if (is_null && acs_jrpc_blank(line + end, len - end)) {
                set_invalid(ret, ACS_JRPC_INVALID_REQUEST, "Invalid Request: a message must be a JSON object");
                return 0;
        }
        if (!ret->root || !acs_jrpc_blank(line + end, len - end)) {
                json_object_put(ret->root);
                ret->root = NULL;
                set_invalid(ret, ACS_JRPC_PARSE_ERROR, "Parse error: not a single valid JSON value");
                return 0;
        }
        return classify(ret);
}

void acs_jrpc_msg_done(acs_jrpc_msg *m)
{
        json_object_put(m->root);
        free(m->id_json);
        free(m->id_key);
        *m = (acs_jrpc_msg){ 0 };
}

/* Concatenate pieces into one malloc'd string. */
static int concat(char **ret, const char *const *parts, const size_t *lens, size_t n)
{
        size_t total = 1, off = 0;
        char *s;

        for (size_t i = 0; i < n; i++)
                total += lens[i];
        s = malloc(total);
        if (!s)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                memcpy(s + off, parts[i], lens[i]);
                off += lens[i];
        }
        s[off] = '\0';
        *ret = s;
        return 0;
}

int acs_jrpc_result_raw(const char *id_json, const char *result_json, size_t len, char **ret)
{
        const char *id = id_json ? id_json : "null";
        const char *parts[] = { "{\"jsonrpc\":\"2.0\",\"id\":", id, ",\"result\":", result_json, "}" };
        size_t lens[] = { strlen(parts[0]), strlen(id), strlen(parts[2]), len, 1 };

        /* The framing is one message per line: an embedded newline would split it. */
        if (len == 0 || memchr(result_json, '\n', len) || memchr(result_json, '\r', len) ||
            memchr(result_json, '\0', len) || strchr(id, '\n'))
                return -EINVAL;
        return concat(ret, parts, lens, ELEMENTSOF(parts));
}

int acs_jrpc_result(const char *id_json, struct json_object *result, char **ret)
{
        const char *s = json_object_to_json_string_ext(result, line_flags);

        if (!s)
                return -ENOMEM;
        return acs_jrpc_result_raw(id_json, s, strlen(s), ret);
}

int acs_jrpc_error(const char *id_json, int code, const char *message, struct json_object *data,
                   char **ret)
{
        struct json_object *err = json_object_new_object();
        const char *s;
        int r;

        if (!err)
                return -ENOMEM;
        json_object_object_add(err, "code", json_object_new_int(code));
        json_object_object_add(err, "message", json_object_new_string(message ? message : ""));
        if (data)
                json_object_object_add(err, "data", json_object_get(data));
        s = json_object_to_json_string_ext(err, line_flags);
        if (!s) {
                json_object_put(err);
                return -ENOMEM;
        }
        {
                const char *id = id_json ? id_json : "null";
                const char *parts[] = { "{\"jsonrpc\":\"2.0\",\"id\":", id, ",\"error\":", s, "}" };
                size_t lens[] = { strlen(parts[0]), strlen(id), strlen(parts[2]), strlen(s), 1 };

                r = concat(ret, parts, lens, ELEMENTSOF(parts));
        }
        json_object_put(err);
        return r;
}

int acs_jrpc_utf8_prefix(const char *s, int max)
{
        int n = (int)strnlen(s, (size_t)max + 1);

        if (n <= max)
                return n;
        n = max;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
                n--;
        return n;
}
