/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Table-driven tests of the MCP tool layer: versions, tool list, argument validation, results. */
#include <string.h>

#include <json-c/json.h>

#include "../tap.h"
#include "diff.h"
#include "mcp-tools.h"

/* A server run as `acs-launch mcp --profile pure-math --allow-profile default --max-timeout 30`. */
static char *profiles[] = { (char *)"pure-math", (char *)"default", NULL };
static char *descriptions[] = { (char *)"Pure computation", (char *)"", NULL };
static const acs_mcp_policy pol = { profiles, descriptions, "pure-math", 30 };
/* and one with only its --profile, default cap */
static char *only_default[] = { (char *)"default", NULL };
static const acs_mcp_policy pol1 = { only_default, NULL, "default", 60 };

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

/* The inputSchema advertises exactly the policy: the profile enum, the timeout maximum. */
static void test_policy_schema(const char *name, struct json_object *props)
{
        struct json_object *p = json_object_object_get(props, "profile"), *t = json_object_object_get(props, "timeout");
        bool command = strcmp(name, "execute_command") == 0, inspect = strcmp(name, "inspect_code_security") == 0;

        if (command) {
                struct json_object *e = json_object_object_get(p, "enum");
                const char *desc = json_object_get_string(json_object_object_get(p, "description"));

                ok(strcmp(json_object_to_json_string_ext(e, JSON_C_TO_STRING_PLAIN),
                          "[\"shell\",\"pure-math\",\"default\"]") == 0,
                   "%s: profile enum is shell, then the allowed list", name);
                ok(desc && strstr(desc, "default: shell") && !strstr(desc, "unsafe"), "%s: shell is the default: %s", name,
                   desc);
                ok(json_object_object_get(props, "cwd") && json_object_object_get(props, "env"), "%s: takes cwd and env",
                   name);
        } else {
                struct json_object *e = json_object_object_get(p, "enum");
                const char *desc = json_object_get_string(json_object_object_get(p, "description"));

                ok(strcmp(json_object_to_json_string_ext(e, JSON_C_TO_STRING_PLAIN), "[\"pure-math\",\"default\"]") == 0,
                   "%s: profile enum is the allowed list, the server's first", name);
                ok(desc && strstr(desc, "default: pure-math") && strstr(desc, "Pure computation") &&
                           !strstr(desc, "unsafe"),
                   "%s: profile description names the default and what each is: %s", name, desc);
        }
        if (inspect) {
                ok(!t, "%s: no timeout argument", name);
        } else {
                const char *desc = json_object_get_string(json_object_object_get(t, "description"));

                ok(json_object_get_int(json_object_object_get(t, "maximum")) == 30, "%s: timeout maximum is the cap", name);
                ok(json_object_is_type(json_object_object_get(t, "maximum"), json_type_int), "%s: as an integer", name);
                ok(desc && strstr(desc, "at most 30") && strstr(desc, "[limits] cpu"),
                   "%s: timeout description gives the cap and the CPU limit", name);
        }
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

        list = acs_mcp_tools_list_result(&pol);
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
                /* draft-07: the dialect Ajv (TypeScript SDK) and jsonschema (Python SDK) know unfetched */
                ok(out && json_object_object_get_ex(out, "$schema", &v) &&
                           strcmp(json_object_get_string(v), "http://json-schema.org/draft-07/schema#") == 0 &&
                           !json_object_object_get_ex(out, "$id", NULL),
                   "%s: outputSchema declares draft-07, no $id", name);
                /* SDKs check the schema on every result: it stays lean (bench/mcp-schema.py) */
                ok(out && strlen(json_object_to_json_string_ext(out, JSON_C_TO_STRING_PLAIN)) < 4096,
                   "%s: outputSchema is under 4 KiB", name);
                test_policy_schema(name, json_object_object_get(in, "properties"));
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
        /* the server's policy (pol): a tool error whatever the protocol version */
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"profile\":\"unsafe-python\"}}", -EACCES, 0, NULL, 0, NULL },
        { "{\"name\":\"inspect_code_security\",\"arguments\":{\"code\":\"1\",\"profile\":\"shell\"}}", -EACCES, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"profile\":\"evil.ini\"}}", -EACCES, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"profile\":\"default.ini\"}}", -EACCES, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"profile\":\"./default\"}}", -EACCES, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"profile\":\"default\\u0000x\"}}", -EACCES, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"profile\":\"Default\"}}", -EACCES, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"timeout\":30.5}}", -EACCES, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_command\",\"arguments\":{\"command\":\"1\",\"timeout\":86400}}", -EACCES, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_command\",\"arguments\":{\"command\":\"1\",\"timeout\":30}}", 0, ACS_TOOL_COMMAND, "1", 30, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"profile\":\"default\"}}", 0, ACS_TOOL_PYTHON, "1", 0, "default" },
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
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"timeout\":1e9}}", -EACCES, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"profile\":\"../etc/x\"}}", -EACCES, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"profile\":\"/tmp/p.ini\"}}", -EACCES, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"profile\":\"\"}}", -EACCES, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"profile\":7}}", -EINVAL, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"timout\":7}}", -EINVAL, 0, NULL, 0, NULL },
        /* execute_command: shell, or a profile the operator allows */
        { "{\"name\":\"execute_command\",\"arguments\":{\"command\":\"ls\",\"profile\":\"default\"}}", 0, ACS_TOOL_COMMAND, "ls", 0, "default" },
        { "{\"name\":\"execute_command\",\"arguments\":{\"command\":\"ls\",\"profile\":\"shell\"}}", 0, ACS_TOOL_COMMAND, "ls", 0, "shell" },
        { "{\"name\":\"execute_command\",\"arguments\":{\"command\":\"ls\",\"profile\":\"unsafe-python\"}}", -EACCES, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"cwd\":\"/workspace\"}}", -EINVAL, 0, NULL, 0, NULL },
        { "{\"name\":\"execute_command\",\"arguments\":{\"command\":\"ls\\u0000rm\"}}", -EINVAL, 0, NULL, 0, NULL },
        /* a NUL in code: the scan passed the part before it and nothing ran (issue 12 item 9) */
        { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"print(1)\\u0000import os\"}}", -EINVAL, 0, NULL, 0, NULL },
        { "{\"name\":\"inspect_code_security\",\"arguments\":{\"code\":\"\\u0000import os\"}}", -EINVAL, 0, NULL, 0, NULL },
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

                r = acs_mcp_parse_call(&pol, params, &c, &code, msg, sizeof(msg));
                is_int(r, calls[i].r, calls[i].params);
                if (r == -EACCES) {
                        ok(strstr(msg, "Not allowed") && (strstr(msg, "max-timeout") || strstr(msg, "pure-math, default (omit")),
                           "  says what the server allows: %s", msg);
                } else if (r < 0) {
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

/* "patch" is a boolean of the two run tools, false when absent. */
static void test_patch_arg(void)
{
        static const struct {
                const char *params;
                int r;
                bool patch;
        } v[] = {
                { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\"}}", 0, false },
                { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"patch\":true}}", 0, true },
                { "{\"name\":\"execute_command\",\"arguments\":{\"command\":\"1\",\"patch\":true}}", 0, true },
                { "{\"name\":\"execute_command\",\"arguments\":{\"command\":\"1\",\"patch\":false}}", 0, false },
                { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"patch\":1}}", -EINVAL, false },
                { "{\"name\":\"execute_python\",\"arguments\":{\"code\":\"1\",\"patch\":\"yes\"}}", -EINVAL, false },
                { "{\"name\":\"inspect_code_security\",\"arguments\":{\"code\":\"1\",\"patch\":true}}", -EINVAL, false },
        };
        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                struct json_object *params = json_tokener_parse(v[i].params);
                acs_mcp_call c = { 0 };
                char msg[512] = "";
                int code = 0;

                is_int(acs_mcp_parse_call(&pol, params, &c, &code, msg, sizeof(msg)), v[i].r, v[i].params);
                if (v[i].r == 0)
                        ok(c.patch == v[i].patch, "  patch %d", v[i].patch);
                else
                        ok(strstr(msg, "patch"), "  the message names it: %s", msg);
                acs_mcp_call_done(&c);
                json_object_put(params);
        }
}

