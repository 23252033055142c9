/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Table-driven tests of JSON-RPC classification and response building. */
#include <string.h>

#include <json-c/json.h>

#include "jsonrpc.h"
#include "../tap.h"

#define K_REQ ACS_JRPC_REQUEST
#define K_NOT ACS_JRPC_NOTIFICATION
#define K_RSP ACS_JRPC_RESPONSE
#define K_BAD ACS_JRPC_INVALID

static const struct {
        const char *line;
        acs_jrpc_kind kind;
        int code;            /* for K_BAD */
        const char *id_json; /* expected id (NULL: none/null) */
        const char *method;
} cases[] = {
        { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", K_REQ, 0, "1", "ping" },
        { "{\"jsonrpc\":\"2.0\",\"id\":\"a-b\",\"method\":\"tools/list\",\"params\":{}}", K_REQ, 0,
          "\"a-b\"", "tools/list" },
        { "  {\"method\":\"ping\",\"id\":7,\"jsonrpc\":\"2.0\"}  \r", K_REQ, 0, "7", "ping" },
        { "{\"jsonrpc\":\"2.0\",\"id\":-3,\"method\":\"x\",\"params\":[1]}", K_REQ, 0, "-3", "x" },
        { "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"x\"}", K_REQ, 0, "1.5", "x" },
        { "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", K_NOT, 0, NULL,
          "notifications/initialized" },
        { "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}", K_RSP, 0, "4", NULL },
        { "{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":1,\"message\":\"m\"}}", K_RSP, 0, "4", NULL },
        /* parse errors */
        { "", K_BAD, ACS_JRPC_PARSE_ERROR, NULL, NULL },
        { "{", K_BAD, ACS_JRPC_PARSE_ERROR, NULL, NULL },
        { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"", K_BAD, ACS_JRPC_PARSE_ERROR, NULL, NULL },
        { "not json", K_BAD, ACS_JRPC_PARSE_ERROR, NULL, NULL },
        { "{'jsonrpc':'2.0'}", K_BAD, ACS_JRPC_PARSE_ERROR, NULL, NULL },
        { "{} {}", K_BAD, ACS_JRPC_PARSE_ERROR, NULL, NULL },
        { "{\"a\":1,}", K_BAD, ACS_JRPC_PARSE_ERROR, NULL, NULL },
        { "{\"a\":\"\xff\xfe\"}", K_BAD, ACS_JRPC_PARSE_ERROR, NULL, NULL },
        { "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
          K_BAD, ACS_JRPC_PARSE_ERROR, NULL, NULL },
        /* invalid requests */
        /* json-c accepts NaN; the object is still no request */
        { "{\"a\":NaN}", K_BAD, ACS_JRPC_INVALID_REQUEST, NULL, NULL },
        { "[]", K_BAD, ACS_JRPC_INVALID_REQUEST, NULL, NULL },
        { "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", K_BAD, ACS_JRPC_INVALID_REQUEST, NULL, NULL },
        { "42", K_BAD, ACS_JRPC_INVALID_REQUEST, NULL, NULL },
        { "\"ping\"", K_BAD, ACS_JRPC_INVALID_REQUEST, NULL, NULL },
        { "null", K_BAD, ACS_JRPC_INVALID_REQUEST, NULL, NULL },
        { "{}", K_BAD, ACS_JRPC_INVALID_REQUEST, NULL, NULL },
        { "{\"id\":1,\"method\":\"ping\"}", K_BAD, ACS_JRPC_INVALID_REQUEST, "1", NULL },
        { "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", K_BAD, ACS_JRPC_INVALID_REQUEST, "1", NULL },
        { "{\"jsonrpc\":2.0,\"id\":1,\"method\":\"ping\"}", K_BAD, ACS_JRPC_INVALID_REQUEST, "1", NULL },
        { "{\"jsonrpc\":\"2.0\",\"id\":1}", K_BAD, ACS_JRPC_INVALID_REQUEST, "1", NULL },
        { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}", K_BAD, ACS_JRPC_INVALID_REQUEST, "1", NULL },
        { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\"}", K_BAD, ACS_JRPC_INVALID_REQUEST, "1", NULL },
        { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi\\u0000ng\"}", K_BAD, ACS_JRPC_INVALID_REQUEST, "1", NULL },
        { "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", K_BAD, ACS_JRPC_INVALID_REQUEST, NULL, NULL },
        { "{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}", K_BAD, ACS_JRPC_INVALID_REQUEST, NULL, NULL },
        /* a raw control character in a string id (json-c accepts it) is never echoed (found by fuzz-jsonrpc) */
        { "{\"jsonrpc\":\"2.0\",\"id\":\"a\x1a\nb\",\"method\":\"ping\"}", K_BAD, ACS_JRPC_INVALID_REQUEST, NULL, NULL },
        { "{\"jsonrpc\":\"2.0\",\"id\":\"a\tb\",\"method\":\"ping\"}", K_BAD, ACS_JRPC_INVALID_REQUEST, NULL, NULL },
        { "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", K_BAD, ACS_JRPC_INVALID_REQUEST, NULL, NULL },
        { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":3}", K_BAD,
          ACS_JRPC_INVALID_REQUEST, "1", NULL },
        { "{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"params\":\"x\"}", K_BAD, ACS_JRPC_INVALID_REQUEST,
          NULL, NULL },
        { "{\"jsonrpc\":\"2.0\",\"result\":{}}", K_BAD, ACS_JRPC_INVALID_REQUEST, NULL, NULL },
};

static void test_classify(void)
{
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                acs_jrpc_msg m;
                char name[160];

                snprintf(name, sizeof(name), "case %zu: %.60s", i, cases[i].line);
                if (acs_jrpc_parse(cases[i].line, strlen(cases[i].line), &m) < 0) {
                        ok(0, "%s: parse returned an error", name);
                        continue;
                }
                is_int(m.kind, cases[i].kind, name);
                if (cases[i].kind == K_BAD)
                        is_int(m.err_code, cases[i].code, "  error code");
                is_str(m.id_json, cases[i].id_json, "  id");
                if (cases[i].kind == K_REQ || cases[i].kind == K_NOT)
                        is_str(m.method, cases[i].method, "  method");
                acs_jrpc_msg_done(&m);
        }
}

