/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * MCP tool definitions, argument validation and result building (pure).
 *
 * The schemas are JSON text embedded here so that tools/list is exactly what
 * a reader of this file sees. The outputSchemas (src/mcp-schemas.py) are a
 * lean draft-07 digest of doc/report.schema.json: clients compile them with
 * their own validator (Ajv in the TypeScript SDK, jsonschema in the Python
 * one, which checks the schema again on every result) and must neither fetch
 * a meta-schema nor pay for a big schema per call. They leave nested objects
 * open, so that a client which validates structuredContent (the SDKs do)
 * never rejects an honest report.
 */
#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "jsonrpc.h"
#include "diff.h"
#include "mcp-tools.h"
#include "scan.h"
#include "src/mcp-schemas.h" /* generated in the build tree from doc/report.schema.json */

static const char *const supported_versions[] = { "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05" };

const char *acs_mcp_negotiate_version(const char *requested)
{
        for (size_t i = 0; requested && i < ELEMENTSOF(supported_versions); i++)
                if (strcmp(requested, supported_versions[i]) == 0)
                        return supported_versions[i];
        return ACS_MCP_LATEST_VERSION;
}

bool acs_mcp_input_errors_are_tool_errors(const char *version)
{
        /* Versions are dates, so they compare as strings. Before initialize: the latest. */
        return !version || strcmp(version, "2025-11-25") >= 0;
}

static const char instructions[] =
        "acs-launch runs code in a fresh Linux sandbox for every call: its own user, pid, mount and "
        "network namespaces (no network unless the profile allows loopback), seccomp, resource limits, "
        "and a throwaway /workspace whose changes are reported, never written to the host. "
        "Use execute_python for Python 3 code (print what you need to see; output is clipped to a "
        "token budget, head and tail kept), execute_command for shell commands (/bin/sh -c under the "
        "'shell' profile), and inspect_code_security to check code against a profile without running it. "
        "Every result carries a JSON report (status, exit code, scan findings, clipped stdout/stderr, "
        "files changed). isError is true when the security scan refused the code, it timed out, was "
        "killed, or exited non-zero: read the text, fix the code and call again.";

struct json_object *acs_mcp_initialize_result(const char *version, const char *server_version)
{
        struct json_object *r = json_object_new_object(), *caps, *tools, *info;

        if (!r)
                return NULL;
        caps = json_object_new_object();
        tools = json_object_new_object();
        info = json_object_new_object();
        json_object_object_add(tools, "listChanged", json_object_new_boolean(0));
        json_object_object_add(caps, "tools", tools);
        json_object_object_add(info, "name", json_object_new_string("acs-launch"));
        json_object_object_add(info, "title", json_object_new_string("acs-launch sandbox"));
        json_object_object_add(info, "version", json_object_new_string(server_version));
        json_object_object_add(info, "description",
                               json_object_new_string("Runs Python and shell commands in a fresh Linux sandbox "
                                                      "per call, with a security scan and a JSON report"));
        json_object_object_add(r, "protocolVersion", json_object_new_string(version));
        json_object_object_add(r, "capabilities", caps);
        json_object_object_add(r, "serverInfo", info);
        json_object_object_add(r, "instructions", json_object_new_string(instructions));
        return r;
}

/* ---- schemas ---------------------------------------------------------- */

/* Limits a call may lower (never raise) below the profile's. */
#define LIMIT_PROPS                                                                                   \
        "\"cpu\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"maximum\":86400,"                      \
        "\"description\":\"CPU seconds for the whole sandbox; at most the profile's\"},"                \
        "\"memory\":{\"type\":\"integer\",\"minimum\":16777216,"                                      \
        "\"description\":\"Memory limit in bytes; at most the profile's\"},"                            \
        "\"processes\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":4194304,"                       \
        "\"description\":\"Most processes and threads at once; at most the profile's\"},"               \
        "\"open_files\":{\"type\":\"integer\",\"minimum\":8,\"maximum\":1048576,"                      \
        "\"description\":\"Most open files per process; at most the profile's\"}"

/* What a result carries of the workspace's changes. */
#define PATCH_PROP                                                                                    \
        "\"patch\":{\"type\":\"boolean\",\"default\":false,"                                        \
        "\"description\":\"Also return the git-style patch of the files the run changed in "              \
        "/workspace (files.patch), at most 64 KiB: a longer one keeps its first files whole and "      \
        "sets files.patch_truncated. Without it the result lists each changed path with its type, "  \
        "size, mode and sha256 only.\"}"

/* "timeout" and "profile" are added per server by tool_input(): they advertise its policy. */
static const char python_input[] =
        "{\"type\":\"object\",\"properties\":{"
        "\"code\":{\"type\":\"string\",\"description\":\"Python 3 source, run like python3 -c "
        "in a fresh sandbox with /workspace as the working directory\"},"
        LIMIT_PROPS "," PATCH_PROP
        "},\"required\":[\"code\"],\"additionalProperties\":false}";

