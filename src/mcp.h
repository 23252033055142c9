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
