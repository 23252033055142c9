/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The server's side of `acs-launch --server` (cli-server.h, serve-cli.c). */
#pragma once

#include "cli.h"
#include "mcp-tools.h"
#include "profile.h"

struct json_object;

typedef struct acs_pool acs_pool;
typedef struct acs_run_warm acs_run_warm;

/*
 * In a serve connection process, once its client is stdin and stdout:
 * when the client's first line is the CLI's request, serve it (a run in a
 * ready sandbox of pool, or "run cold") and return 1: the connection is
 * done. 0: an MCP client, whose bytes are still unread. < 0: a signal on
 * sfd asked the server to stop first.
 */
int acs_serve_cli(const acs_options *o, const acs_mcp_policy *pol, acs_pool *pool, int sfd);

/* serve's master: where session runs go (cli-session.h), -1: nowhere. */
void acs_serve_cli_set_keeper(int fd);
/*
 * Why the server (options o, policy pol) cannot make the run of the CLI's
 * request params exactly as the CLI would, or NULL; fills c (pointing
 * into params) with the call it makes. why: room for a message.
 */
const char *acs_serve_cli_unfit(const acs_options *o, const acs_mcp_policy *pol, struct json_object *params,
                                acs_mcp_call *c, char *why, size_t size);
/*
 * In a pooled worker that got call line (pool.c): when the line carries
 * the CLI's part, finish the warm run w as the CLI's cold run would, on
 * the CLI's stdout and stderr (sent on fd_sock), write the exit status
 * line to result_fd and exit. Returns only for other calls.
 */
void acs_serve_cli_worker(const char *line, int fd_sock, acs_run_warm *w, const acs_profile *p,
                          const acs_mcp_call *c, int cancel_fd, int result_fd);