static const char command_input[] =
        "{\"type\":\"object\",\"properties\":{"
        "\"command\":{\"type\":\"string\",\"description\":\"Shell command line, run by /bin/sh -c "
        "under the 'shell' profile (unless \\\"profile\\\" names another) in a fresh sandbox\"},"
        "\"cwd\":{\"type\":\"string\",\"maxLength\":4095,\"description\":\"Working directory: "
        "/workspace (the default) or a directory below it, absolute or relative to /workspace; no '..'\"},"
        "\"env\":{\"type\":\"object\",\"maxProperties\":64,\"additionalProperties\":{\"type\":\"string\","
        "\"maxLength\":32768},\"description\":\"Environment variables to set, NAME: value (names "
        "[A-Za-z_][A-Za-z0-9_]*, at most 128 bytes; 128 KiB in all). A profile that locks its environment "
        "refuses them\"},"
        LIMIT_PROPS "," PATCH_PROP
        "},\"required\":[\"command\"],\"additionalProperties\":false}";

static const char inspect_input[] =
        "{\"type\":\"object\",\"properties\":{"
        "\"code\":{\"type\":\"string\",\"description\":\"Python 3 source to check; nothing runs\"}"
        "},\"required\":[\"code\"],\"additionalProperties\":false}";

static const struct tool_def {
        const char *name, *title, *description, *input, *output;
        bool read_only;
} tool_defs[] = {
        [ACS_TOOL_PYTHON] = {
                "execute_python", "Run Python in a sandbox",
                "Run Python 3 code in a fresh, isolated sandbox and return its clipped output and a "
                "report. The code is first checked by an AST scan against the profile (imports, "
                "dangerous builtins and attributes); a refusal lists each finding with line and column. "
                "No network, a private /workspace, time and memory limits.",
                python_input, acs_mcp_report_schema, false },
        [ACS_TOOL_COMMAND] = {
                "execute_command", "Run a shell command in a sandbox",
                "Run a shell command with /bin/sh -c in a fresh, isolated sandbox (profile 'shell' unless "
                "\"profile\" names another this server allows: /bin/sh and coreutils, no network, a private "
                "/workspace), optionally in a directory below /workspace (\"cwd\") with variables set "
                "(\"env\"), and return its clipped output and a report.",
                command_input, acs_mcp_report_schema, false },
        [ACS_TOOL_INSPECT] = {
                "inspect_code_security", "Check Python code against a profile",
                "Check Python 3 code against a profile's rules without running it: returns the "
                "verdict and each finding (rule, name, line, column, message).",
                inspect_input, acs_mcp_check_schema, true },
};

void acs_mcp_policy_done(acs_mcp_policy *pol)
{
        acs_strv_free(pol->profiles);
        acs_strv_free(pol->descriptions);
        *pol = (acs_mcp_policy){ 0 };
}

bool acs_mcp_policy_allows(const acs_mcp_policy *pol, const char *name)
{
        return name && acs_strv_contains(pol->profiles, name);
}

/* An integral number as a JSON integer (60, not 60.0), anything else as a double. */
static struct json_object *json_number(double v)
{
        if (v == floor(v) && fabs(v) < 1e15)
                return json_object_new_int64((int64_t)v);
        return json_object_new_double(v);
}

static struct json_object *timeout_prop(const acs_mcp_policy *pol)
{
        struct json_object *t = json_object_new_object();
        char desc[600];

        snprintf(desc, sizeof(desc),
                 "Wall-clock limit in seconds, at most %g on this server (default: the server's --timeout, else "
                 "the profile's timeout; a profile may lock it). It does not raise the profile's CPU-time limit "
                 "([limits] cpu), which bounds the CPU seconds the program uses separately: a program that "
                 "keeps the CPU busy is stopped by that limit first.",
                 pol->max_timeout);
        json_object_object_add(t, "type", json_object_new_string("number"));
        json_object_object_add(t, "exclusiveMinimum", json_object_new_int(0));
        json_object_object_add(t, "maximum", json_number(pol->max_timeout));
        json_object_object_add(t, "description", json_object_new_string(desc));
        return t;
}

