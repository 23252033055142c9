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
 * How `acs-launch serve` (serve.c) gives its connection process clients,
 * once the pool is started:
 *   wait(ctx, signal_fd): wait for one client and make it stdin and stdout:
 *       0; 1: a child ended meanwhile (the pool is reaped, then wait again);
 *       < 0: a signal or a failure ends the server;
 *   claim(ctx): this process is that client's until it ends (an MCP client,
 *       or a CLI's run that lasts): the listener starts the next one;
 *   release(ctx): the CLI's run is over and the client let go: true when
 *       this process was not claimed and takes the next client with the
 *       same pool (a CLI's quick runs do not cost a new pool each).
 */
typedef struct acs_mcp_accept {
        int (*wait)(void *ctx, int signal_fd);
        void (*claim)(void *ctx);
        bool (*release)(void *ctx);
        void *ctx;
} acs_mcp_accept;

/* The same server for `acs-launch serve`: clients come from acc (NULL: stdio). */
int acs_mcp_main_on(const acs_options *o, const acs_mcp_accept *acc);

/*
 * `acs-launch serve`: the same server on a unix socket (--socket PATH, mode
 * 0600, or the one systemd passes). Each connection is one client, served
 * by its own process which had its pool ready before it accepted; a new
 * such process is started as soon as one accepts. Returns the exit status.
 */
int acs_serve_main(const acs_options *o);