static void test_nul_and_size(void)
{
        static const char with_nul[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\0x";
        acs_jrpc_msg m;

        acs_jrpc_parse(with_nul, sizeof(with_nul) - 1, &m);
        is_int(m.err_code, ACS_JRPC_PARSE_ERROR, "raw NUL byte is a parse error");
        acs_jrpc_msg_done(&m);

        acs_jrpc_parse("{}", (size_t)ACS_JRPC_MAX_LINE + 1, &m);
        is_int(m.err_code, ACS_JRPC_INVALID_REQUEST, "oversize line is rejected before parsing");
        acs_jrpc_msg_done(&m);

        ok(acs_jrpc_blank(" \t\r", 3), "whitespace line is blank");
        ok(!acs_jrpc_blank(" x", 2), "non-blank line");
}

static void test_build(void)
{
        struct json_object *res = json_object_new_object(), *data;
        char *s = NULL;

        json_object_object_add(res, "text", json_object_new_string("a\nb/c\"d"));
        is_int(acs_jrpc_result("7", res, &s), 0, "result builds");
        is_str(s, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"text\":\"a\\nb/c\\\"d\"}}",
               "result is one line with escapes");
        free(s);
        json_object_put(res);

        is_int(acs_jrpc_error(NULL, ACS_JRPC_PARSE_ERROR, "Parse error", NULL, &s), 0, "error builds");
        is_str(s, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}",
               "error with null id");
        free(s);

        data = json_object_new_string("x");
        is_int(acs_jrpc_error("\"r1\"", -32602, "Unknown tool: nope", data, &s), 0, "error with data");
        is_str(s, "{\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"error\":{\"code\":-32602,\"message\":\"Unknown tool: nope\",\"data\":\"x\"}}",
               "error keeps id and data");
        free(s);
        json_object_put(data);

        is_int(acs_jrpc_result_raw("1", "{\"a\":\n1}", 8, &s), -EINVAL, "raw result with newline refused");
        is_int(acs_jrpc_result_raw("1", "", 0, &s), -EINVAL, "empty raw result refused");
        is_int(acs_jrpc_result_raw("1", "{}", 2, &s), 0, "raw result");
        is_str(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", "raw result spliced");
        free(s);
}

/* An id must come back byte for byte: clients match responses by it. */
static void test_id_roundtrip(void)
{
        static const char *ids[] = { "0", "9007199254740993", "\"\"", "\"\\u00e9\\n\"", "1e3", "-0.25" };

        for (size_t i = 0; i < ELEMENTSOF(ids); i++) {
                char line[200], *resp = NULL;
                acs_jrpc_msg m, back;
                struct json_object *e = json_object_new_object();

                snprintf(line, sizeof(line), "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"ping\"}", ids[i]);
                acs_jrpc_parse(line, strlen(line), &m);
                is_int(m.kind, K_REQ, ids[i]);
                acs_jrpc_result(m.id_json, e, &resp);
                acs_jrpc_parse(resp, strlen(resp), &back);
                ok(back.kind == K_RSP && back.id_json && m.id_json &&
                           json_object_equal(json_object_object_get(back.root, "id"),
                                             json_object_object_get(m.root, "id")),
                   "  id %s survives the round trip (%s)", ids[i], resp);
                free(resp);
                json_object_put(e);
                acs_jrpc_msg_done(&m);
                acs_jrpc_msg_done(&back);
        }
}

/* Ids come back byte for byte (json-c would saturate big integers and re-escape strings). */
static void test_raw_ids(void)
{
        static const struct {
                const char *line, *id_json, *id_key;
        } v[] = {
                { "{\"jsonrpc\":\"2.0\",\"id\":12345678901234567890,\"method\":\"ping\"}", "12345678901234567890",
                  "12345678901234567890" },
                { "{\"jsonrpc\":\"2.0\",\"id\":123456789012345678901234,\"method\":\"ping\"}",
                  "123456789012345678901234", "123456789012345678901234" },
                { "{\"jsonrpc\":\"2.0\",\"id\":-9223372036854775809,\"method\":\"ping\"}", "-9223372036854775809",
                  "-9223372036854775809" },
                { "{\"jsonrpc\":\"2.0\",\"id\":-0,\"method\":\"ping\"}", "-0", "-0" },
                { "{\"jsonrpc\":\"2.0\",\"id\":1.10,\"method\":\"ping\"}", "1.10", "1.10" },
                { "{\"jsonrpc\":\"2.0\",\"id\":1E+2 ,\"method\":\"ping\"}", "1E+2", "1E+2" },
                { "{\"jsonrpc\":\"2.0\",\"id\":\"a\\u00e9\\/b\\\"\",\"method\":\"ping\"}", "\"a\\u00e9\\/b\\\"\"",
                  "\"a\u00e9/b\\\"\"" },
                { "{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\" : \t\"x\" }", "\"x\"", "\"x\"" },
                /* json-c keeps the last of repeated keys: so do we */
                { "{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}", "2", "2" },
                { "{\"jsonrpc\":\"2.0\",\"\\u0069d\":3,\"method\":\"ping\"}", "3", "3" },
                { "{\"jsonrpc\":\"2.0\",\"params\":{\"id\":9},\"id\":[\"no\"],\"method\":\"ping\"}", NULL, NULL },
                { "{\"jsonrpc\":\"2.0\",\"params\":{\"id\":9},\"method\":\"ping\"}", NULL, NULL },
                /* json-c takes NaN; JSON has no such number: never echoed */
                { "{\"jsonrpc\":\"2.0\",\"id\":NaN,\"method\":\"ping\"}", NULL, NULL },
        };

        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                acs_jrpc_msg m;
                char *resp = NULL;

                acs_jrpc_parse(v[i].line, strlen(v[i].line), &m);
                is_str(m.id_json, v[i].id_json, v[i].line);
                is_str(m.id_key, v[i].id_key, "  key");
                if (m.id_json) {
                        struct json_object *e = json_object_new_object();
                        char want[300];

                        acs_jrpc_result(m.id_json, e, &resp);
                        snprintf(want, sizeof(want), "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}", v[i].id_json);
                        is_str(resp, want, "  echoed byte for byte");
                        free(resp);
                        json_object_put(e);
                }
                acs_jrpc_msg_done(&m);
        }
}

