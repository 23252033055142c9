#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Automake LOG_COMPILER for shell tests: runs a TAP test script as the
# current user and, when that is root, once more as an unprivileged user,
# merging both TAP streams into one (descriptions tagged [root]/[nobody]).
#
# Fails closed: a half that cannot be started, prints no plan, runs fewer
# (or more) results than it planned, or exits non-zero without reporting a
# failure is itself a failed result. The unprivileged half is left out only
# when the host cannot run it at all (no such user, no setpriv), and then as
# an explicit SKIP that names the reason -- never silently.
#
# The unprivileged run needs the built tree to be readable by that user; CI
# clones under /root (mode 0700), so the needed files are staged into a
# world-readable temporary directory first.
set -u
test_script=$1
shift
user=${ACS_TEST_USER:-nobody}
AWK_BIN=${AWK:-awk}

# run_tap TAG CMD...: CMD's TAP stream with results tagged, checked against
# its plan and its exit status
run_tap() {
        tag=$1
        shift
        { "$@" 2>&1; printf '\n#acs-exit %d\n' "$?"; } | $AWK_BIN -v tag="$tag" '
                /^#acs-exit / { status = $2 + 0; next }
                /^$/ { next }
                /^1\.\.[0-9]+/ { plan = substr($0, 4) + 0; planned = 1; next }
                /^not ok/ { failed++ }
                /^(not )?ok/ { print $0 " [" tag "]"; n++; next }
                { print }
                END {
                        if (!planned)
                                print "not ok - [" tag "] printed no plan (ran " n + 0 " results, exit status " status + 0 ")"
                        else if (plan != n)
                                print "not ok - [" tag "] planned " plan " tests but ran " n + 0
                        if (status != 0 && !failed)
                                print "not ok - [" tag "] exited with status " status " but reported no failure"
                }'
}
# fail_half TAG REASON: one failed result standing for a half that could not run
fail_half() { echo "not ok - [$1] $2"; }

out=$(mktemp)
stage=
trap 'rm -f "$out"; [ -n "$stage" ] && rm -rf "$stage"' EXIT
run_tap "$(id -un)" sh "$test_script" "$@" >"$out"

# The script's path relative to the source tree, also when automake passes a
# relative $(srcdir)/... (VPATH builds, make distcheck).
abs_path() { (cd "$(dirname "$1")" 2>/dev/null && printf '%s/%s\n' "$(pwd -P)" "$(basename "$1")"); }
rel_script() {
        _s=$(abs_path "$test_script") || return 1
        _top=$(cd "$ACS_SRCDIR" 2>/dev/null && pwd -P) || return 1
        case $_s in "$_top"/*) printf '%s\n' "${_s#"$_top"/}" ;; *) return 1 ;; esac
}

# stage_tree DIR: the binaries, the scan module, profiles, tests, examples,
# docs and the Python client
stage_tree() {
        mkdir -p "$1/build" "$1/src" || return 1
        cp -p "$ACS_BUILDDIR/acs-launch" "$1/build/" || return 1
        # the static acs-launch execs acs-launch-full (check, mcp, doctor, patches)
        if [ -x "$ACS_BUILDDIR/acs-launch-full" ]; then cp -p "$ACS_BUILDDIR/acs-launch-full" "$1/build/" || return 1; fi
        if [ -d "$ACS_BUILDDIR/.libs" ]; then cp -a "$ACS_BUILDDIR/.libs" "$1/build/" || return 1; fi
        # node_modules (the MCP SDK, ~30 MB) only for the test that uses it
        # (tests/tokens' tokenizer, ~25 MB, is used by no shell test)
        excl="--exclude=tests/mcp/node_modules --exclude=tests/tokens/node_modules --exclude=tests/kubernetes/node_modules"
        case $test_script in */mcp.sh) excl="--exclude=tests/tokens/node_modules --exclude=tests/kubernetes/node_modules" ;; esac
        for d in profiles tests examples doc python contrib; do
                [ -d "$ACS_SRCDIR/$d" ] || continue
                tar -C "$ACS_SRCDIR" $excl -cf "$1/.tar" "$d" && tar -C "$1/src" -xf "$1/.tar" || return 1
        done
        rm -f "$1/.tar"
        if [ -d "$ACS_BUILDDIR/tests" ]; then cp -a "$ACS_BUILDDIR/tests/." "$1/src/tests/" || return 1; fi
        chmod -R a+rX "$1"
}

unpriv_half() {
        if [ "${ACS_TEST_NO_UNPRIV:-0}" = 1 ]; then
                echo "ok # SKIP [$user] half not run: ACS_TEST_NO_UNPRIV=1"
                return
        fi
        if ! uid=$(id -u "$user" 2>/dev/null); then
                echo "ok # SKIP [$user] half not run: this host has no user '$user' (set ACS_TEST_USER)"
                return
        fi
        if ! command -v setpriv >/dev/null 2>&1; then
                echo "ok # SKIP [$user] half not run: setpriv is missing (apt-get install util-linux)"
                return
        fi
        if [ "$uid" -eq 0 ]; then
                fail_half "$user" "ACS_TEST_USER '$user' is root: no unprivileged half"
                return
        fi
        if ! rel=$(rel_script); then
                fail_half "$user" "$test_script is not under ACS_SRCDIR=$ACS_SRCDIR: cannot stage it"
                return
        fi
        if ! stage=$(mktemp -d /tmp/acs-stage.XXXXXX) || ! chmod 0755 "$stage" || ! stage_tree "$stage"; then
                fail_half "$user" "cannot stage the built tree into ${stage:-/tmp} for $user"
                return
        fi
        if [ ! -f "$stage/src/$rel" ]; then
                fail_half "$user" "staged script $stage/src/$rel is missing"
                return
        fi
        # the sanitizer build's settings (make check sets LSAN_OPTIONS), staged
        san=
        [ -n "${LSAN_OPTIONS:-}" ] && san="LSAN_OPTIONS=suppressions=$stage/src/tests/lsan.supp"
        [ -n "${ASAN_OPTIONS:-}" ] && san="$san ASAN_OPTIONS=$ASAN_OPTIONS"
        [ -n "${UBSAN_OPTIONS:-}" ] && san="$san UBSAN_OPTIONS=$UBSAN_OPTIONS"
        # shellcheck disable=SC2086
        run_tap "$user" setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups \
                env -i PATH=/usr/bin:/bin HOME=/tmp $san \
                ACS_BUILDDIR="$stage/build" ACS_SRCDIR="$stage/src" \
                ACS_PROFILE_PATH="$stage/src/profiles" ACS_SCAN_MODULE_DIR="$stage/build/.libs" \
                sh "$stage/src/$rel" "$@"
        rm -rf "$stage"
        stage=
}
if [ "$(id -u)" -eq 0 ]; then unpriv_half "$@" >>"$out"; fi

# renumber and print one plan
$AWK_BIN '/^(not )?ok/ { n++; sub(/^ok( [0-9]+)?/, "ok " n); sub(/^not ok( [0-9]+)?/, "not ok " n); print; next }
          { print } END { print "1.." n }' "$out"
