#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attack suite: write_file and read_file (issue 14, item 4), through the
# official MCP SDK client (tests/mcp/files.mjs). Paths stay in the session's
# /workspace whatever the code planted there (symlinks to host files, to
# /etc/shadow, through /proc), "../" and absolute paths do not leave it, a
# fifo never hangs the server, the 2 MiB cap holds both ways, and a session
# never reads another's files.
. "$ACS_SRCDIR/tests/security/sec-lib.sh"

if ! command -v node >/dev/null 2>&1; then
        skip "file tool attack tests: node is not installed (bootstrap.sh installs nodejs)"
        tap_plan
        exit
fi
# The node runner emits a full TAP stream with its own plan (see tests/integration/mcp.sh).
cd "$ACS_SRCDIR/tests/mcp" || exit 1
ACS_BUILDDIR=$ACS_BUILDDIR ACS_SRCDIR=$ACS_SRCDIR ACS_PROFILE_PATH=$ACS_PROFILE_PATH \
        node ./files.mjs security </dev/null
