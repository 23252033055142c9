#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Median MCP round-trip latency of execute_python("print(1)") vs bare python3.
#   bench/mcp-latency.sh [N]      (run from the build tree, or set ACS_BUILDDIR)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
: "${ACS_SRCDIR:=$(dirname "$here")}"
: "${ACS_BUILDDIR:=$(pwd)}"
[ -x "$ACS_BUILDDIR/acs-launch" ] || ACS_BUILDDIR=$ACS_SRCDIR
: "${ACS_PROFILE_PATH:=$ACS_SRCDIR/profiles}"
export ACS_SRCDIR ACS_BUILDDIR ACS_PROFILE_PATH
if [ ! -d "$ACS_SRCDIR/tests/mcp/node_modules/@modelcontextprotocol/sdk" ]; then
        (cd "$ACS_SRCDIR/tests/mcp" && npm ci --no-audit --no-fund --loglevel=error)
fi
exec node "$here/mcp-latency.mjs" "$@"