/* The enum is the policy; the description names each profile and says what it is. */
static struct json_object *profile_prop(const acs_mcp_policy *pol, const char *what, bool command)
{
        struct json_object *p, *e = json_object_new_array();
        _cleanup_free_ char *desc = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&desc, &len);

        if (!f || !e) {
                if (f)
                        fclose(f);
                json_object_put(e);
                return NULL;
        }
        fprintf(f, "Policy profile %s (default: %s). This server allows:", what, command ? "shell" : pol->profiles[0]);
        if (command && !acs_mcp_policy_allows(pol, "shell")) {
                json_object_array_add(e, json_object_new_string("shell"));
                fputs(" shell (/bin/sh and coreutils);", f);
        }
        for (size_t i = 0; pol->profiles[i]; i++) {
                json_object_array_add(e, json_object_new_string(pol->profiles[i]));
                fprintf(f, "%s %s", i ? ";" : "", pol->profiles[i]);
                if (pol->descriptions && pol->descriptions[i] && *pol->descriptions[i])
                        fprintf(f, " (%s)", pol->descriptions[i]);
        }
        fputc('.', f);
        if (fclose(f) != 0 || !(p = json_object_new_object())) {
                json_object_put(e);
                return NULL;
        }
        json_object_object_add(p, "type", json_object_new_string("string"));
        json_object_object_add(p, "enum", e);
        json_object_object_add(p, "description", json_object_new_string(desc));
        return p;
}

static struct json_object *tool_input(const struct tool_def *d, acs_mcp_tool tool, const acs_mcp_policy *pol)
{
        struct json_object *in = json_tokener_parse(d->input), *props = NULL;

        if (!in || !json_object_object_get_ex(in, "properties", &props))
                return in;
        if (tool != ACS_TOOL_INSPECT)
                json_object_object_add(props, "timeout", timeout_prop(pol));
        json_object_object_add(props, "profile",
                               profile_prop(pol, tool == ACS_TOOL_INSPECT ? "whose rules apply" : "to run under",
                                            tool == ACS_TOOL_COMMAND));
        return in;
}

static struct json_object *tool_to_json(const struct tool_def *d, acs_mcp_tool tool, const acs_mcp_policy *pol)
{
        struct json_object *t = json_object_new_object(), *ann = json_object_new_object();

        json_object_object_add(t, "name", json_object_new_string(d->name));
        json_object_object_add(t, "title", json_object_new_string(d->title));
        json_object_object_add(t, "description", json_object_new_string(d->description));
        json_object_object_add(t, "inputSchema", tool_input(d, tool, pol));
        json_object_object_add(t, "outputSchema", json_tokener_parse(d->output));
        json_object_object_add(ann, "title", json_object_new_string(d->title));
        json_object_object_add(ann, "readOnlyHint", json_object_new_boolean(d->read_only));
        /* Changes stay in the sandbox's throwaway workspace: nothing on the host is destroyed. */
        json_object_object_add(ann, "destructiveHint", json_object_new_boolean(0));
        json_object_object_add(ann, "idempotentHint", json_object_new_boolean(d->read_only));
        json_object_object_add(ann, "openWorldHint", json_object_new_boolean(0));
        json_object_object_add(t, "annotations", ann);
        return t;
}

struct json_object *acs_mcp_tools_list_result(const acs_mcp_policy *pol)
{
        struct json_object *r = json_object_new_object(), *arr = json_object_new_array();

        if (!r || !arr) {
                json_object_put(r);
                json_object_put(arr);
                return NULL;
        }
        for (size_t i = 0; i < ELEMENTSOF(tool_defs); i++)
                json_object_array_add(arr, tool_to_json(&tool_defs[i], (acs_mcp_tool)i, pol));
        json_object_object_add(r, "tools", arr);
        return r;
}

void acs_mcp_tools_describe_policy(struct json_object *list, const char *profile, char *const *allow_imports)
{
        struct json_object *tools = NULL;
        char *mods = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&mods, &len);
        if (!f || !json_object_object_get_ex(list, "tools", &tools)) {
                if (f)
                        fclose(f);
                free(mods);
                return;
        }
        for (char *const *m = allow_imports; m && *m; m++)
                fprintf(f, "%s%s", m == allow_imports ? "" : " ", *m);
        fclose(f);
        for (size_t i = 0; i < json_object_array_length(tools); i++) {
                struct json_object *t = json_object_array_get_idx(tools, i), *name, *desc;
                if (!json_object_object_get_ex(t, "name", &name) ||
                    !json_object_object_get_ex(t, "description", &desc))
                        continue;
                const char *n = json_object_get_string(name);
                if (strcmp(n, "execute_python") != 0 && strcmp(n, "inspect_code_security") != 0)
                        continue;
                char *text = NULL;
                if (asprintf(&text, "%s Profile '%s' allows imports of: %s.", json_object_get_string(desc),
                             profile, mods && *mods ? mods : "nothing") < 0)
                        continue;
                json_object_object_add(t, "description", json_object_new_string(text));
                free(text);
        }
        free(mods);
}

/* ---- tools/call arguments --------------------------------------------- */

void acs_mcp_call_done(acs_mcp_call *c)
{
        free(c->code);
        free(c->profile);
        free(c->cwd);
        acs_strv_free(c->env);
        free(c->path);
        *c = (acs_mcp_call){ 0 };
}

static int bad_params(int *ret_code, char *msg, size_t size, int r, const char *fmt, ...)
        _printf_(5, 6);
