#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attack suite: status and I/O pass-through (interfaces.md §1 exit status).
# A program must not be able to pass itself off as a launcher failure or a
# timeout, and launcher failures must be told apart from program failures.
. "$ACS_SRCDIR/tests/security/sec-lib.sh"

pyrun "import sys; print('out-$MARK'); print('err-$MARK', file=sys.stderr); sys.exit(3)"
is "$RC" 3 "sys.exit(3) -> 3"
is "$OUT" "out-$MARK" "stdout passes through"
contains "$ERR" "err-$MARK" "stderr passes through"

shrun 'echo shell-out; exit 3'
is "$RC" 3 "exec: sh -c 'exit 3' -> 3"
is "$OUT" "shell-out" "exec: stdout passes through"

pyrun "import os, signal; print('START', flush=True); os.kill(os.getpid(), signal.SIGKILL)"
is "$RC" 137 "SIGKILL to itself -> 137"
pyrun "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"
is "$RC" 139 "SIGSEGV to itself -> 139"

# The program's own 124/125/126/127 statuses: documented as passing through
# (0-123 are the program's); anything at or above 124 must not look like a
# clean exit either.
pyrun "import sys; sys.exit(0)"
is "$RC" 0 "sys.exit(0) -> 0"
# ... and they are the program's to use: acs-launch(1) says so, and only the
# report's status tells them apart from a timeout, an acs-launch error, a
# refusal or "not found"
for n in 124 125 126 127; do
        run_acs --json -c "raise SystemExit($n)"
        is "$RC" "$n" "raise SystemExit($n) -> $n (scanned run)"
        is "$(printf '%s' "$OUT" | json_get .status)/$(printf '%s' "$OUT" | json_get .exit_code)" "exited/$n" \
                "  the report says the program exited $n itself"
done

# Missing interpreter, missing command: 127
cat >"$TMP/nointerp.ini" <<EOF
[profile]
inherit = unsafe-python

[python]
interpreter = /usr/bin/acs-no-such-python
EOF
chmod 0644 "$TMP/nointerp.ini"
run_acs --profile "$TMP/nointerp.ini" -c "print('x')"
is "$RC" 127 "missing interpreter -> 127"
run_acs exec -- /usr/bin/acs-no-such-command
is "$RC" 127 "exec: missing command -> 127"

# Bad profile: 125 and file:line
cat >"$TMP/bad.ini" <<EOF
[profile]
inherit = unsafe-python

[limits]
timeout = banana
EOF
chmod 0644 "$TMP/bad.ini"
run_acs --profile "$TMP/bad.ini" -c "print('ran-$MARK')"
is "$RC" 125 "bad profile value -> 125"
contains "$ERR" "bad.ini:5" "bad profile: the message names file:line"
lacks "$OUT" "ran-$MARK" "bad profile: nothing ran"
cat >"$TMP/badkey.ini" <<EOF
[profile]
inherit = unsafe-python
[limits]
timeuot = 3
EOF
chmod 0644 "$TMP/badkey.ini"
run_acs --profile "$TMP/badkey.ini" -c "print('ran-$MARK')"
is "$RC" 125 "unknown profile key -> 125"
contains "$ERR" "badkey.ini:4" "unknown key: the message names file:line"
lacks "$OUT" "ran-$MARK" "unknown key: nothing ran"

# Unknown [seccomp] deny name: 125, named
cat >"$TMP/badsc.ini" <<EOF
[profile]
inherit = unsafe-python
[seccomp]
deny = acs_no_such_syscall
EOF
chmod 0644 "$TMP/badsc.ini"
run_acs --profile "$TMP/badsc.ini" -c "print('ran-$MARK')"
is "$RC" 125 "unknown syscall in [seccomp] deny -> 125"
contains "$ERR" "acs_no_such_syscall" "unknown syscall: the message names it"
lacks "$OUT" "ran-$MARK" "unknown syscall: nothing ran"

# [seccomp] deny works on top of the baseline
cat >"$TMP/denyuname.ini" <<EOF
[profile]
inherit = unsafe-python
[seccomp]
deny = uname
EOF
chmod 0644 "$TMP/denyuname.ini"
run_acs --profile "$TMP/denyuname.ini" -c "$PRELUDE
tryf('uname', lambda: os.uname() and None)
res('unshare', sc(272, 0x10000000))
print('END')"
reached "[seccomp] deny = uname"
expect_field uname EPERM "[seccomp] deny = uname: uname fails with EPERM"
expect_field unshare EPERM "[seccomp] deny: the baseline still applies"

tap_plan
