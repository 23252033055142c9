#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Python client (python/acs_launch) against the built acs-launch: the seed
# documents' examples, the native API, sessions (fallback), asyncio, errors.
# TAP from tests/python/test_client.py; both-users.sh runs it as root and nobody.
set -u
: "${ACS_BUILDDIR:?}" "${ACS_SRCDIR:?}"
export ACS_PROFILE_PATH=${ACS_PROFILE_PATH:-$ACS_SRCDIR/profiles}
export ACS_LAUNCH="$ACS_BUILDDIR/acs-launch"
export PYTHONPATH="$ACS_SRCDIR/python"
unset ACS_SERVER
exec python3 "$ACS_SRCDIR/tests/python/test_client.py"
