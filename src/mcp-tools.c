/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * MCP tool definitions, argument validation and result building (pure).
 *
 * The schemas are JSON text embedded here so that tools/list is exactly what
 * a reader of this file sees. They avoid "$schema"/"$id": clients compile
 * outputSchema with their own validator (the TypeScript SDK uses Ajv) and
 * must not need to fetch or know a meta-schema. The report schema is lenient
 * where the report may say null, so that a client which validates
 * structuredContent (the SDK does) never rejects an honest report.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "jsonrpc.h"
#include "mcp-tools.h"

static const char *const supported_versions[] = { "2025-06-18", "2025-03-26", "2024-11-05" };

const char *acs_mcp_negotiate_version(const char *requested)
{
        for (size_t i = 0; requested && i < ELEMENTSOF(supported_versions); i++)
                if (strcmp(requested, supported_versions[i]) == 0)
                        return supported_versions[i];
        return ACS_MCP_LATEST_VERSION;
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
        json_object_object_add(r, "protocolVersion", json_object_new_string(version));
        json_object_object_add(r, "capabilities", caps);
        json_object_object_add(r, "serverInfo", info);
        json_object_object_add(r, "instructions", json_object_new_string(instructions));
        return r;
}

/* ---- schemas ---------------------------------------------------------- */

#define TIMEOUT_PROP                                                                                  \
        "\"timeout\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"maximum\":86400,"                  \
        "\"description\":\"Wall-clock limit in seconds; overrides the profile's timeout "             \
        "(a profile may lock it)\"}"
#define PROFILE_PROP(what)                                                                            \
        "\"profile\":{\"type\":\"string\",\"pattern\":\"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$\","         \
        "\"description\":\"Policy profile name " what "\"}"

static const char python_input[] =
        "{\"type\":\"object\",\"properties\":{"
        "\"code\":{\"type\":\"string\",\"description\":\"Python 3 source, run like python3 -c "
        "in a fresh sandbox with /workspace as the working directory\"},"
        TIMEOUT_PROP ","
        PROFILE_PROP("(default: the server's --profile, normally 'default'; others: pure-math, "
                     "unsafe-python)")
        "},\"required\":[\"code\"],\"additionalProperties\":false}";

static const char command_input[] =
        "{\"type\":\"object\",\"properties\":{"
        "\"command\":{\"type\":\"string\",\"description\":\"Shell command line, run by /bin/sh -c "
        "under the 'shell' profile in a fresh sandbox\"},"
        TIMEOUT_PROP
        "},\"required\":[\"command\"],\"additionalProperties\":false}";

static const char inspect_input[] =
        "{\"type\":\"object\",\"properties\":{"
        "\"code\":{\"type\":\"string\",\"description\":\"Python 3 source to check; nothing runs\"},"
        PROFILE_PROP("whose rules apply (default: the server's --profile)")
        "},\"required\":[\"code\"],\"additionalProperties\":false}";

#define NUM_OR_NULL "{\"type\":[\"number\",\"null\"]}"
#define INT_OR_NULL "{\"type\":[\"integer\",\"null\"]}"
#define FINDING_SCHEMA                                                                                \
        "{\"type\":\"object\",\"properties\":{\"rule\":{\"type\":\"string\"},"                       \
        "\"name\":{\"type\":[\"string\",\"null\"]},\"line\":{\"type\":[\"integer\",\"null\"]},"       \
        "\"col\":{\"type\":[\"integer\",\"null\"]},\"message\":{\"type\":\"string\"}},"               \
        "\"required\":[\"rule\",\"message\"]}"
#define STREAM_SCHEMA                                                                                 \
        "{\"type\":[\"object\",\"null\"],\"properties\":{\"text\":{\"type\":[\"string\",\"null\"]}," \
        "\"bytes\":" INT_OR_NULL ",\"tokens\":" INT_OR_NULL ","                                     \
        "\"truncated\":{\"type\":[\"boolean\",\"null\"]},\"omitted_bytes\":" INT_OR_NULL "}}"
