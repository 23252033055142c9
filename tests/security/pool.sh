#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attack suite: the pool of ready sandboxes behind acs-launch mcp and serve
# (issue 14): pooled processes are confined before any code arrives, a call
# sees nothing of the previous one, dead pooled sandboxes are replaced, and
# nothing is left after EOF, SIGTERM or SIGKILL. The checks are in pool.py.
. "$ACS_SRCDIR/tests/security/sec-lib.sh"
/usr/bin/python3 -I "$ACS_SRCDIR/tests/security/pool.py" "$ACS" "$TMP"
