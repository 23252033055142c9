/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `acs-launch mcp`: the Model Context Protocol server on stdin/stdout. */
#pragma once

#include "cli.h"

/*
 * Serve until EOF on stdin, SIGTERM, SIGINT or SIGHUP. Each tools/call runs
 * in a forked worker process (at most o->max_concurrency, 0 = online CPUs),
 * which calls the engine and sends back the serialised result. Returns the
 * exit status (0 after a clean shutdown, 125 if the server could not start).
 */
int acs_mcp_main(const acs_options *o);

/*
 * The same server for `acs-launch serve` (serve.c): once the pool is
 * started, wait_client(ctx, signal_fd) waits for one client and makes it
 * stdin and stdout (< 0: a signal or a failure ends the server first).
 */
int acs_mcp_main_on(const acs_options *o, int (*wait_client)(void *ctx, int signal_fd), void *ctx);

/*
 * `acs-launch serve`: the same server on a unix socket (--socket PATH, mode
 * 0600, or the one systemd passes). Each connection is one client, served
 * by its own process which had its pool ready before it accepted; a new
 * such process is started as soon as one accepts. Returns the exit status.
 */
int acs_serve_main(const acs_options *o);
