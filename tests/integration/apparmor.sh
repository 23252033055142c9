#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# contrib/apparmor/acs-launch parses (apparmor_parser -Q: everything but
# loading it into the kernel), names both binaries, and grants userns.
# AppArmor 4 (Ubuntu 24.04) knows `userns,` and abi/4.0; Debian 12 ships
# 3.0.8, which knows neither: there the rest of the profile is parsed
# against abi/3.0 without the userns rule, and the full parse is a SKIP.
. "$ACS_SRCDIR/tests/lib.sh"
prof=$ACS_SRCDIR/contrib/apparmor/acs-launch

contains "$(grep '^profile acs-launch ' "$prof")" "/{usr/,usr/local/}bin/acs-launch" "profile acs-launch attaches to /usr/bin and /usr/local/bin"
contains "$(grep '^profile acs-launch-full ' "$prof")" "acs-launch/acs-launch-full" "profile acs-launch-full attaches to the helper"
is "$(grep -c '^  userns,$' "$prof")" 2 "both profiles grant userns"
is "$(grep -c 'flags=(unconfined)' "$prof")" 2 "both profiles are unconfined otherwise (like Ubuntu's bwrap profile)"

PATH=$PATH:/usr/sbin:/sbin
if ! command -v apparmor_parser >/dev/null 2>&1; then
        skip "apparmor_parser is not installed (bootstrap.sh installs apparmor)"
        echo "1..$_tap_n"
        exit 0
fi
parse() { apparmor_parser -Q -K -I "$TMP/inc" "$@" >"$TMP/parse.out" 2>&1; }
mkdir -p "$TMP/inc/abi" "$TMP/inc/tunables"
cp -r /etc/apparmor.d/tunables/. "$TMP/inc/tunables/" 2>/dev/null
if [ -f /etc/apparmor.d/abi/4.0 ]; then
        if parse "$prof"; then ok "apparmor_parser -Q parses the profile"; else
                fail "apparmor_parser -Q parses the profile"
                diag "$(cat "$TMP/parse.out")"
        fi
else
        skip "apparmor_parser $(apparmor_parser --version 2>/dev/null | sed -n '1s/.*version //p') has no abi/4.0 and no userns rule (AppArmor 4, Ubuntu 24.04, has both)"
        sed -e 's|<abi/4.0>|<abi/3.0>|' -e '/^  userns,$/d' "$prof" >"$TMP/acs-launch.3"
        if parse "$TMP/acs-launch.3"; then ok "apparmor_parser -Q parses the rest of the profile (abi 3.0)"; else
                fail "apparmor_parser -Q parses the rest of the profile (abi 3.0)"
                diag "$(cat "$TMP/parse.out")"
        fi
        prof=$TMP/acs-launch.3
fi
# the parser does reject a broken profile (a missing brace)
sed '$d' "$prof" >"$TMP/broken"
if parse "$TMP/broken"; then fail "apparmor_parser rejects a profile without its closing brace"; else
        ok "apparmor_parser rejects a profile without its closing brace"
fi
echo "1..$_tap_n"
