/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Table-driven tests of the MCP tool layer: versions, tool list, argument validation, results. */
#include <string.h>

#include <json-c/json.h>

#include "../tap.h"
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
        { "{\"name\":\"execute_command\",\"arguments\":{\"code\":\"ls\"}}", -EINVAL, 0, NULL, 0, NULL },
        { "{\"name\":\"inspect_code_security\",\"arguments\":{\"code\":\"1\",\"timeout\":1}}", -EINVAL, 0, NULL, 0, NULL },
        /* limits (issue 13): types and ranges; the profile bound is mcp-worker's */
        { "{\"name\":\"execute_command\",\"arguments\":{\"command\":\"ls\",\"cpu\":1.5,\"processes\":8,"
          "\"open_files\":64,\"memory\":33554432}}", 0, ACS_TOOL_COMMAND, "ls", 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"processes\":0}}", -ERANGE, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"open_files\":\"9\"}}", -EINVAL, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"memory\":1024}}", -ERANGE, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"cpu\":0}}", -ERANGE, 0, NULL, 0, NULL },
        { "{\"name\":\"inspect_code_security\",\"arguments\":{\"code\":\"1\",\"cpu\":1}}", -EINVAL, 0, NULL, 0, NULL },
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
                        if (strstr(calls[i].params, "\"processes\":8"))
                                ok(c.has_cpu && c.cpu == 2 && c.has_processes && c.processes == 8 && c.has_open_files &&
                                           c.open_files == 64 && c.has_memory && c.memory == 33554432,
                                   "  limits parsed (cpu rounded up)");
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

/* The server profile's allowed modules reach the descriptions, in full, on one line. */
static void test_policy_line(void)
{
        struct json_object *list = acs_mcp_tools_list_result(), *tools, *t, *d;
        char *mods[] = { "math", "os.path", "lzma", NULL };
        acs_mcp_tools_describe_policy(list, "default", mods);
        ok(json_object_object_get_ex(list, "tools", &tools), "tools/list has tools");
        for (size_t i = 0; i < json_object_array_length(tools); i++) {
                t = json_object_array_get_idx(tools, i);
                json_object_object_get_ex(t, "name", &d);
                const char *name = json_object_get_string(d);
                json_object_object_get_ex(t, "description", &d);
                const char *desc = json_object_get_string(d);
                bool py = strcmp(name, "execute_python") == 0 || strcmp(name, "inspect_code_security") == 0;
                bool has = strstr(desc, "Profile 'default' allows imports of: math os.path lzma.") != NULL;
                ok(py == has && !strchr(desc, '\n'), "%s: policy line %s", name, py ? "present" : "absent");
        }
        json_object_put(list);
}

int main(void)
{
        test_versions();
        test_lists();
        test_parse_call();
        test_results();
        test_policy_line();
        return tap_done();
}
