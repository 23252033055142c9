/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The MCP tools write_file and read_file (issue 14, item 4): a file into a
 * session's /workspace, or one out of it, as UTF-8 text or base64, at most
 * ACS_SESSION_FILE_MAX bytes. They need a session: write_file starts one
 * (so that inputs can go in before the first call), read_file needs one
 * that exists. The I/O itself is the session's interpreter's, inside its
 * sandbox (session-files.h).
 */
#pragma once

#include "mcp-session.h"
#include "run.h"

struct json_object;

/*
 * tools/call params (the "session" argument already taken into session, or
 * NULL): 0 when the tool is not a file tool; 1 when it is and *c is the
 * call; < 0 a tool error, said in msg.
 */
int acs_files_parse(acs_sessions *S, const char *session, struct json_object *params, acs_mcp_call *c, char *msg,
                    size_t size);
/* In the session's worker: do call c (a file tool) in w's sandbox; its CallToolResult. */
struct json_object *acs_files_call(acs_run_warm *w, const acs_mcp_call *c);
/* The two tools, into a tools/list result. */
void acs_files_describe(struct json_object *list);