static int bad_params(int *ret_code, char *msg, size_t size, int r, const char *fmt, ...)
{
        va_list ap;

        *ret_code = -32602;
        va_start(ap, fmt);
        vsnprintf(msg, size, fmt, ap);
        va_end(ap);
        return r;
}

/* "a, b, c" into buf: for messages. */
static const char *allowed_list(const acs_mcp_policy *pol, char *buf, size_t size)
{
        size_t n = 0;

        buf[0] = '\0';
        for (size_t i = 0; pol->profiles[i] && n < size; i++)
                n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "", pol->profiles[i]);
        return buf;
}

static bool is_limit_key(const char *key)
{
        return strcmp(key, "cpu") == 0 || strcmp(key, "memory") == 0 || strcmp(key, "processes") == 0 ||
               strcmp(key, "open_files") == 0;
}

/* An integer argument in [min, max]: 1 when given, 0 when absent, < 0 bad. */
static int int_arg(struct json_object *args, const char *key, int64_t min, int64_t max, uint64_t *ret)
{
        struct json_object *v;
        if (!json_object_object_get_ex(args, key, &v))
                return 0;
        if (!json_object_is_type(v, json_type_int))
                return -EINVAL;
        int64_t n = json_object_get_int64(v);
        if (n < min || n > max)
                return -ERANGE;
        *ret = (uint64_t)n;
        return 1;
}

static int parse_limits(const struct tool_def *d, struct json_object *args, acs_mcp_call *c, int *ret_code,
                        char *msg, size_t size)
{
        static const struct {
                const char *key;
                int64_t min, max;
                size_t has, val;
        } ints[] = {
                { "memory", 16 << 20, INT64_MAX, offsetof(acs_mcp_call, has_memory), offsetof(acs_mcp_call, memory) },
                { "processes", 1, 1 << 22, offsetof(acs_mcp_call, has_processes), offsetof(acs_mcp_call, processes) },
                { "open_files", 8, 1 << 20, offsetof(acs_mcp_call, has_open_files), offsetof(acs_mcp_call, open_files) },
        };
        struct json_object *v;
        for (size_t i = 0; i < ELEMENTSOF(ints); i++) {
                int r = int_arg(args, ints[i].key, ints[i].min, ints[i].max,
                                (uint64_t *)((char *)c + ints[i].val));
                if (r < 0)
                        return bad_params(ret_code, msg, size, r,
                                          "Invalid arguments for %s: \"%s\" must be an integer from %lld to %lld",
                                          d->name, ints[i].key, (long long)ints[i].min, (long long)ints[i].max);
                *(bool *)((char *)c + ints[i].has) = r > 0;
        }
        if (json_object_object_get_ex(args, "cpu", &v)) {
                double t = json_object_get_double(v);
                if ((!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double)) ||
                    !isfinite(t) || t <= 0 || t > 86400)
                        return bad_params(ret_code, msg, size, -ERANGE,
                                          "Invalid arguments for %s: \"cpu\" must be > 0 and <= 86400 seconds",
                                          d->name);
                c->has_cpu = true;
                c->cpu = (uint64_t)t + ((double)(uint64_t)t < t); /* rounded up, as --cpu */
        }
        return 0;
}

/* "cwd": /workspace or below, absolute or relative; "." and "" mean /workspace; never "..". */
static int check_cwd(const char *s, size_t len, char **ret)
{
        const char *rel = s;

        if (len != strlen(s) || len > 4095)
                return -EINVAL;
        if (s[0] == '/') {
                if (strncmp(s, "/workspace", 10) != 0 || (s[10] != '\0' && s[10] != '/'))
                        return -EACCES;
                rel = s + 10;
        }
        for (const char *p = rel; *p;) {
                size_t n = strcspn(p, "/");

                if (n == 2 && p[0] == '.' && p[1] == '.')
                        return -EACCES;
                p += n + (p[n] == '/');
        }
        while (*rel == '/')
                rel++;
        return asprintf(ret, "/workspace%s%s", *rel ? "/" : "", rel) < 0 ? -ENOMEM : 0;
}

int acs_mcp_env_check(const char *name, const char *value, size_t value_len)
{
        size_t n = strlen(name);

        if (n == 0 || n > ACS_MCP_ENV_NAME_MAX || !(isalpha((unsigned char)name[0]) || name[0] == '_'))
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (!(isalnum((unsigned char)name[i]) || name[i] == '_'))
                        return -EINVAL;
        if (value_len > ACS_MCP_ENV_VALUE_MAX || strlen(value) != value_len)
                return -ERANGE;
        return 0;
}

