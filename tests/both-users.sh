#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Automake LOG_COMPILER for shell tests: runs a TAP test script as the
# current user and, when that is root, once more as an unprivileged user,
# merging both TAP streams into one (descriptions tagged [root]/[user]).
#
# The unprivileged run needs the built tree to be readable by that user; CI
# clones under /root (mode 0700), so the needed files are staged into a
# world-readable temporary directory first.
set -u
test_script=$1
shift
user=${ACS_TEST_USER:-nobody}

run_tap() { # tag cmd...
        tag=$1
        shift
        "$@" 2>&1 | $AWK_BIN -v tag="$tag" '
                /^1\.\.[0-9]+/ { plan = substr($0, 4) + 0; next }
                /^(not )?ok/ { print $0 " [" tag "]"; n++; next }
                { print }
                END { if (plan != n) print "not ok - [" tag "] planned " plan " tests but ran " n }'
}
AWK_BIN=${AWK:-awk}

out=$(mktemp)
trap 'rm -f "$out"' EXIT
run_tap "$(id -un)" sh "$test_script" "$@" >"$out"

if [ "$(id -u)" -eq 0 ] && [ "${ACS_TEST_NO_UNPRIV:-0}" != 1 ]; then
        stage=$(mktemp -d /tmp/acs-stage.XXXXXX)
        chmod 0755 "$stage"
        # the binary, the scan module, profiles, tests, examples and the Python client
        mkdir -p "$stage/build" "$stage/src"
        cp -p "$ACS_BUILDDIR/acs-launch" "$stage/build/"
        # the static acs-launch execs acs-launch-full (check, mcp, doctor, patches)
        if [ -x "$ACS_BUILDDIR/acs-launch-full" ]; then cp -p "$ACS_BUILDDIR/acs-launch-full" "$stage/build/"; fi
        if [ -d "$ACS_BUILDDIR/.libs" ]; then cp -a "$ACS_BUILDDIR/.libs" "$stage/build/"; fi
        # node_modules (the MCP SDK, ~30 MB) only for the test that uses it
        # (tests/tokens' tokenizer, ~25 MB, is used by no shell test)
        excl="--exclude=tests/mcp/node_modules --exclude=tests/tokens/node_modules --exclude=tests/kubernetes/node_modules"
        case $test_script in */mcp.sh) excl="--exclude=tests/tokens/node_modules --exclude=tests/kubernetes/node_modules" ;; esac
        for d in profiles tests examples doc python contrib; do
                [ -d "$ACS_SRCDIR/$d" ] && tar -C "$ACS_SRCDIR" $excl -cf - "$d" | tar -C "$stage/src" -xf -
        done
        [ -d "$ACS_BUILDDIR/tests" ] && cp -a "$ACS_BUILDDIR/tests/." "$stage/src/tests/" 2>/dev/null
        chmod -R a+rX "$stage"
        rel=${test_script#"$ACS_SRCDIR"/}
        case $rel in /*) rel=tests/${test_script##*/tests/} ;; esac
        run_tap "$user" setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups \
                env -i PATH=/usr/bin:/bin HOME=/tmp \
                ACS_BUILDDIR="$stage/build" ACS_SRCDIR="$stage/src" \
                ACS_PROFILE_PATH="$stage/src/profiles" ACS_SCAN_MODULE_DIR="$stage/build/.libs" \
                sh "$stage/src/$rel" "$@" >>"$out"
        rm -rf "$stage"
fi

# renumber and print one plan
$AWK_BIN '/^(not )?ok/ { n++; sub(/^ok( [0-9]+)?/, "ok " n); sub(/^not ok( [0-9]+)?/, "not ok " n); print; next }
          { print } END { print "1.." n }' "$out"
