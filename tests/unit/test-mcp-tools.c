/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Table-driven tests of the MCP tool layer: versions, tool list, argument validation, results. */
#include <string.h>

#include <json-c/json.h>

#include "../tap.h"
#include "diff.h"
#include "mcp-tools.h"

static void test_versions(void)
{
        static const struct {
                const char *asked, *want;
        } v[] = {
                { "2025-11-25", "2025-11-25" }, { "2025-06-18", "2025-06-18" }, { "2025-03-26", "2025-03-26" },
                { "2024-11-05", "2024-11-05" }, { "2026-01-01", "2025-11-25" }, { "1999-01-01", "2025-11-25" },
                { "", "2025-11-25" }, { NULL, "2025-11-25" },
        };

        for (size_t i = 0; i < ELEMENTSOF(v); i++)
                is_str(acs_mcp_negotiate_version(v[i].asked), v[i].want, v[i].asked ? v[i].asked : "(none)");

        /* SEP-1303: argument errors are tool results from 2025-11-25 on */
        ok(acs_mcp_input_errors_are_tool_errors("2025-11-25"), "2025-11-25: argument errors are tool errors");
        ok(acs_mcp_input_errors_are_tool_errors(NULL), "before initialize: as the latest");
        ok(!acs_mcp_input_errors_are_tool_errors("2025-06-18"), "2025-06-18: argument errors are -32602");
        ok(!acs_mcp_input_errors_are_tool_errors("2024-11-05"), "2024-11-05: argument errors are -32602");
}

static void test_lists(void)
{
        struct json_object *init = acs_mcp_initialize_result("2025-06-18", "9.9"), *list, *tools, *v;

        ok(json_object_object_get_ex(init, "serverInfo", &v) &&
                   strcmp(json_object_get_string(json_object_object_get(v, "version")), "9.9") == 0,
           "initialize carries the server version");
        ok(json_object_object_get_ex(init, "capabilities", &v) && json_object_object_get(v, "tools"),
           "initialize announces tools");
        json_object_put(init);

        list = acs_mcp_tools_list_result();
        tools = json_object_object_get(list, "tools");
        is_int(json_object_array_length(tools), 3, "three tools");
        for (size_t i = 0; i < json_object_array_length(tools); i++) {
                struct json_object *t = json_object_array_get_idx(tools, i), *in, *out;
                const char *name = json_object_get_string(json_object_object_get(t, "name"));

                in = json_object_object_get(t, "inputSchema");
                out = json_object_object_get(t, "outputSchema");
                ok(in && strcmp(json_object_get_string(json_object_object_get(in, "type")), "object") == 0,
                   "%s: inputSchema parses, type object", name);
                ok(out && strcmp(json_object_get_string(json_object_object_get(out, "type")), "object") == 0,
                   "%s: outputSchema parses, type object", name);
                ok(out && !json_object_object_get_ex(out, "$schema", NULL) && !json_object_object_get_ex(out, "$id", NULL),
                   "%s: outputSchema has no $schema/$id", name);
        }
        json_object_put(list);
}