static int parse_command_extras(const struct tool_def *d, struct json_object *args, acs_mcp_call *c,
                                int *ret_code, char *msg, size_t size)
{
        struct json_object *v;
        size_t total = 0, count = 0;
        int r;

        if (json_object_object_get_ex(args, "cwd", &v)) {
                r = json_object_is_type(v, json_type_string)
                            ? check_cwd(json_object_get_string(v), (size_t)json_object_get_string_len(v), &c->cwd)
                            : -EINVAL;
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        return bad_params(ret_code, msg, size, r == -EACCES ? -EACCES : -EINVAL,
                                          "%s for %s: \"cwd\" must be /workspace or a directory below it "
                                          "(absolute, or relative to /workspace), without '..'",
                                          r == -EACCES ? "Not allowed" : "Invalid arguments", d->name);
        }
        if (!json_object_object_get_ex(args, "env", &v))
                return 0;
        if (!json_object_is_type(v, json_type_object))
                return bad_params(ret_code, msg, size, -EINVAL,
                                  "Invalid arguments for %s: \"env\" must be an object of NAME: string", d->name);
        json_object_object_foreach(v, name, val) {
                _cleanup_free_ char *kv = NULL;
                const char *s = json_object_get_string(val);
                size_t len = (size_t)json_object_get_string_len(val);

                if (++count > ACS_MCP_ENV_MAX)
                        return bad_params(ret_code, msg, size, -ERANGE,
                                          "Invalid arguments for %s: \"env\" holds more than %d variables", d->name,
                                          ACS_MCP_ENV_MAX);
                if (!json_object_is_type(val, json_type_string) || (r = acs_mcp_env_check(name, s, len)) < 0)
                        return bad_params(ret_code, msg, size, -EINVAL,
                                          "Invalid arguments for %s: \"env\" entry \"%.*s\": a name is "
                                          "[A-Za-z_][A-Za-z0-9_]* of at most %d bytes, a value a string of at most "
                                          "%u bytes without NUL",
                                          d->name, acs_jrpc_utf8_prefix(name, 64), name, ACS_MCP_ENV_NAME_MAX,
                                          ACS_MCP_ENV_VALUE_MAX);
                total += strlen(name) + 1 + len;
                if (total > ACS_MCP_ENV_TOTAL_MAX)
                        return bad_params(ret_code, msg, size, -ERANGE,
                                          "Invalid arguments for %s: \"env\" is over %u KiB in all", d->name,
                                          ACS_MCP_ENV_TOTAL_MAX >> 10);
                if (asprintf(&kv, "%s=%s", name, s) < 0 || acs_strv_push(&c->env, kv) < 0)
                        return -ENOMEM;
        }
        return 0;
}

static int parse_arguments(const acs_mcp_policy *pol, const struct tool_def *d, acs_mcp_tool tool,
                           struct json_object *args, acs_mcp_call *c, int *ret_code, char *msg, size_t size)
{
        const char *main_key = tool == ACS_TOOL_COMMAND ? "command" : "code";
        struct json_object *v;

        if (args && !json_object_is_type(args, json_type_object))
                return bad_params(ret_code, msg, size, -EPROTO,
                                  "Invalid arguments for %s: \"arguments\" must be an object", d->name);
        if (args) {
                json_object_object_foreach(args, key, val) {
                        bool known = strcmp(key, main_key) == 0 ||
                                     (tool != ACS_TOOL_INSPECT && strcmp(key, "timeout") == 0) ||
                                     (tool != ACS_TOOL_INSPECT && is_limit_key(key)) ||
                                     (tool != ACS_TOOL_INSPECT && strcmp(key, "patch") == 0) ||
                                     (tool == ACS_TOOL_COMMAND && (strcmp(key, "cwd") == 0 || strcmp(key, "env") == 0)) ||
                                     strcmp(key, "profile") == 0;
                        (void)val;
                        if (!known)
                                return bad_params(ret_code, msg, size, -EINVAL,
                                                  "Invalid arguments for %s: unknown argument \"%.*s\" "
                                                  "(see inputSchema)",
                                                  d->name, acs_jrpc_utf8_prefix(key, 64), key);
                }
        }

        if (!args || !json_object_object_get_ex(args, main_key, &v))
                return bad_params(ret_code, msg, size, -EINVAL,
                                  "Invalid arguments for %s: \"%s\" (string) is required", d->name, main_key);
        if (!json_object_is_type(v, json_type_string))
                return bad_params(ret_code, msg, size, -EINVAL,
                                  "Invalid arguments for %s: \"%s\" must be a string", d->name, main_key);
        c->code_len = (size_t)json_object_get_string_len(v);
        /* a NUL would cut the code short: the scan and the run would see less than was sent */
        if (strlen(json_object_get_string(v)) != c->code_len)
                return bad_params(ret_code, msg, size, -EINVAL,
                                  "Invalid arguments for %s: \"%s\" must not contain NUL (U+0000)", d->name, main_key);
        c->code = malloc(c->code_len + 1);
        if (!c->code)
                return -ENOMEM;
        memcpy(c->code, json_object_get_string(v), c->code_len + 1);