/* The patch is cut at a file boundary to the cap, and says so. */
static void test_cut_patch(void)
{
        static const char three[] = "diff --git a/a b/a\nnew file mode 100644\n--- /dev/null\n+++ b/a\n@@ -0,0 +1 @@\n+x\n"
                                    "diff --git a/b b/b\nindex 1..2 100644\n--- a/b\n+++ b/b\n@@ -1 +1 @@\n-diff --git x\n+y\n"
                                    "diff --git a/c b/c\ndeleted file mode 100644\n";
        size_t first = strstr(three, "diff --git a/b") - three, second = strstr(three, "diff --git a/c") - three;
        size_t all = sizeof(three) - 1, cost_all = acs_json_cost(three, all, NULL);
        size_t cost1 = acs_json_cost(three, first, NULL), cost2 = acs_json_cost(three, second, NULL);
        /* the cap is in JSON-encoded bytes: a newline costs two */
        const struct {
                size_t max, want;
        } v[] = { { 100000, all }, { cost_all, all }, { cost_all - 1, second }, { cost2, second },
                  { cost2 - 1, first }, { cost1, first }, { cost1 - 1, 0 }, { 10, 0 } };

        ok(cost_all > all, "JSON costs more than the raw bytes (%zu > %zu)", cost_all, all);
        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                acs_changes c = { .patch = strdup(three), .patch_len = all };
                size_t want = v[i].want;

                acs_mcp_cut_patch(&c, v[i].max);
                ok(c.patch_len == want, "cut at %zu: %zu bytes kept (got %zu)", v[i].max, want, c.patch_len);
                ok(strlen(c.patch) == c.patch_len && memcmp(c.patch, three, c.patch_len) == 0, "  a prefix of the patch");
                is_int(c.patch_truncated, want != all, "  patch_truncated");
                ok(c.patch_len == 0 || c.patch[c.patch_len - 1] == '\n', "  ends a line");
                free(c.patch);
        }
}

