# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared helpers for shell tests (TAP). Source with: . "$ACS_SRCDIR/tests/lib.sh"
#   ACS_BUILDDIR  directory holding the acs-launch binary
#   ACS_SRCDIR    source tree (tests/, profiles/, examples/)
set -u
: "${ACS_BUILDDIR:?}" "${ACS_SRCDIR:?}"
ACS=$ACS_BUILDDIR/acs-launch
export ACS_PROFILE_PATH=${ACS_PROFILE_PATH:-$ACS_SRCDIR/profiles}
_tap_n=0
_tap_failed=0

acs() { "$ACS" "$@"; }

# ok COND-EXIT-STATUS DESCRIPTION: `check_ok "desc" cmd args...`
ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $*"; }
fail() { _tap_n=$((_tap_n + 1)); _tap_failed=$((_tap_failed + 1)); echo "not ok $_tap_n - $*"; }
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n # SKIP $*"; }
diag() { printf '# %s\n' "$*" | head -c 4000; echo; }

# check DESC CMD...: passes when CMD exits 0
check() {
        _d=$1
        shift
        if "$@"; then ok "$_d"; else fail "$_d"; fi
}
# is GOT WANT DESC
is() {
        if [ "$1" = "$2" ]; then ok "$3"; else
                fail "$3"
                diag "got:  $(printf %s "$1" | head -c 600)"
                diag "want: $(printf %s "$2" | head -c 600)"
        fi
}
# contains HAYSTACK NEEDLE DESC
contains() {
        case $1 in *"$2"*) ok "$3" ;; *)
                fail "$3"
                diag "'$(printf %s "$1" | head -c 600)' lacks '$2'"
                ;;
        esac
}
lacks() {
        case $1 in *"$2"*)
                fail "$3"
                diag "'$(printf %s "$1" | head -c 600)' contains '$2'"
                ;;
        *) ok "$3" ;; esac
}

# A private temp dir, world-readable (the sandbox may run as another uid), removed at exit.
TMP=$(mktemp -d /tmp/acs-test.XXXXXX)
chmod 0755 "$TMP"
# overlayfs leaves work/work with mode 000 in the tests' own overlays: an
# ordinary user's rm -rf could not remove it
rm_tmp() {
        chmod -R u+rwx "$TMP" 2>/dev/null
        rm -rf "$TMP"
}
trap rm_tmp EXIT

# Run acs-launch capturing stdout, stderr and status: run_acs ARGS... ; sets OUT ERR RC
run_acs() {
        "$ACS" "$@" >"$TMP/.out" 2>"$TMP/.err" </dev/null
        RC=$?
        OUT=$(cat "$TMP/.out")
        ERR=$(cat "$TMP/.err")
}

# JSON field from a report on stdin: json_get '.status'  (python3 is on every test host)
json_get() {
        /usr/bin/python3 -I -S -c 'import json,sys
v=json.load(sys.stdin)
for k in sys.argv[1].strip(".").split("."):
    v = v[int(k)] if isinstance(v, list) else v.get(k) if isinstance(v, dict) else None
print("null" if v is None else (json.dumps(v) if isinstance(v,(dict,list,bool)) else v))' "$1"
}

# No process whose whole command line is exactly MARKER survives.
no_process() { ! pgrep -x -f -- "$1" >/dev/null 2>&1; }

# wait_until SECONDS CMD...: a deadline poll instead of a fixed sleep. Runs
# CMD every 50 ms until it succeeds or SECONDS (whole) have passed; returns
# CMD's last status. For what the kernel settles after the launcher returns
# (a killed sandbox being reaped, a process joining a cgroup): it passes as
# soon as the state holds and fails, not flakes, when it never does.
wait_until() {
        _wu_n=$(($1 * 20))
        shift
        while ! "$@"; do
                [ "$_wu_n" -le 0 ] && return 1
                _wu_n=$((_wu_n - 1))
                sleep 0.05
        done
}

tap_plan() {
        echo "1..$_tap_n"
        [ "$_tap_failed" -eq 0 ]
}

# schema_valid FILE: FILE holds exactly one JSON report that validates against
# doc/report.schema.json (python3-jsonschema); the reason is in $TMP/.schema.err
schema_valid() {
        /usr/bin/python3 -I -c 'import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.validators.validator_for(schema)(schema).validate(json.load(open(sys.argv[2])))' \
                "$ACS_SRCDIR/doc/report.schema.json" "$1" >"$TMP/.schema.err" 2>&1
}
