/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The MCP side of acs-launch that involves no I/O: protocol version
 * negotiation, the initialize result, the tool list with its schemas,
 * validation of tools/call arguments, and the conversion of a run report or
 * a scan result into a CallToolResult (text summary + structuredContent).
 */
#pragma once

#include "common.h"
#include "diff.h"
#include "report.h"

struct json_object;

#define ACS_MCP_LATEST_VERSION "2025-11-25"
/* A call whose request carries _meta.progressToken gets notifications/progress this often while it runs. */
#define ACS_MCP_PROGRESS_MS 1000u
/* The most of a patch a result carries, JSON-encoded ("patch": true); the rest is cut at a file boundary. */
#define ACS_MCP_PATCH_CAP (64u << 10)

typedef enum {
        ACS_TOOL_PYTHON, ACS_TOOL_COMMAND, ACS_TOOL_INSPECT,
        ACS_TOOL_WRITE_FILE, ACS_TOOL_READ_FILE /* a session's files (mcp-files.c) */
} acs_mcp_tool;

typedef struct acs_mcp_call {
        acs_mcp_tool tool;
        char *code;     /* execute_python/inspect: source; execute_command: the command line */
        size_t code_len;
        bool has_timeout;
        double timeout; /* seconds */
        char *profile;  /* NULL: the server's default for the tool */
        /* limits the call asks for; tighten-only against the profile (mcp-worker.c) */
        bool has_cpu, has_memory, has_processes, has_open_files;
        uint64_t cpu;   /* seconds, rounded up */
        uint64_t memory, processes, open_files;
        bool patch;     /* "patch": true - the result carries files.patch, cut to ACS_MCP_PATCH_CAP */
        /* execute_command: */
        char *cwd;      /* NULL, or the working directory: "/workspace" or below it, no ".." */
        char **env;     /* NULL, or "NAME=VALUE" entries (acs_mcp_env_check) */
        /* write_file, read_file: the path; code is write_file's content as the client sent it */
        char *path;
        bool base64;    /* "encoding": "base64" (else UTF-8 text) */
} acs_mcp_call;

/* Bounds on execute_command's "env": what a call may add to the sandbox's environment. */
#define ACS_MCP_ENV_MAX 64
#define ACS_MCP_ENV_NAME_MAX 128
#define ACS_MCP_ENV_VALUE_MAX (32u << 10)
#define ACS_MCP_ENV_TOTAL_MAX (128u << 10)

void acs_mcp_call_done(acs_mcp_call *c);
/* One "env" entry: 0, -EINVAL (name not [A-Za-z_][A-Za-z0-9_]*, or too long), -ERANGE (value too long or with NUL). */
int acs_mcp_env_check(const char *name, const char *value, size_t value_len);

/*
 * The operator's policy (acs-launch mcp --profile, --allow-profile,
 * --max-timeout), which the client's arguments cannot widen. A client's
 * "profile" is compared with these names and never used otherwise; the
 * server loads the one chosen (see acs_mcp_policy_load in mcp-policy.h).
 */
typedef struct acs_mcp_policy {
        char **profiles;     /* names a client may pass; [0] stands for the server's --profile */
        char **descriptions; /* each profile's description ("" if none), for the inputSchema */
        const char *default_ref; /* the --profile as the operator gave it (NAME or PATH) */
        double max_timeout;  /* cap on a call's "timeout", seconds, > 0 */
} acs_mcp_policy;

void acs_mcp_policy_done(acs_mcp_policy *pol);
bool acs_mcp_policy_allows(const acs_mcp_policy *pol, const char *name);

/* The version to answer with: the client's if supported, else our latest. */
const char *acs_mcp_negotiate_version(const char *requested);

