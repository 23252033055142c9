#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# acs-launch mcp: raw JSON-RPC lines and the official MCP SDK client
# (tests/mcp/*.mjs, TAP). The SDK comes from tests/mcp/node_modules, which
# `make check` installs with `npm ci` from the pinned lockfile.
. "$ACS_SRCDIR/tests/lib.sh"

if ! command -v node >/dev/null 2>&1; then
        skip "MCP tests: node is not installed (bootstrap.sh installs nodejs)"
        tap_plan
        exit
fi
# lib.sh's helpers number their own results; the node runner emits a full TAP
# stream with its own plan, which both-users.sh counts and renumbers.
cd "$ACS_SRCDIR/tests/mcp" || exit 1
ACS_BUILDDIR=$ACS_BUILDDIR ACS_SRCDIR=$ACS_SRCDIR ACS_PROFILE_PATH=$ACS_PROFILE_PATH \
        node ./run.mjs </dev/null