#define SCAN_PROPS                                                                                    \
        "\"verdict\":{\"type\":\"string\",\"enum\":[\"pass\",\"reject\",\"warn\",\"skipped\"]},"     \
        "\"ms\":" NUM_OR_NULL ","                                                                     \
        "\"findings\":{\"type\":\"array\",\"items\":" FINDING_SCHEMA "}"
#define FILE_LIST "{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"             \
        "\"path\":{\"type\":\"string\"},\"type\":{\"type\":\"string\"}},\"required\":[\"path\"]}}"

/* Mirrors doc/report.schema.json (interfaces.md §3), acs-report/1. */
static const char report_output[] =
        "{\"type\":\"object\",\"description\":\"acs-launch run report (acs-report/1)\","
        "\"properties\":{"
        "\"schema\":{\"type\":\"string\",\"const\":\"" ACS_REPORT_SCHEMA "\"},"
        "\"status\":{\"type\":\"string\",\"enum\":[\"exited\",\"timeout\",\"signaled\",\"memory\","
        "\"rejected\",\"error\"]},"
        "\"exit_code\":{\"type\":[\"integer\",\"null\"]},"
        "\"signal\":{\"type\":[\"integer\",\"string\",\"null\"]},"
        "\"profile\":{\"type\":[\"string\",\"null\"]},"
        "\"scan\":{\"type\":[\"object\",\"null\"],\"properties\":{" SCAN_PROPS "}},"
        "\"stdout\":" STREAM_SCHEMA ","
        "\"stderr\":" STREAM_SCHEMA ","
        "\"files\":{\"type\":[\"object\",\"null\"],\"properties\":{\"added\":" FILE_LIST
        ",\"modified\":" FILE_LIST ",\"deleted\":" FILE_LIST
        ",\"patch\":{\"type\":[\"string\",\"null\"]}}},"
        "\"limits\":{\"type\":[\"object\",\"null\"]},"
        "\"usage\":{\"type\":[\"object\",\"null\"]},"
        "\"timings\":{\"type\":[\"object\",\"null\"]},"
        "\"error\":{\"type\":[\"string\",\"null\"]}"
        "},\"required\":[\"schema\",\"status\"]}";

static const char scan_output[] =
        "{\"type\":\"object\",\"description\":\"acs-launch scan result (acs-scan/1)\","
        "\"properties\":{\"schema\":{\"type\":\"string\",\"const\":\"acs-scan/1\"},"
        "\"profile\":{\"type\":\"string\"}," SCAN_PROPS "},"
        "\"required\":[\"schema\",\"verdict\",\"findings\"]}";

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
                python_input, report_output, false },
        [ACS_TOOL_COMMAND] = {
                "execute_command", "Run a shell command in a sandbox",
                "Run a shell command with /bin/sh -c in a fresh, isolated sandbox (profile 'shell': "
                "/bin/sh and coreutils, no network, a private /workspace) and return its clipped "
                "output and a report.",
                command_input, report_output, false },
        [ACS_TOOL_INSPECT] = {
                "inspect_code_security", "Check Python code against a profile",
                "Check Python 3 code against a profile's rules without running it: returns the "
                "verdict and each finding (rule, name, line, column, message).",
                inspect_input, scan_output, true },
};

static struct json_object *tool_to_json(const struct tool_def *d)
{
        struct json_object *t = json_object_new_object(), *ann = json_object_new_object();

        json_object_object_add(t, "name", json_object_new_string(d->name));
        json_object_object_add(t, "title", json_object_new_string(d->title));
        json_object_object_add(t, "description", json_object_new_string(d->description));
        json_object_object_add(t, "inputSchema", json_tokener_parse(d->input));
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

struct json_object *acs_mcp_tools_list_result(void)
{
        struct json_object *r = json_object_new_object(), *arr = json_object_new_array();

