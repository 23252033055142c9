#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# acs-launch mcp --http: the official MCP SDK's StreamableHTTPClientTransport
# (tests/mcp/http.mjs, TAP) does initialize, tools/list, execute_python and a
# session-ending DELETE against a server with a bearer token.
. "$ACS_SRCDIR/tests/lib.sh"

if ! command -v node >/dev/null 2>&1; then
        skip "MCP HTTP tests: node is not installed (bootstrap.sh installs nodejs)"
        tap_plan
        exit
fi
# The node runner emits a full TAP stream with its own plan (see tests/integration/mcp.sh).
cd "$ACS_SRCDIR/tests/mcp" || exit 1
ACS_BUILDDIR=$ACS_BUILDDIR ACS_SRCDIR=$ACS_SRCDIR ACS_PROFILE_PATH=$ACS_PROFILE_PATH \
        node ./http.mjs sdk </dev/null