        if (json_object_object_get_ex(args, "timeout", &v)) {
                double t = json_object_get_double(v);

                if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
                        return bad_params(ret_code, msg, size, -EINVAL,
                                          "Invalid arguments for %s: \"timeout\" must be a number of seconds",
                                          d->name);
                if (!isfinite(t) || t <= 0)
                        return bad_params(ret_code, msg, size, -ERANGE,
                                          "Invalid arguments for %s: \"timeout\" must be > 0 seconds", d->name);
                if (t > pol->max_timeout)
                        return bad_params(ret_code, msg, size, -EACCES,
                                          "Not allowed: a timeout of %g s is over this server's limit of %g s "
                                          "(its operator sets --max-timeout). Pass a timeout of at most %g s, "
                                          "or none for the profile's own.",
                                          t, pol->max_timeout, pol->max_timeout);
                c->has_timeout = true;
                c->timeout = t;
        }
        if (tool != ACS_TOOL_INSPECT) {
                int r = parse_limits(d, args, c, ret_code, msg, size);
                if (r < 0)
                        return r;
        }
        if (json_object_object_get_ex(args, "patch", &v)) {
                if (!json_object_is_type(v, json_type_boolean))
                        return bad_params(ret_code, msg, size, -EINVAL,
                                          "Invalid arguments for %s: \"patch\" must be true or false", d->name);
                c->patch = json_object_get_boolean(v);
        }
        if (json_object_object_get_ex(args, "profile", &v)) {
                const char *p = json_object_get_string(v);
                char allowed[400];

                if (!json_object_is_type(v, json_type_string))
                        return bad_params(ret_code, msg, size, -EINVAL,
                                          "Invalid arguments for %s: \"profile\" must be a string", d->name);
                /*
                 * Only the operator's names, compared whole: the client's
                 * string never reaches a file lookup (a path or "x.ini" would
                 * let it pick any file on the host, its cwd's included).
                 */
                if (strlen(p) != (size_t)json_object_get_string_len(v) ||
                    !(acs_mcp_policy_allows(pol, p) || (tool == ACS_TOOL_COMMAND && strcmp(p, "shell") == 0)))
                        return bad_params(ret_code, msg, size, -EACCES,
                                          "Not allowed: profile \"%.*s\" is not allowed on this server; it allows "
                                          "%s%s (omit \"profile\" for %s).",
                                          acs_jrpc_utf8_prefix(p, 64), p, tool == ACS_TOOL_COMMAND ? "shell, " : "",
                                          allowed_list(pol, allowed, sizeof(allowed)),
                                          tool == ACS_TOOL_COMMAND ? "shell" : pol->profiles[0]);
                c->profile = strdup(p);
                if (!c->profile)
                        return -ENOMEM;
        }
        return tool == ACS_TOOL_COMMAND ? parse_command_extras(d, args, c, ret_code, msg, size) : 0;
}

int acs_mcp_parse_call(const acs_mcp_policy *pol, struct json_object *params, acs_mcp_call *ret, int *ret_code,
                       char *ret_msg, size_t msg_size)
{
        struct json_object *v, *args = NULL;
        acs_mcp_call c = { 0 };
        const char *name;
        size_t i;
        int r;

        if (!json_object_is_type(params, json_type_object) || !json_object_object_get_ex(params, "name", &v) ||
            !json_object_is_type(v, json_type_string))
                return bad_params(ret_code, ret_msg, msg_size, -EPROTO,
                                  "Invalid params: tools/call needs {\"name\": string, \"arguments\": object}");
        name = json_object_get_string(v);
        for (i = 0; i < ELEMENTSOF(tool_defs); i++)
                if (strlen(name) == (size_t)json_object_get_string_len(v) && strcmp(name, tool_defs[i].name) == 0)
                        break;
        if (i == ELEMENTSOF(tool_defs))
                return bad_params(ret_code, ret_msg, msg_size, -ENOENT,
                                  "Unknown tool: %.*s (available: execute_python, execute_command, "
                                  "inspect_code_security)", acs_jrpc_utf8_prefix(name, 100), name);
        c.tool = (acs_mcp_tool)i;
        json_object_object_get_ex(params, "arguments", &args);
        if (json_object_is_type(args, json_type_null))
                args = NULL;
        r = parse_arguments(pol, &tool_defs[i], c.tool, args, &c, ret_code, ret_msg, msg_size);
        if (r < 0) {
                acs_mcp_call_done(&c);
                return r;
        }
        *ret = c;
        return 0;
}

/* ---- results ---------------------------------------------------------- */

static struct json_object *text_result(const char *text, struct json_object *structured, bool is_error)
{
        struct json_object *r = json_object_new_object(), *content = json_object_new_array(),
                           *item = json_object_new_object();