static const struct {
        const char *params;
        int r;            /* 0, -EPROTO, -ENOENT (request errors), -EINVAL, -ERANGE (argument errors) */
        acs_mcp_tool tool;
        const char *code;
        double timeout;   /* 0: none */
        const char *profile;
} calls[] = {
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"print(1)\"}}", 0, ACS_TOOL_PYTHON, "print(1)", 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"x\",\"timeout\":2.5,\"profile\":\"pure-math\"}}", 0,
          ACS_TOOL_PYTHON, "x", 2.5, "pure-math" },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"\",\"timeout\":3}}", 0, ACS_TOOL_PYTHON, "", 3, NULL },
        { "{\"name\":\"execute_command\",\"arguments\":{\"command\":\"ls -l\"}}", 0, ACS_TOOL_COMMAND, "ls -l", 0, NULL },
        { "{\"name\":\"inspect_code_security\",\"arguments\":{\"code\":\"import os\",\"profile\":\"default\"},\"_meta\":{}}",
          0, ACS_TOOL_INSPECT, "import os", 0, "default" },
        { "{\"name\":\"nope\",\"arguments\":{}}", -ENOENT, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\\u0000x\",\"arguments\":{\"code\":\"1\"}}", -ENOENT, 0, NULL, 0, NULL },
        { "{\"arguments\":{}}", -EPROTO, 0, NULL, 0, NULL },
        { "{\"name\":5}", -EPROTO, 0, NULL, 0, NULL },
        { "[]", -EPROTO, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\"}", -EINVAL, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":null}", -EINVAL, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":[]}", -EPROTO, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":1}}", -EINVAL, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"timeout\":\"5\"}}", -EINVAL, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"timeout\":0}}", -ERANGE, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"timeout\":-2}}", -ERANGE, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"timeout\":1e9}}", -ERANGE, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"profile\":\"../etc/x\"}}", -EINVAL, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"profile\":\"/tmp/p.ini\"}}", -EINVAL, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"profile\":\"\"}}", -EINVAL, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"profile\":7}}", -EINVAL, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"timout\":7}}", -EINVAL, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_command\",\"arguments\":{\"command\":\"ls\",\"profile\":\"default\"}}", -EINVAL, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_command\",\"arguments\":{\"command\":\"ls\\u0000rm\"}}", -EINVAL, 0, NULL, 0, NULL },
        /* a NUL in code: the scan passed the part before it and nothing ran (issue 12 item 9) */
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"print(1)\\u0000import os\"}}", -EINVAL, 0, NULL, 0, NULL },
        { "{\"name\":\"inspect_code_security\",\"arguments\":{\"code\":\"\\u0000import os\"}}", -EINVAL, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_command\",\"arguments\":{\"code\":\"ls\"}}", -EINVAL, 0, NULL, 0, NULL },
        { "{\"name\":\"inspect_code_security\",\"arguments\":{\"code\":\"1\",\"timeout\":1}}", -EINVAL, 0, NULL, 0, NULL },
};

static void test_parse_call(void)
{
        for (size_t i = 0; i < ELEMENTSOF(calls); i++) {
                struct json_object *params = json_tokener_parse(calls[i].params);
                acs_mcp_call c = { 0 };
                char msg[512] = "";
                int code = 0, r;

                r = acs_mcp_parse_call(params, &c, &code, msg, sizeof(msg));
                is_int(r, calls[i].r, calls[i].params);
                if (r < 0) {
                        is_int(code, -32602, "  -32602");
                        ok(msg[0] != '\0', "  message: %s", msg);
                } else {
                        is_int(c.tool, calls[i].tool, "  tool");
                        is_str(c.code, calls[i].code, "  code");
                        is_int(c.has_timeout, calls[i].timeout > 0, "  has_timeout");
                        ok(c.timeout == calls[i].timeout, "  timeout %g", c.timeout);
                        is_str(c.profile, calls[i].profile, "  profile");
                }
                acs_mcp_call_done(&c);
                json_object_put(params);
        }
}

static bool result_is_error(struct json_object *r)
{
        return json_object_get_boolean(json_object_object_get(r, "isError"));
}

static void test_results(void)
{
        static const struct {
                acs_status status;
                int exit_code;
                bool is_error;
                const char *hint;
        } v[] = {
                { ACS_STATUS_EXITED, 0, false, NULL },      { ACS_STATUS_EXITED, 1, true, NULL },
                { ACS_STATUS_TIMEOUT, 124, true, "timeout" }, { ACS_STATUS_SIGNALED, 137, true, NULL },
                { ACS_STATUS_MEMORY, 137, true, "memory" },  { ACS_STATUS_REJECTED, 126, true, "profile" },
                { ACS_STATUS_ERROR, 125, true, NULL },
        };

        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                acs_report rep = { .status = v[i].status, .exit_code = v[i].exit_code };
                struct json_object *r, *sc, *content;
                const char *text;

                rep.profile = (char *)"default";
                rep.error = v[i].status == ACS_STATUS_ERROR ? (char *)"boom" : NULL;
                r = acs_mcp_run_result(&rep);
                sc = json_object_object_get(r, "structuredContent");
                content = json_object_object_get(r, "content");
                text = json_object_get_string(json_object_object_get(json_object_array_get_idx(content, 0), "text"));
                is_int(result_is_error(r), v[i].is_error, acs_status_to_string(v[i].status));
                is_str(json_object_get_string(json_object_object_get(sc, "status")), acs_status_to_string(v[i].status),
                       "  structuredContent is the report");
                ok(text && (!v[i].hint || strstr(text, v[i].hint)), "  text says what to do (%s)", v[i].hint ? v[i].hint : "-");
                ok(text && !strchr(json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN), '\n'),
                   "  serialises to one line");
                json_object_put(r);
        }

        {
                acs_finding f = { (char *)"forbidden-import", (char *)"os", 1, 0, (char *)"no os" };
                acs_scan_result s = { .verdict = ACS_VERDICT_REJECT, .findings = &f, .n_findings = 1 };
                struct json_object *r = acs_mcp_scan_result("pure-math", "<string>", &s);
                struct json_object *sc = json_object_object_get(r, "structuredContent");

                ok(!result_is_error(r), "a reject verdict is a result, not a tool error");
                is_str(json_object_get_string(json_object_object_get(sc, "schema")), "acs-check/1", "check schema");
                is_str(json_object_get_string(json_object_object_get(json_object_object_get(sc, "scan"), "verdict")),
                       "reject", "verdict");
                json_object_put(r);
        }
        {
                struct json_object *r = acs_mcp_error_result("bad");

                ok(result_is_error(r) && !json_object_object_get(r, "structuredContent"),
                   "tool error: isError, no structuredContent");
                json_object_put(r);
        }
}

