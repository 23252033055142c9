/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The per-call worker process of the MCP server. */
#pragma once

#include <signal.h>

#include "cli.h"
#include "mcp-tools.h"

struct json_object;

/* The longest result line the server takes from a worker; a worker makes its result fit. */
#define ACS_MCP_MAX_RESULT (64u << 20)

/*
 * Run one call and return its CallToolResult (never NULL except on
 * allocation failure): a run report, a scan result, or a tool error saying
 * what went wrong (unknown profile, a locked limit, a launcher failure).
 */
struct json_object *acs_mcp_execute(const acs_options *o, const acs_mcp_policy *pol, const acs_mcp_call *c,
                                    int cancel_fd);

/*
 * In the child after fork: become a process group leader, restore the
 * signal mask, tie our life to the server's, keep only our pipes, run the
 * call, write the result as one line to result_fd and _exit.
 */
_noreturn_ void acs_mcp_worker(const acs_options *o, const acs_mcp_policy *pol, const acs_mcp_call *c,
                               int result_fd, int cancel_fd, const sigset_t *mask, pid_t server);