/* Result objects; NULL only on allocation failure. Caller owns (json_object_put). */
struct json_object *acs_mcp_initialize_result(const char *version, const char *server_version);
/* The tools' inputSchema advertises exactly what pol allows (profile enum, timeout maximum). */
struct json_object *acs_mcp_tools_list_result(const acs_mcp_policy *pol);
/*
 * Append one line to execute_python's and inspect_code_security's
 * descriptions in a tools/list result: the modules the server's profile
 * allows, so a model learns the policy before its first call.
 */
void acs_mcp_tools_describe_policy(struct json_object *list, const char *profile, char *const *allow_imports);

/*
 * Whether a tool's argument validation error is a tool execution error
 * (a CallToolResult with isError, which the model sees and can correct)
 * rather than a JSON-RPC -32602: so from protocol 2025-11-25 on (SEP-1303).
 * NULL (no initialize yet) counts as the latest.
 */
bool acs_mcp_input_errors_are_tool_errors(const char *version);

/*
 * Validate tools/call params. On failure returns a negative errno, with
 * *ret_code (-32602) and a message in ret_msg (size msg_size):
 *   -EPROTO          the request itself is malformed (no tool name,
 *                    "arguments" not an object): always a JSON-RPC error;
 *   -ENOENT          unknown tool: always a JSON-RPC error;
 *   -EINVAL, -ERANGE the arguments do not satisfy the tool's inputSchema:
 *                    see acs_mcp_input_errors_are_tool_errors();
 *   -EACCES          a profile or timeout the server's policy does not allow:
 *                    always a tool error (isError), which the model can act on.
 */
int acs_mcp_parse_call(const acs_mcp_policy *pol, struct json_object *params, acs_mcp_call *ret, int *ret_code,
                       char *ret_msg, size_t msg_size);

/*
 * CallToolResult for a finished run (text: acs_mcp_run_text() plus what to
 * do next, suggesting only what pol allows, a timeout up to timeout_cap;
 * isError unless it exited 0), a scan, or a failure before any report.
 */
struct json_object *acs_mcp_run_result(const acs_report *rep, const acs_mcp_policy *pol, double timeout_cap);
/*
 * The same, at most max bytes once serialised as one line: when it is
 * longer, rep is clipped - first the patch, then the file lists (halved
 * until they fit, what goes counted in files.omitted), then the output
 * texts (their heads kept) - and the result built again. The report's
 * status, exit code and counts always come back.
 */
struct json_object *acs_mcp_run_result_fit(acs_report *rep, size_t max, const acs_mcp_policy *pol,
                                           double timeout_cap);
/*
 * The text summary of a run for the model (pure; valid UTF-8; caller frees,
 * NULL on allocation failure): our status line and findings, then each
 * stream under a header line with its byte count, fenced by more backticks
 * than any run of backticks in it, so nothing the program prints can pass
 * for a line of ours; then the changed files (names escaped onto one line)
 * and hint, if any.
 */
char *acs_mcp_run_text(const acs_report *rep, const char *hint);
/*
 * Cut c->patch to its first files, so that its JSON-encoded size is at
 * most max bytes (always at a "diff --git" line: what is left applies as it
 * stands); c->patch_truncated says so. Nothing changes when it fits. Pure.
 */
void acs_mcp_cut_patch(acs_changes *c, size_t max);
/* inspect_code_security: structuredContent is what `acs-launch check --json` prints (acs-check/1). */
struct json_object *acs_mcp_scan_result(const char *profile, const char *file, const acs_scan_result *scan);
struct json_object *acs_mcp_error_result(const char *message);

/*
 * The request's _meta.progressToken (a string or an integer, as the MCP
 * spec allows) with a reference taken, or NULL when it has none or another
 * kind. Caller puts it.
 */
struct json_object *acs_mcp_progress_token(struct json_object *params);
/*
 * The notifications/progress message for a call running for elapsed_ms:
 * progress is the whole seconds (or, when a notification comes sooner than
 * a second after the last, one more than the last: it must increase),
 * written back into *last. NULL on allocation failure.
 */
struct json_object *acs_mcp_progress_message(struct json_object *token, uint64_t elapsed_ms, uint64_t *last);