        if (!r || !arr) {
                json_object_put(r);
                json_object_put(arr);
                return NULL;
        }
        for (size_t i = 0; i < ELEMENTSOF(tool_defs); i++)
                json_object_array_add(arr, tool_to_json(&tool_defs[i]));
        json_object_object_add(r, "tools", arr);
        return r;
}

/* ---- tools/call arguments --------------------------------------------- */

void acs_mcp_call_done(acs_mcp_call *c)
{
        free(c->code);
        free(c->profile);
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

static bool profile_name_ok(const char *s, size_t len)
{
        if (len == 0 || len > 64 || s[0] == '.' || s[0] == '-' || s[0] == '_')
                return false;
        for (size_t i = 0; i < len; i++)
                if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", s[i]) ||
                    s[i] == '\0')
                        return false;
        return true;
}

static int parse_arguments(const struct tool_def *d, acs_mcp_tool tool, struct json_object *args,
                           acs_mcp_call *c, int *ret_code, char *msg, size_t size)
{
        const char *main_key = tool == ACS_TOOL_COMMAND ? "command" : "code";
        struct json_object *v;

        if (args && !json_object_is_type(args, json_type_object))
                return bad_params(ret_code, msg, size, -EINVAL,
                                  "Invalid arguments for %s: \"arguments\" must be an object", d->name);
        if (args) {
                json_object_object_foreach(args, key, val) {
                        bool known = strcmp(key, main_key) == 0 ||
                                     (tool != ACS_TOOL_INSPECT && strcmp(key, "timeout") == 0) ||
                                     (tool != ACS_TOOL_COMMAND && strcmp(key, "profile") == 0);
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
        if (tool == ACS_TOOL_COMMAND && strlen(json_object_get_string(v)) != c->code_len)
                return bad_params(ret_code, msg, size, -EINVAL,
                                  "Invalid arguments for %s: \"command\" must not contain NUL", d->name);
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
                if (!isfinite(t) || t <= 0 || t > 86400)
                        return bad_params(ret_code, msg, size, -ERANGE,
                                          "Invalid arguments for %s: \"timeout\" must be > 0 and <= 86400 seconds",
                                          d->name);
                c->has_timeout = true;
                c->timeout = t;
        }
        if (json_object_object_get_ex(args, "profile", &v)) {
                const char *p = json_object_get_string(v);

                /* Names only: a path would let a client pick any .ini file on the host. */
                if (!json_object_is_type(v, json_type_string) ||
                    !profile_name_ok(p, (size_t)json_object_get_string_len(v)))
                        return bad_params(ret_code, msg, size, -EINVAL,
                                          "Invalid arguments for %s: \"profile\" must be a profile name "
                                          "(letters, digits, '.', '_', '-'; not a path)", d->name);
                c->profile = strdup(p);
                if (!c->profile)
                        return -ENOMEM;
        }
        return 0;
}

int acs_mcp_parse_call(struct json_object *params, acs_mcp_call *ret, int *ret_code, char *ret_msg,
                       size_t msg_size)
{
        struct json_object *v, *args = NULL;
        acs_mcp_call c = { 0 };
        const char *name;
        size_t i;
        int r;

        if (!json_object_is_type(params, json_type_object) || !json_object_object_get_ex(params, "name", &v) ||
            !json_object_is_type(v, json_type_string))
                return bad_params(ret_code, ret_msg, msg_size, -EINVAL,
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
        r = parse_arguments(&tool_defs[i], c.tool, args, &c, ret_code, ret_msg, msg_size);
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

struct json_object *acs_mcp_run_result(const acs_report *rep)
{
        struct json_object *structured = acs_report_to_json(rep);
        bool failed = !(rep->status == ACS_STATUS_EXITED && rep->exit_code == 0);
        char *text = acs_mcp_summary(rep);
        struct json_object *r;

        if (!structured || !text) {
                json_object_put(structured);
                free(text);
                return acs_mcp_error_result("acs-launch: out of memory building the result");
        }
        r = text_result(text, structured, failed);
        free(text);
        return r;
}

static const char *verdict_name(acs_verdict v)
{
        switch (v) {
        case ACS_VERDICT_PASS:
                return "pass";
        case ACS_VERDICT_REJECT:
                return "reject";
        case ACS_VERDICT_WARN:
                return "warn";
        case ACS_VERDICT_SKIPPED:
        default:
                return "skipped";
        }
}

/* Append bytes as readable UTF-8: invalid bytes and control characters become \xNN. */
static void put_escaped(FILE *f, const char *s, size_t len, bool keep_newlines)
{
        const unsigned char *p = (const unsigned char *)s, *end = p + len;

        while (p < end) {
                size_t n = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 :
                           (*p & 0xf8) == 0xf0 ? 4 : 0;
                bool valid = n > 0 && (size_t)(end - p) >= n && !(n == 2 && *p < 0xc2);

                for (size_t i = 1; valid && i < n; i++)
                        valid = (p[i] & 0xc0) == 0x80;
                if (valid && n == 1 && (*p < 0x20 || *p == 0x7f) &&
                    !(keep_newlines && (*p == '\n' || *p == '\t')))
                        valid = false;
                if (!valid) {
                        fprintf(f, "\\x%02x", *p++);
                        continue;
                }
                fwrite(p, 1, n, f);
                p += n;
        }
}

static void put_findings(FILE *f, const acs_scan_result *scan)
{
        for (size_t i = 0; i < scan->n_findings; i++) {
                const acs_finding *x = &scan->findings[i];

                fprintf(f, "- line %d, col %d: ", x->line, x->col);
                put_escaped(f, x->message ? x->message : "", strlen(x->message ? x->message : ""), false);
                fprintf(f, " [%s%s%s]\n", x->rule ? x->rule : "finding", x->name ? ": " : "",
                        x->name ? x->name : "");
        }
}

struct json_object *acs_mcp_scan_result(const char *profile, const acs_scan_result *scan)
{
        struct json_object *o = json_object_new_object(), *arr = json_object_new_array(), *r;
        char *text = NULL;
        size_t len = 0;
        FILE *f;

        json_object_object_add(o, "schema", json_object_new_string("acs-scan/1"));
        json_object_object_add(o, "profile", json_object_new_string(profile));
        json_object_object_add(o, "verdict", json_object_new_string(verdict_name(scan->verdict)));
        json_object_object_add(o, "ms", json_object_new_double(scan->ms));
        for (size_t i = 0; i < scan->n_findings; i++) {
                const acs_finding *x = &scan->findings[i];
                struct json_object *fo = json_object_new_object();

                json_object_object_add(fo, "rule", json_object_new_string(x->rule ? x->rule : "finding"));
                json_object_object_add(fo, "name", x->name ? json_object_new_string(x->name) : NULL);
                json_object_object_add(fo, "line", json_object_new_int(x->line));
                json_object_object_add(fo, "col", json_object_new_int(x->col));
                json_object_object_add(fo, "message", json_object_new_string(x->message ? x->message : ""));
                json_object_array_add(arr, fo);
        }
        json_object_object_add(o, "findings", arr);

        f = open_memstream(&text, &len);
        if (!f) {
                json_object_put(o);
                return NULL;
        }
        if (scan->verdict == ACS_VERDICT_REJECT)
                fprintf(f, "Verdict: reject. Profile %s would refuse this code (%zu finding%s); nothing ran:\n",
                        profile, scan->n_findings, scan->n_findings == 1 ? "" : "s");
        else if (scan->n_findings > 0)
                fprintf(f, "Verdict: %s under profile %s, with %zu warning%s:\n", verdict_name(scan->verdict),
                        profile, scan->n_findings, scan->n_findings == 1 ? "" : "s");
        else
                fprintf(f, "Verdict: %s under profile %s: no findings; nothing ran.\n",
                        verdict_name(scan->verdict), profile);
        put_findings(f, scan);
        fclose(f);
        r = text_result(text ? text : "", o, false);
        free(text);
        return r;
}

static void put_stream(FILE *f, const char *name, const acs_stream_result *s)
{
        if (s->bytes == 0 && s->text_len == 0)
                return;
        fprintf(f, "--- %s (%llu bytes", name, (unsigned long long)s->bytes);
        if (s->truncated)
                fprintf(f, "; TRUNCATED: %llu bytes, %llu lines omitted from the middle",
                        (unsigned long long)s->omitted_bytes, (unsigned long long)s->omitted_lines);
        fputs(") ---\n", f);
        if (s->text) {
                put_escaped(f, s->text, s->text_len, true);
                if (s->text_len > 0 && s->text[s->text_len - 1] != '\n')
                        fputc('\n', f);
        }
}

static void put_changes(FILE *f, const char *what, const acs_change *c, size_t n)
{
        const size_t shown = 20;

        if (n == 0)
                return;
        fprintf(f, "%s:", what);
        for (size_t i = 0; i < n && i < shown; i++) {
                fputs(i ? ", " : " ", f);
                put_escaped(f, c[i].path, c[i].path_len, false);
                if (c[i].type == ACS_FT_FILE)
                        fprintf(f, " (%llu bytes)", (unsigned long long)c[i].size);
                else if (c[i].type == ACS_FT_DIR)
                        fputc('/', f);
        }
        if (n > shown)
                fprintf(f, " and %zu more", n - shown);
        fputc('\n', f);
}

static void put_verdict(FILE *f, const acs_report *r)
{
        const char *profile = r->profile ? r->profile : "?";
        const char *sig = r->signal > 0 ? sigabbrev_np(r->signal) : NULL;

        switch (r->status) {
        case ACS_STATUS_EXITED:
                fprintf(f, "Exit status %d (profile %s, %.1f ms).\n", r->exit_code, profile, r->wall_ms);
                break;
        case ACS_STATUS_TIMEOUT:
                fprintf(f, "TIMED OUT after %g s (wall-clock limit) and killed; profile %s. Make the code "
                        "faster or pass a larger \"timeout\".\n", r->limits.timeout_s, profile);
                break;
        case ACS_STATUS_SIGNALED:
                fprintf(f, "KILLED by signal %d (SIG%s); profile %s.\n", r->signal, sig ? sig : "?", profile);
                break;
        case ACS_STATUS_MEMORY:
                fprintf(f, "KILLED: memory limit of %llu MiB exceeded (enforced by %s); profile %s.\n",
                        (unsigned long long)(r->limits.memory >> 20),
                        r->limits.memory_enforced ? r->limits.memory_enforced : "?", profile);
                break;
        case ACS_STATUS_REJECTED:
                fprintf(f, "REFUSED by the security scan of profile %s; nothing ran. Rewrite the code without "
                        "these constructs (or use a profile that allows them):\n", profile);
                put_findings(f, &r->scan);
                break;
        case ACS_STATUS_ERROR:
        default:
                fputs("acs-launch could not run it: ", f);
                put_escaped(f, r->error ? r->error : "unknown error", strlen(r->error ? r->error : "unknown error"),
                            false);
                fputc('\n', f);
                break;
        }
}

char *acs_mcp_summary(const acs_report *r)
{
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);

        if (!f)
                return NULL;
        put_verdict(f, r);
        if (r->status != ACS_STATUS_REJECTED && r->scan.n_findings > 0) {
                fputs("Scan warnings:\n", f);
                put_findings(f, &r->scan);
        }
        put_stream(f, "stdout", &r->out);
        put_stream(f, "stderr", &r->err);
        if (r->status != ACS_STATUS_REJECTED && r->out.bytes == 0 && r->err.bytes == 0)
                fputs("(no output)\n", f);
        if (r->have_files) {
                put_changes(f, "Files added in /workspace", r->files.added, r->files.n_added);
                put_changes(f, "Files modified", r->files.modified, r->files.n_modified);
                put_changes(f, "Files deleted", r->files.deleted, r->files.n_deleted);
        }
        if (fclose(f) != 0) {
                free(text);
                return NULL;
        }
        return text;
}