        json_object_object_add(item, "type", json_object_new_string("text"));
        json_object_object_add(item, "text", json_object_new_string(text));
        json_object_array_add(content, item);
        json_object_object_add(r, "content", content);
        if (structured)
                json_object_object_add(r, "structuredContent", structured);
        json_object_object_add(r, "isError", json_object_new_boolean(is_error));
        return r;
}

struct json_object *acs_mcp_error_result(const char *message)
{
        return text_result(message, NULL, true);
}

struct json_object *acs_mcp_progress_token(struct json_object *params)
{
        struct json_object *meta, *tok;

        if (!json_object_is_type(params, json_type_object) || !json_object_object_get_ex(params, "_meta", &meta) ||
            !json_object_object_get_ex(meta, "progressToken", &tok))
                return NULL;
        if (!json_object_is_type(tok, json_type_string) && !json_object_is_type(tok, json_type_int))
                return NULL;
        return json_object_get(tok);
}

struct json_object *acs_mcp_progress_message(struct json_object *token, uint64_t elapsed_ms, uint64_t *last)
{
        struct json_object *m = json_object_new_object(), *p = json_object_new_object();
        uint64_t secs = elapsed_ms / 1000, progress = secs > *last ? secs : *last + 1;
        char msg[64];

        if (!m || !p) {
                json_object_put(m);
                json_object_put(p);
                return NULL;
        }
        *last = progress;
        snprintf(msg, sizeof msg, "running for %llu s", (unsigned long long)secs);
        json_object_object_add(p, "progressToken", json_object_get(token));
        json_object_object_add(p, "progress", json_object_new_uint64(progress));
        json_object_object_add(p, "message", json_object_new_string(msg));
        json_object_object_add(m, "jsonrpc", json_object_new_string("2.0"));
        json_object_object_add(m, "method", json_object_new_string("notifications/progress"));
        json_object_object_add(m, "params", p);
        return m;
}

/* What the model should do next, for the outcomes it can fix: only what the server allows. */
static char *hint(const acs_report *r, const acs_mcp_policy *pol, double timeout_cap)
{
        char *h = NULL, others[400];
        size_t n = 0;
        int k = 0;

        switch (r->status) {
        case ACS_STATUS_REJECTED:
                others[0] = '\0';
                for (size_t i = 0; pol->profiles[i]; i++)
                        if (!r->profile || strcmp(pol->profiles[i], r->profile) != 0)
                                n += (size_t)snprintf(others + n, n < sizeof(others) ? sizeof(others) - n : 0,
                                                      "%s%s", n ? ", " : "", pol->profiles[i]);
                if (n == 0)
                        k = asprintf(&h, "Nothing ran. Rewrite the code without the constructs listed above.\n");
                else
                        k = asprintf(&h, "Nothing ran. Rewrite the code without the constructs listed above, or "
                                         "pass a \"profile\" this server also allows (%s) if one fits the task.\n",
                                     others);
                break;
        case ACS_STATUS_TIMEOUT:
                if (r->limits.timeout_s > 0 && r->limits.timeout_s < timeout_cap)
                        k = asprintf(&h, "The program was killed at the time limit. Make it faster or pass a "
                                         "larger \"timeout\" (at most %g s on this server).\n", timeout_cap);
                else
                        k = asprintf(&h, "The program was killed at its time limit (%g s); this server allows at "
                                         "most %g s per call. Make it faster or split the work.\n",
                                     r->limits.timeout_s, timeout_cap);
                break;
        case ACS_STATUS_MEMORY:
                h = strdup("The program was killed at the memory limit. Use less memory.\n");
                break;
        case ACS_STATUS_CPU:
                /* a larger "timeout" would not help: say so, or the model asks for one */
                k = asprintf(&h, "The program was killed at the profile's CPU-time limit (%llu s of CPU); "
                                 "a larger \"timeout\" does not raise it. Make it do less work.\n",
                             (unsigned long long)r->limits.cpu_s);
                break;
        default:
                return NULL;
        }
        return k < 0 ? NULL : h;
}

struct json_object *acs_mcp_run_result(const acs_report *rep, const acs_mcp_policy *pol, double timeout_cap)
{
        struct json_object *structured = acs_report_to_json(rep), *r;
        bool failed = !(rep->status == ACS_STATUS_EXITED && rep->exit_code == 0);
        _cleanup_free_ char *h = hint(rep, pol, timeout_cap);
        _cleanup_free_ char *text = acs_mcp_run_text(rep, h);

        if (!structured || !text) {
                json_object_put(structured);
                return acs_mcp_error_result("acs-launch: out of memory building the result");
        }
        r = text_result(text, structured, failed);
        return r;
}