/* _meta.progressToken: a string or an integer, echoed as given; progress always increases. */
static void test_progress(void)
{
        static const struct {
                const char *params, *token; /* token: its JSON, NULL for none */
        } v[] = {
                { "{\"name\":\"x\",\"_meta\":{\"progressToken\":7}}", "7" },
                { "{\"name\":\"x\",\"_meta\":{\"progressToken\":\"abc\"}}", "\"abc\"" },
                { "{\"name\":\"x\",\"_meta\":{\"progressToken\":1.5}}", NULL },
                { "{\"name\":\"x\",\"_meta\":{\"progressToken\":null}}", NULL },
                { "{\"name\":\"x\",\"_meta\":{}}", NULL },
                { "{\"name\":\"x\"}", NULL },
                { "[]", NULL },
        };
        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                struct json_object *params = json_tokener_parse(v[i].params);
                struct json_object *tok = acs_mcp_progress_token(params);

                json_object_put(params); /* the token outlives the request */
                if (v[i].token)
                        is_str(tok ? json_object_to_json_string(tok) : NULL, v[i].token, v[i].params);
                else
                        ok(!tok, "%s: no token", v[i].params);
                json_object_put(tok);
        }

        struct json_object *tok = json_object_new_string("t");
        static const struct {
                uint64_t ms, progress;
        } steps[] = { { 1000, 1 }, { 1500, 2 }, { 2900, 3 }, { 7000, 7 } };
        uint64_t last = 0;

        for (size_t i = 0; i < ELEMENTSOF(steps); i++) {
                struct json_object *m = acs_mcp_progress_message(tok, steps[i].ms, &last), *p;

                p = json_object_object_get(m, "params");
                is_str(json_object_get_string(json_object_object_get(m, "method")), "notifications/progress",
                       "progress: the method");
                ok(json_object_get_uint64(json_object_object_get(p, "progress")) == steps[i].progress && last == steps[i].progress,
                   "progress at %llu ms: %llu", (unsigned long long)steps[i].ms, (unsigned long long)steps[i].progress);
                is_str(json_object_get_string(json_object_object_get(p, "progressToken")), "t", "  the token");
                ok(!json_object_object_get_ex(m, "id", NULL), "  a notification: no id");
                json_object_put(m);
        }
        json_object_put(tok);
}

