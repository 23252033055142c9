#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attack suite: acs-launch mcp --http (tests/mcp/http.mjs, raw HTTP). It
# listens on 127.0.0.1 unless told otherwise (and not beyond without a
# token); a foreign Origin or Host (DNS rebinding) gets 403; no token or a
# wrong one 401; unknown sessions 404; oversize heads and bodies 431 and
# 413; a head that never ends 408; connections past the limit 503; the
# token stays out of /proc/PID/environ; SIGTERM leaves no session server
# or sandbox behind.
. "$ACS_SRCDIR/tests/security/sec-lib.sh"

if ! command -v node >/dev/null 2>&1; then
        skip "MCP HTTP attack tests: node is not installed (bootstrap.sh installs nodejs)"
        tap_plan
        exit
fi
cd "$ACS_SRCDIR/tests/mcp" || exit 1
ACS_BUILDDIR=$ACS_BUILDDIR ACS_SRCDIR=$ACS_SRCDIR ACS_PROFILE_PATH=$ACS_PROFILE_PATH \
        node ./http.mjs security </dev/null
