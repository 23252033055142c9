#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attack suite: the MCP server (tests/mcp/security.mjs, raw JSON-RPC lines).
# A client's profile is a name the operator allowed, never a path; its timeout
# stays under --max-timeout; the program's output cannot pass for the
# server's words; a client that stops reading cannot wedge the server; ids
# come back byte for byte.
. "$ACS_SRCDIR/tests/security/sec-lib.sh"

if ! command -v node >/dev/null 2>&1; then
        skip "MCP attack tests: node is not installed (bootstrap.sh installs nodejs)"
        tap_plan
        exit
fi
# The node runner emits a full TAP stream with its own plan (see tests/integration/mcp.sh).
cd "$ACS_SRCDIR/tests/mcp" || exit 1
ACS_BUILDDIR=$ACS_BUILDDIR ACS_SRCDIR=$ACS_SRCDIR ACS_PROFILE_PATH=$ACS_PROFILE_PATH \
        node ./run.mjs security </dev/null