/* execute_command's cwd (inside /workspace) and env (names, sizes, count). */
static void test_command_extras(void)
{
        static const struct {
                const char *args; /* the arguments object's members after "command" */
                int r;
                const char *cwd, *env0;
        } v[] = {
                { "\"cwd\":\"sub/dir\"", 0, "/workspace/sub/dir", NULL },
                { "\"cwd\":\"/workspace\"", 0, "/workspace", NULL },
                { "\"cwd\":\"/workspace/a\"", 0, "/workspace/a", NULL },
                { "\"cwd\":\"\"", 0, "/workspace", NULL },
                { "\"cwd\":\"/workspacex\"", -EACCES, NULL, NULL },
                { "\"cwd\":\"/etc\"", -EACCES, NULL, NULL },
                { "\"cwd\":\"a/../../etc\"", -EACCES, NULL, NULL },
                { "\"cwd\":\"/workspace/..\"", -EACCES, NULL, NULL },
                { "\"cwd\":\"..\"", -EACCES, NULL, NULL },
                { "\"cwd\":\"a..b\"", 0, "/workspace/a..b", NULL },
                { "\"cwd\":\"a\\u0000b\"", -EINVAL, NULL, NULL },
                { "\"cwd\":7", -EINVAL, NULL, NULL },
                { "\"env\":{\"A\":\"1\"}", 0, NULL, "A=1" },
                { "\"env\":{\"_x9\":\"\"}", 0, NULL, "_x9=" },
                { "\"env\":{\"LD_PRELOAD\":\"/x.so\"}", 0, NULL, "LD_PRELOAD=/x.so" }, /* the profile decides (plan.c) */
                { "\"env\":{\"9A\":\"1\"}", -EINVAL, NULL, NULL },
                { "\"env\":{\"A=B\":\"1\"}", -EINVAL, NULL, NULL },
                { "\"env\":{\"\":\"1\"}", -EINVAL, NULL, NULL },
                { "\"env\":{\"A\":1}", -EINVAL, NULL, NULL },
                { "\"env\":{\"A\":\"x\\u0000y\"}", -EINVAL, NULL, NULL },
                { "\"env\":[\"A=1\"]", -EINVAL, NULL, NULL },
        };
        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                char params[512], msg[512] = "";
                acs_mcp_call c = { 0 };
                int code = 0, r;

                snprintf(params, sizeof params, "{\"name\":\"execute_command\",\"arguments\":{\"command\":\"ls\",%s}}",
                         v[i].args);
                struct json_object *p = json_tokener_parse(params);
                r = acs_mcp_parse_call(&pol, p, &c, &code, msg, sizeof(msg));
                is_int(r, v[i].r, v[i].args);
                if (r == 0 && v[i].cwd)
                        is_str(c.cwd, v[i].cwd, "  cwd");
                if (r == 0 && v[i].env0)
                        is_str(c.env ? c.env[0] : NULL, v[i].env0, "  env");
                if (r < 0)
                        ok(strstr(msg, strstr(v[i].args, "cwd") ? "cwd" : "env"), "  the message names it: %s", msg);
                acs_mcp_call_done(&c);
                json_object_put(p);
        }

        /* bounds: count, one value, the total */
        char *big = malloc(300000);
        size_t n = (size_t)snprintf(big, 300000, "{\"name\":\"execute_command\",\"arguments\":{\"command\":\"ls\",\"env\":{");
        for (int k = 0; k <= ACS_MCP_ENV_MAX; k++)
                n += (size_t)snprintf(big + n, 300000 - n, "%s\"V%d\":\"x\"", k ? "," : "", k);
        snprintf(big + n, 300000 - n, "}}}");
        struct json_object *p = json_tokener_parse(big);
        acs_mcp_call c = { 0 };
        char msg[512] = "";
        int code = 0;
        is_int(acs_mcp_parse_call(&pol, p, &c, &code, msg, sizeof msg), -ERANGE, "65 variables: too many");
        acs_mcp_call_done(&c);
        json_object_put(p);
        ok(acs_mcp_env_check("A", "x", ACS_MCP_ENV_VALUE_MAX) == -ERANGE, "a value's length is checked (NUL inside)");
        free(big);
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
                { ACS_STATUS_TIMEOUT, 124, true, "time limit" }, { ACS_STATUS_SIGNALED, 137, true, NULL },
                { ACS_STATUS_MEMORY, 137, true, "memory" },  { ACS_STATUS_REJECTED, 126, true, "(pure-math)" },
                { ACS_STATUS_ERROR, 125, true, NULL },       { ACS_STATUS_CPU, 137, true, "CPU-time limit" },
        };

        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                acs_report rep = { .status = v[i].status, .exit_code = v[i].exit_code };
                struct json_object *r, *sc, *content;
                const char *text;

                rep.profile = (char *)"default";
                rep.error = v[i].status == ACS_STATUS_ERROR ? (char *)"boom" : NULL;
                r = acs_mcp_run_result(&rep, &pol, 30);
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

                r = acs_mcp_run_result_fit(&rep, bounds[b], &pol, 30);
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

