#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# write_file and read_file through the official MCP SDK client over stdio
# `mcp`, `serve --socket` and `mcp --http` (tests/mcp/files.mjs, TAP): a CSV
# goes in and the next execute_python call of the session reads it; a PNG the
# code wrote comes back byte for byte.
. "$ACS_SRCDIR/tests/lib.sh"

if ! command -v node >/dev/null 2>&1; then
        skip "MCP file tool tests: node is not installed (bootstrap.sh installs nodejs)"
        tap_plan
        exit
fi
# The node runner emits a full TAP stream with its own plan (see tests/integration/mcp.sh).
cd "$ACS_SRCDIR/tests/mcp" || exit 1
ACS_BUILDDIR=$ACS_BUILDDIR ACS_SRCDIR=$ACS_SRCDIR ACS_PROFILE_PATH=$ACS_PROFILE_PATH \
        node ./files.mjs sdk </dev/null
