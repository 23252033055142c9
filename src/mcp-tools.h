/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The MCP side of acs-launch that involves no I/O: protocol version
 * negotiation, the initialize result, the tool list with its schemas,
 * validation of tools/call arguments, and the conversion of a run report or
 * a scan result into a CallToolResult (text summary + structuredContent).
 */
#pragma once

#include "common.h"
#include "report.h"

struct json_object;

#define ACS_MCP_LATEST_VERSION "2025-11-25"

typedef enum { ACS_TOOL_PYTHON, ACS_TOOL_COMMAND, ACS_TOOL_INSPECT } acs_mcp_tool;

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
} acs_mcp_call;

void acs_mcp_call_done(acs_mcp_call *c);

/* The version to answer with: the client's if supported, else our latest. */
const char *acs_mcp_negotiate_version(const char *requested);

/* Result objects; NULL only on allocation failure. Caller owns (json_object_put). */
struct json_object *acs_mcp_initialize_result(const char *version, const char *server_version);
struct json_object *acs_mcp_tools_list_result(void);
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
 *                    see acs_mcp_input_errors_are_tool_errors().
 */
int acs_mcp_parse_call(struct json_object *params, acs_mcp_call *ret, int *ret_code, char *ret_msg,
                       size_t msg_size);

/*
 * CallToolResult for a finished run (text: acs_report_summary() plus what to
 * do next; isError unless it exited 0), a scan, or a failure before any report.
 */
struct json_object *acs_mcp_run_result(const acs_report *rep);
/* inspect_code_security: structuredContent is what `acs-launch check --json` prints (acs-check/1). */
struct json_object *acs_mcp_scan_result(const char *profile, const char *file, const acs_scan_result *scan);
struct json_object *acs_mcp_error_result(const char *message);