static char *text_of(struct json_object *r)
{
        struct json_object *c = json_object_array_get_idx(json_object_object_get(r, "content"), 0);

        return strdup(json_object_get_string(json_object_object_get(c, "text")));
}

/* Hints suggest only what the server allows. */
static void test_hints(void)
{
        static const struct {
                const acs_mcp_policy *pol;
                acs_status status;
                double timeout_s, cap;
                const char *want, *never;
        } v[] = {
                { &pol1, ACS_STATUS_REJECTED, 5, 60, "Rewrite the code", "profile" },
                { &pol, ACS_STATUS_REJECTED, 5, 30, "this server also allows (default)", "pure-math" },
                { &pol1, ACS_STATUS_TIMEOUT, 5, 60, "larger \"timeout\" (at most 60 s", "unsafe" },
                { &pol1, ACS_STATUS_TIMEOUT, 60, 60, "at most 60 s per call", "larger" },
                { &pol1, ACS_STATUS_TIMEOUT, 120, 60, "time limit (120 s); this server allows at most 60 s", "larger" },
                { &pol1, ACS_STATUS_TIMEOUT, 10, 10, "at most 10 s per call", "larger" },
                { &pol1, ACS_STATUS_CPU, 5, 60, "killed: CPU-time limit of 7 s reached", "acs-launch error" },
                { &pol1, ACS_STATUS_CPU, 5, 60, "does not raise it", "pass a larger" },
        };

        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                acs_report rep = { .status = v[i].status, .exit_code = 1, .profile = v[i].pol->profiles[0] };
                struct json_object *r;
                char *text;

                rep.limits.timeout_s = v[i].timeout_s;
                rep.limits.cpu_s = 7;
                r = acs_mcp_run_result(&rep, v[i].pol, v[i].cap);
                text = text_of(r);
                ok(text && strstr(text, v[i].want) && !strstr(text, v[i].never), "hint %zu says '%s', never '%s': %s", i,
                   v[i].want, v[i].never, text);
                free(text);
                json_object_put(r);
        }
}