void acs_mcp_cut_patch(acs_changes *c, size_t max)
{
        static const char mark[] = "diff --git ";
        size_t keep = 0, cost = 0;

        if (!c->patch || acs_json_cost(c->patch, c->patch_len, NULL) <= max)
                return;
        /* Each file's diff starts a line with "diff --git "; hunk lines start with ' ', '+', '-' or '\\'
         * and binary literals are base85 (no space): no line inside a file's diff looks like one. */
        for (size_t at = 0; at < c->patch_len;) {
                const char *nl = memchr(c->patch + at, '\n', c->patch_len - at);
                size_t next = nl ? (size_t)(nl - c->patch) + 1 : c->patch_len;

                while (next < c->patch_len && strncmp(c->patch + next, mark, sizeof(mark) - 1) != 0) {
                        nl = memchr(c->patch + next, '\n', c->patch_len - next);
                        next = nl ? (size_t)(nl - c->patch) + 1 : c->patch_len;
                }
                cost += acs_json_cost_max(c->patch + at, next - at);
                if (cost > max)
                        break;
                keep = at = next;
        }
        c->patch[keep] = '\0';
        c->patch_len = keep;
        c->patch_truncated = true;
}

/* Drop the later half of a text, at a character boundary (the text is UTF-8). */
static bool clip_text(acs_stream_result *s)
{
        size_t keep = s->text_len / 2;

        if (!s->text || !s->text_len)
                return false;
        while (keep > 0 && ((unsigned char)s->text[keep] & 0xc0) == 0x80)
                keep--;
        s->omitted_bytes += s->text_len - keep;
        s->text_len = keep;
        s->text[keep] = '\0';
        s->truncated = true;
        return true;
}

/* One step of making the report smaller, least needed first; false when nothing is left. */
static bool clip_report(acs_report *rep)
{
        acs_changes *c = &rep->files;
        size_t most = c->n_added > c->n_modified ? c->n_added : c->n_modified;

        most = most > c->n_deleted ? most : c->n_deleted;
        if (rep->have_files && (c->patch || c->patch_skipped)) {
                acs_changes_clip(c, SIZE_MAX);
                return true;
        }
        if (rep->have_files && most) {
                acs_changes_clip(c, most / 2);
                return true;
        }
        if (rep->out.text_len >= rep->err.text_len)
                return clip_text(&rep->out) || clip_text(&rep->err);
        return clip_text(&rep->err) || clip_text(&rep->out);
}

struct json_object *acs_mcp_run_result_fit(acs_report *rep, size_t max, const acs_mcp_policy *pol,
                                           double timeout_cap)
{
        for (;;) {
                struct json_object *r = acs_mcp_run_result(rep, pol, timeout_cap);
                const char *line = r ? json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN |
                                                                                  JSON_C_TO_STRING_NOSLASHESCAPE)
                                     : NULL;

                if (!line || strlen(line) <= max)
                        return r;
                json_object_put(r);
                if (!clip_report(rep))
                        return acs_mcp_error_result("acs-launch: the report does not fit in an MCP result");
        }
}

struct json_object *acs_mcp_scan_result(const char *profile, const char *file, const acs_scan_result *scan)
{
        struct json_object *o = json_object_new_object(), *sj = acs_scan_result_to_json(scan);
        const char *verdict = acs_verdict_to_string(scan->verdict);
        char *text = NULL;
        size_t len = 0;
        FILE *f;

        if (!o || !sj) {
                json_object_put(o);
                json_object_put(sj);
                return NULL;
        }
        json_object_object_add(o, "schema", json_object_new_string("acs-check/1"));
        json_object_object_add(o, "profile", json_object_new_string(profile));
        json_object_object_add(o, "file", json_object_new_string(file));
        json_object_object_add(o, "scan", sj);

        f = open_memstream(&text, &len);
        if (!f) {
                json_object_put(o);
                return NULL;
        }
        if (scan->verdict == ACS_VERDICT_REJECT)
                fprintf(f, "Verdict: reject. Profile %s would refuse this code (%zu finding%s); nothing ran:\n",
                        profile, scan->n_findings, scan->n_findings == 1 ? "" : "s");
        else if (scan->n_findings > 0)
                fprintf(f, "Verdict: %s under profile %s, with %zu finding%s (the profile would still run it):\n",
                        verdict, profile, scan->n_findings, scan->n_findings == 1 ? "" : "s");
        else
                fprintf(f, "Verdict: %s under profile %s: no findings. Nothing ran.\n", verdict, profile);
        for (size_t i = 0; i < scan->n_findings; i++) {
                const acs_finding *x = &scan->findings[i];

                fprintf(f, "  line %d col %d: [%s] %s\n", x->line, x->col, x->rule ? x->rule : "",
                        x->message ? x->message : (x->name ? x->name : ""));
        }
        if (fclose(f) != 0) {
                free(text);
                json_object_put(o);
                return NULL;
        }
        {
                struct json_object *r = text_result(text, o, false);
                free(text);
                return r;
        }
}
