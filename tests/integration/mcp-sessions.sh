#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# execute_command in a session through the official MCP SDK client over stdio
# `mcp` and `serve --socket` (tests/mcp/sessions.mjs, TAP): the command runs in
# the session's sandbox (workspace, /tmp, seccomp), with its own report, and a
# session whose profile forbids processes refuses it.
. "$ACS_SRCDIR/tests/lib.sh"

if ! command -v node >/dev/null 2>&1; then
        skip "MCP session tests: node is not installed (bootstrap.sh installs nodejs)"
        tap_plan
        exit
fi
# The node runner emits a full TAP stream with its own plan (see tests/integration/mcp.sh).
cd "$ACS_SRCDIR/tests/mcp" || exit 1
ACS_BUILDDIR=$ACS_BUILDDIR ACS_SRCDIR=$ACS_SRCDIR ACS_PROFILE_PATH=$ACS_PROFILE_PATH \
        node ./sessions.mjs </dev/null