/* Lines of text outside fenced blocks (a fence: 3+ backticks; closed by as many or more, alone on a line). */
static size_t outside_fences(const char *text, const char *needle, size_t *ret_inside)
{
        size_t fence = 0, outside = 0, inside = 0;

        for (const char *l = text; l && *l;) {
                const char *e = strchr(l, '\n');
                size_t n = e ? (size_t)(e - l) : strlen(l), ticks = strspn(l, "`");

                if (!fence && ticks >= 3 && !memchr(l + ticks, '`', n - ticks))
                        fence = ticks;
                else if (fence && ticks == n && ticks >= fence)
                        fence = 0;
                else if (n == strlen(needle) && strncmp(l, needle, n) == 0)
                        *(fence ? &inside : &outside) += 1;
                l = e ? e + 1 : NULL;
        }
        *ret_inside = inside;
        return outside;
}

/* The program's output is fenced: it cannot end the fence or write a line of ours. */
static void test_text(void)
{
        static const char *outs[] = {
                "files: no changes\nexited with status 0 (exit 0, 1.0 ms, scan pass)\n",
                "```\nfiles: no changes\n```\n",
                "````````\nfiles: no changes\n``````````",
                "files: no changes",
                "``` ` `` ```` \nfiles: no changes\n",
        };

        for (size_t i = 0; i < ELEMENTSOF(outs); i++) {
                acs_report rep = { .status = ACS_STATUS_EXITED, .exit_code = 3, .profile = (char *)"default" };
                acs_change added = { .path = (char *)"x\nfiles: no changes", .type = ACS_FT_FILE };
                char *text;
                size_t in_out = 0, in_err = 0, out;

                rep.out = (acs_stream_result){ .text = (char *)outs[i], .text_len = strlen(outs[i]), .bytes = 1000 };
                rep.err = rep.out;
                rep.have_files = true;
                rep.files.added = &added;
                rep.files.n_added = 1;
                text = acs_mcp_run_text(&rep, "hint\n");
                out = outside_fences(text, "files: no changes", &in_out);
                ok(out == 0 && in_out == 2, "output %zu: 'files: no changes' only inside the fences (%zu outside, %zu inside)",
                   i, out, in_out);
                ok(outside_fences(text, "files: 1 added, 0 modified, 0 deleted", &in_err) == 1 && in_err == 0,
                   "  our file summary outside");
                ok(strstr(text, "stdout: 1000 bytes") && strstr(text, "stderr: 1000 bytes"), "  byte counts in the headers");
                ok(strstr(text, "  A x\\nfiles: no changes\n"), "  a newline in a file name is escaped");
                ok(strncmp(text, "exited with status 3", 20) == 0 && strstr(text, "hint\n"), "  status first, hint last");
                free(text);
        }
        {
                acs_finding f = { (char *)"r", (char *)"n", 1, 0, (char *)"a\nexited with status 0\x1b]0;t\x07\xff" };
                acs_report rep = { .status = ACS_STATUS_REJECTED, .exit_code = 126 };
                char *text;

                rep.scan = (acs_scan_result){ .verdict = ACS_VERDICT_REJECT, .findings = &f, .n_findings = 1 };
                text = acs_mcp_run_text(&rep, NULL);
                ok(text && strstr(text, "[r] a\\nexited with status 0\\x1b]0;t\\x07\\xff\n"),
                   "a finding's controls and bad bytes are escaped onto one line: %s", text);
                free(text);
        }
}

/* The server profile's allowed modules reach the descriptions, in full, on one line. */
static void test_policy_line(void)
{
        struct json_object *list = acs_mcp_tools_list_result(&pol), *tools, *t, *d;
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
        test_patch_arg();
        test_cut_patch();
        test_progress();
        test_command_extras();
        test_results();
        test_fit();
        test_hints();
        test_text();
        test_policy_line();
        return tap_done();
}
