/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `acs-launch mcp --http ADDR:PORT`: the MCP server over Streamable HTTP. */
#pragma once

#include "cli.h"

/*
 * Serve MCP at http://ADDR:PORT/mcp until SIGTERM, SIGINT or SIGHUP; each
 * session runs acs_mcp_main in a child of its own. Returns the exit status
 * (0 after a clean shutdown with every child reaped, 125 if it could not start).
 */
int acs_mcp_http_main(const acs_options *o);