static size_t line_len(struct json_object *r)
{
        return strlen(json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* A report too big for the bound still comes back, clipped least needed first. */
static void test_fit(void)
{
        static const size_t bounds[] = { 100u << 20, 1u << 20, 200u << 10 };

        for (size_t b = 0; b < ELEMENTSOF(bounds); b++) {
                acs_report rep = { .status = ACS_STATUS_EXITED, .exit_code = 3, .have_files = true };
                acs_changes *c = &rep.files;
                size_t n = 2000, text = 900003; /* halves land inside a character */
                struct json_object *r, *sc, *files, *v, *tok;

                rep.profile = strdup("default");
                c->added = calloc(n, sizeof *c->added);
                for (size_t i = 0; i < n; i++) {
                        char p[300];

                        snprintf(p, sizeof p, "dir/%0250zu\xff", i);
                        c->added[i] = (acs_change){ .path = strdup(p), .path_len = strlen(p), .type = ACS_FT_FILE,
                                                    .mode = 0644, .size = 1 };
                }
                c->n_added = n;
                c->patch = strdup("diff --git a/x b/x\n");
                c->patch_len = strlen(c->patch);
                /* ~900 KB of output, three-byte characters: a cut must not split one */
                rep.out.text = malloc(text + 1);
                for (size_t i = 0; i + 3 <= text; i += 3)
                        memcpy(rep.out.text + i, "\xe4\xb8\xad", 3);
                rep.out.text_len = text - text % 3;
                rep.out.text[rep.out.text_len] = '\0';
                rep.out.bytes = rep.out.text_len;

                r = acs_mcp_run_result_fit(&rep, bounds[b]);
                sc = json_object_object_get(r, "structuredContent");
                files = json_object_object_get(sc, "files");
                ok(r && line_len(r) <= bounds[b], "fit %zu: the result fits (%zu bytes)", bounds[b], r ? line_len(r) : 0);
                sc = json_object_object_get(r, "structuredContent");
                is_int(json_object_get_int(json_object_object_get(sc, "exit_code")), 3, "  the report is there, exit code and all");
                {
                        struct json_tokener *t = json_tokener_new();

                        json_tokener_set_flags(t, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
                        tok = json_tokener_parse_ex(t, json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN), -1);
                        v = json_object_object_get(json_object_object_get(sc, "stdout"), "text");
                        ok(tok && !strstr(json_object_get_string(v), "\xef\xbf\xbd"),
                           "  it parses back as strict UTF-8, no character cut (no U+FFFD)");
                        json_object_put(tok);
                        json_tokener_free(t);
                }
                if (b == 0) {
                        ok(json_object_object_get(files, "patch") && !json_object_object_get(files, "truncated"),
                           "  under a large bound nothing is clipped");
                } else {
                        json_object *om = json_object_object_get(files, "omitted");
                        size_t listed = json_object_array_length(json_object_object_get(files, "added"));

                        ok(!json_object_object_get(files, "patch") &&
                                   json_object_get_boolean(json_object_object_get(files, "patch_omitted")),
                           "  the patch went first");
                        ok(json_object_get_boolean(json_object_object_get(files, "truncated")) &&
                                   listed + (size_t)json_object_get_int64(json_object_object_get(om, "entries")) == n,
                           "  the lists were clipped and what went is counted (%zu listed)", listed);
                        v = json_object_object_get(sc, "stdout");
                        ok(b == 1 || json_object_get_boolean(json_object_object_get(v, "truncated")),
                           "  the output text is clipped only when the lists were not enough");
                }
                json_object_put(r);
                acs_report_done(&rep);
        }
}

int main(void)
{
        test_versions();
        test_lists();
        test_parse_call();
        test_results();
        test_fit();
        return tap_done();
}