/* notifications/cancelled names a request by the same key. */
static void test_param_id_key(void)
{
        static const struct {
                const char *line, *key;
        } v[] = {
                { "{\"jsonrpc\":\"2.0\",\"method\":\"c\",\"params\":{\"requestId\":123456789012345678901234}}",
                  "123456789012345678901234" },
                { "{\"jsonrpc\":\"2.0\",\"method\":\"c\",\"params\":{\"requestId\":123456789012345678901235}}",
                  "123456789012345678901235" },
                { "{\"jsonrpc\":\"2.0\",\"method\":\"c\",\"params\":{\"x\":[1,{\"requestId\":5}],\"requestId\":\"\\u0061\"}}",
                  "\"a\"" },
                { "{\"jsonrpc\":\"2.0\",\"method\":\"c\",\"params\":{\"requestId\":null}}", NULL },
                { "{\"jsonrpc\":\"2.0\",\"method\":\"c\",\"params\":{}}", NULL },
                { "{\"jsonrpc\":\"2.0\",\"method\":\"c\"}", NULL },
        };

        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                acs_jrpc_msg m;
                char *key;

                acs_jrpc_parse(v[i].line, strlen(v[i].line), &m);
                key = acs_jrpc_param_id_key(&m, "requestId");
                is_str(key, v[i].key, v[i].line);
                free(key);
                acs_jrpc_msg_done(&m);
        }
}

int main(void)
{
        test_classify();
        test_nul_and_size();
        test_build();
        test_id_roundtrip();
        test_raw_ids();
        test_param_id_key();
        return tap_done();
}
