#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# LOG_COMPILER for tests/tokens/*.mjs: node runs the TAP test, or one SKIP
# when node or the pinned tokenizer (npm ci, see mk/shield.am) is missing.
here=$(dirname "$1")
if ! command -v node >/dev/null 2>&1; then
        echo "1..0 # SKIP node is not installed (bootstrap.sh installs nodejs)"
        exit 0
fi
if [ ! -f "$here/node_modules/.acs-npm-ci" ]; then
        echo "1..0 # SKIP the pinned npm packages are not installed (npm ci in $here failed or npm is missing)"
        exit 0
fi
exec node "$@"
