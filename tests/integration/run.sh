#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The one-shot run: output, exit status, limits, cleanup (issue 2, "How it is shown").
. "$ACS_SRCDIR/tests/lib.sh"
P="--profile unsafe-python"

run_acs $P -c 'print("out"); import sys; print("err", file=sys.stderr)'
is "$RC" 0 "exit 0 passes through"
is "$OUT" "out" "stdout passes through"
contains "$ERR" "err" "stderr passes through"

run_acs $P -c 'raise SystemExit(3)'
is "$RC" 3 "exit 3 -> 3"

run_acs $P -c 'import os; os.kill(os.getpid(), 9)'
is "$RC" 137 "SIGKILL -> 137"

run_acs $P -c 'import os, signal; os.kill(os.getpid(), signal.SIGSEGV)'
is "$RC" 139 "SIGSEGV -> 139"

start=$(date +%s%N)
run_acs $P --timeout 1 -c 'import time; time.sleep(30)'
end=$(date +%s%N)
is "$RC" 124 "timeout -> 124"
elapsed=$(( (end - start) / 1000000 ))
# containment, not speed: the kill must come within a second of the limit
if [ "$elapsed" -lt 2000 ]; then ok "timeout kills within a second of the limit (${elapsed} ms)"; else fail "timeout took ${elapsed} ms"; fi

printf 'import sys\nprint("args", sys.argv[1:])\n' >"$TMP/script.py"
run_acs $P -- "$TMP/script.py" a 'b c'
is "$OUT" "args ['a', 'b c']" "script file and its arguments"

run_acs $P -c 'import sys; print(sys.argv[1:])' x y
is "$OUT" "['x', 'y']" "-c CODE with arguments"

echo 'hello stdin' | "$ACS" $P -c 'import sys; print(sys.stdin.read().upper(), end="")' >"$TMP/o" 2>&1
is "$(cat "$TMP/o")" "HELLO STDIN" "stdin passes through"

printf '[profile]\ninherit = unsafe-python\n[python]\ninterpreter = /nonexistent/python3\n' >"$TMP/nointerp.ini"
run_acs --profile "$TMP/nointerp.ini" -c 'print(1)'
is "$RC" 127 "missing interpreter -> 127"
contains "$ERR" "/nonexistent/python3" "missing interpreter is named"

run_acs exec -- /no/such/command
is "$RC" 127 "missing command -> 127"

printf '[limits]\ntimeout = 5\nmemroy = 1M\n' >"$TMP/bad.ini"
run_acs --profile "$TMP/bad.ini" -c 'print(1)'
is "$RC" 125 "bad profile -> 125"
contains "$ERR" "bad.ini:3" "bad profile message names file:line"
contains "$ERR" "memroy" "bad profile message names the key"

# a profile may forbid loosening: the command line can tighten, not loosen
printf '[profile]\ninherit = unsafe-python\nlocked = timeout net bind env apply\n[limits]\ntimeout = 2\n' >"$TMP/locked.ini"
run_acs --profile "$TMP/locked.ini" --timeout 1 -c 'print("tight")'
is "$OUT" "tight" "locked timeout: a shorter --timeout is fine"
for opt in "--timeout 9" "--net loopback" "--ro-bind /usr /x" "--setenv A B" "--apply"; do
        # shellcheck disable=SC2086
        run_acs --profile "$TMP/locked.ini" $opt -w "$TMP" -c 'print("loose")'
        if [ "$RC" = 125 ] && [ -z "$OUT" ]; then ok "locked profile refuses $opt"; else fail "locked profile accepted $opt (rc $RC)"; fi
done
contains "$ERR" "locks" "the refusal says the profile locks it"

run_acs --profile no-such-profile -c 'print(1)'
is "$RC" 125 "unknown profile -> 125"
contains "$ERR" "profile 'no-such-profile' not found; searched " "  the message names the profile and where it looked"

run_acs --bogus-option x.py
is "$RC" 125 "usage error -> 125"
contains "$ERR" "unknown option '--bogus-option'" "  the message names the option"

(cd "$TMP" && "$ACS" -v exec -- /bin/true >"$TMP/.out" 2>"$TMP/.err")
is "$?" 125 "options before a subcommand -> 125"
contains "$(cat "$TMP/.err")" "acs-launch exec [OPTIONS]" "and the message says where the options go"

# bad input (issue 12 item 9): a clear error naming what is wrong, exit 125,
# nothing runs, and with --json still exactly one report, status error, that
# validates against the schema
bad_input() { # DESC WANT-IN-MESSAGE [SUBCOMMAND] ARGS...
        _d=$1 _w=$2
        shift 2
        case $1 in exec | check) _sub=$1; shift ;; *) _sub= ;; esac
        run_acs $_sub "$@"
        if [ "$RC" = 125 ] && [ -z "$OUT" ]; then ok "$_d: exit 125, nothing ran"; else
                fail "$_d: exit 125, nothing ran"
                diag "rc $RC, stdout '$OUT', stderr '$ERR'"
        fi
        contains "$ERR" "$_w" "$_d: the message says what is wrong"
        run_acs $_sub --json "$@"
        is "$RC" 125 "$_d, --json: exit 125"
        printf '%s\n' "$OUT" >"$TMP/bad.json"
        if schema_valid "$TMP/bad.json"; then ok "$_d, --json: one report, valid against the schema"; else
                fail "$_d, --json: one report, valid against the schema"
                diag "$(cat "$TMP/.schema.err" | tail -n 3) -- stdout: $OUT"
        fi
        is "$(printf '%s' "$OUT" | json_get .status 2>/dev/null)" error "$_d, --json: status error"
        contains "$(printf '%s' "$OUT" | json_get .error 2>/dev/null)" "$_w" "$_d, --json: the report's error says it"
}
RAN='print("ran-bad-input")'
bad_input "--memory 1" "at least 16M" $P --memory 1 -c "$RAN"
bad_input "--memory 15M" "at least 16M" $P --memory 15M -c "$RAN"
bad_input "--max-tokens 0" "from 1 to 4194304" $P --max-tokens 0 -c "$RAN"
bad_input "--max-tokens 99999999999" "from 1 to 4194304" $P --max-tokens 99999999999 -c "$RAN"
bad_input "--timeout 0x10" "decimal digits" $P --timeout 0x10 -c "$RAN"
bad_input "--timeout 1e300" "at most 1000000000" $P --timeout 1e300 -c "$RAN"
bad_input "--tmpfs relative" "absolute path without '..'" $P --tmpfs relative -c "$RAN"
bad_input "--bind to a relative destination" "--bind: the destination 'x'" $P --bind "$TMP" x -c "$RAN"
bad_input "a mistyped option" "did you mean '--timeout'?" $P --timout 3 -c "$RAN"
bad_input "an unknown profile" "profile 'no-such-profile' not found" --profile no-such-profile -c "$RAN"
bad_input "a bad profile" "bad.ini:3" --profile "$TMP/bad.ini" -c "$RAN"
bad_input "a locked profile loosened" "locks timeout" --profile "$TMP/locked.ini" --timeout 9 -c "$RAN"
bad_input "exec --memory 1" "at least 16M" exec --memory 1 -- /bin/echo ran-bad-input
# (run by root, the sandbox runs as the workspace's owner: an ordinary user's)
mkdir "$TMP/noread" && chmod 000 "$TMP/noread"
[ "$(id -u)" -eq 0 ] && chown 65534:65534 "$TMP/noread"
bad_input "an unreadable workspace" "cannot use '$TMP/noread' as the workspace" $P -w "$TMP/noread" -c "$RAN"
run_acs $P -w "$TMP/noread" -c "$RAN"
contains "$ERR" "mode 0000" "an unreadable workspace: the message gives its mode"
chmod 755 "$TMP/noread"
printf 'x = 1\n' >"$TMP/ok.py"
run_acs check --json --profile no-such-profile "$TMP/ok.py"
is "$RC" 125 "check --json with an unknown profile: 125"
printf '%s\n' "$OUT" >"$TMP/bad.json"
if schema_valid "$TMP/bad.json"; then ok "check --json with an unknown profile: one valid error report"; else
        fail "check --json with an unknown profile: one valid error report"
        diag "$(tail -n 3 "$TMP/.schema.err") -- stdout: $OUT"
fi

# values on their limits are accepted
run_acs $P --memory 16M --max-tokens 4194304 --timeout 0.5 --tmpfs /scratch -c 'import os; print(os.path.isdir("/scratch"))'
is "$OUT" "True" "--memory 16M, --max-tokens 4194304, --timeout 0.5, --tmpfs /scratch are accepted"

# every subcommand has its own --help, on stdout, exit 0
for sub in run exec check mcp apply profiles doctor bench; do
        run_acs $sub --help
        case $OUT in
        "Usage: acs-launch $sub"* | "Usage: acs-launch [$sub] "*) ok "$sub --help prints its own usage" ;;
        *) fail "$sub --help prints its own usage"; diag "rc $RC: $(printf %s "$OUT" | head -n 2)" ;;
        esac
        is "$RC" 0 "$sub --help exits 0"
done
run_acs help exec
contains "$OUT" "Usage: acs-launch exec" "help SUBCOMMAND prints its usage"
run_acs --help
contains "$OUT" "acs-launch SUBCOMMAND --help" "the overview points at the subcommands' help"

# environment: nothing of the launcher's leaks in
ACS_CANARY=canary-$$ run_acs $P -c 'import os; print(sorted(os.environ))'
contains "$OUT" "PATH" "the sandbox environment is printed"
lacks "$OUT" "ACS_CANARY" "launcher environment canary is not visible"
ACS_CANARY=canary-$$ run_acs exec -- /bin/sh -c 'cat /proc/self/environ /proc/1/environ && echo; echo environ-done'
contains "$OUT" "environ-done" "environments of the sandbox processes read"
lacks "$OUT" "canary-$$" "canary not in any sandbox process environment"
run_acs $P --setenv FOO bar -c 'import os; print(os.environ.get("FOO"), os.environ.get("HOME"))'
is "$OUT" "bar /run/home" "--setenv and [env] set (HOME outside the workspace)"

# workspace: the host directory is never written
mkdir "$TMP/ws"
echo original >"$TMP/ws/keep.txt"
run_acs $P -w "$TMP/ws" -c '
import os
print(open("keep.txt").read().strip())
open("keep.txt", "w").write("changed")
open("new.txt", "w").write("new")
os.mkdir("d")
'
is "$OUT" "original" "workspace lower layer is visible at /workspace"
is "$(cat "$TMP/ws/keep.txt")" "original" "writes to /workspace never reach the host (modify)"
if [ ! -e "$TMP/ws/new.txt" ] && [ ! -e "$TMP/ws/d" ]; then ok "writes to /workspace never reach the host (create)"; else fail "host workspace gained files"; fi

# --apply (issue 12 item 9): a clean apply exits with the program's status and
# -q keeps the summary quiet; an apply that leaves changes unwritten (here a
# conflict: the host file changed during the run) exits 125, with the report
# saying status error and why, coherent with the exit status
mkdir "$TMP/aws" && echo v1 >"$TMP/aws/shared.txt" && chmod -R a+rwX "$TMP/aws"
run_acs $P -q -w "$TMP/aws" --apply -c 'open("new.txt", "w").write("new\n")'
is "$RC" 0 "--apply that wrote everything: exit 0"
is "$ERR" "" "--apply -q: nothing on stderr"
is "$(cat "$TMP/aws/new.txt")" "new" "--apply wrote the new file"
run_acs $P -w "$TMP/aws" --apply -c 'open("new2.txt", "w").write("new\n")'
contains "$ERR" "acs-launch: applied 1" "--apply without -q: the apply summary, as lines of ours"
: >"$TMP/conflict.out"
"$ACS" $P -q -w "$TMP/aws" --apply --report "$TMP/conflict.json" -c "
import time
print('START', flush=True)
time.sleep(1.5)
open('/workspace/shared.txt', 'w').write('sandbox')
" >"$TMP/conflict.out" 2>"$TMP/conflict.err" </dev/null &
bg=$!
i=0
while ! grep -q START "$TMP/conflict.out" && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
echo host-change >"$TMP/aws/shared.txt.tmp" && mv "$TMP/aws/shared.txt.tmp" "$TMP/aws/shared.txt"
chmod a+rw "$TMP/aws/shared.txt"
wait "$bg"
is "$?" 125 "--apply with a conflict: exit 125"
is "$(cat "$TMP/aws/shared.txt")" host-change "--apply with a conflict: the host's version stays"
is "$(json_get .status <"$TMP/conflict.json")/$(json_get .exit_code <"$TMP/conflict.json")" "error/125" \
        "--apply with a conflict: the report says status error, exit_code 125"
contains "$(json_get .error <"$TMP/conflict.json")" "1 conflict" "--apply with a conflict: the report's error says why"
if schema_valid "$TMP/conflict.json"; then ok "--apply with a conflict: the report is valid"; else
        fail "--apply with a conflict: the report is valid"
        diag "$(tail -n 3 "$TMP/.schema.err")"
fi
contains "$(cat "$TMP/conflict.err")" "acs-launch: the program exited with status 0, but --apply left changes unwritten" \
        "--apply with a conflict, -q: the error is still said"
lacks "$(cat "$TMP/conflict.err")" "conflict: M" "--apply with a conflict, -q: no apply list"

# run by root with a root-owned workspace: its files are the sandbox's to change
# inside (idmapped lower layer), and the host tree is still never written
if [ "$(id -u)" -eq 0 ]; then
        mkdir "$TMP/rootws"
        echo root-data >"$TMP/rootws/r.txt"
        chmod 0644 "$TMP/rootws/r.txt"
        run_acs $P -w "$TMP/rootws" -c '
import os
st = os.stat("r.txt")
print(os.getuid() != 0, st.st_uid == os.getuid())
open("r.txt", "a").write("more\n")
print(open("r.txt").read().split())'
        is "$OUT" "True True
['root-data', 'more']" "root-owned workspace: the sandbox (not uid 0) may change it inside"
        is "$(cat "$TMP/rootws/r.txt")" "root-data" "root-owned workspace: the host file is untouched"
        is "$(stat -c %u "$TMP/rootws/r.txt")" "0" "root-owned workspace: ownership on the host unchanged"
fi

# the scratch space is bounded in bytes and in inodes (empty files cost kernel memory)
run_acs $P -c '
import os, errno
n = 0
try:
    while n < 10**6:
        open("/tmp/f%d" % n, "w").close()
        n += 1
except OSError as e:
    print("stopped", errno.errorcode[e.errno], n < 10**6)'
contains "$OUT" "stopped ENOSPC True" "millions of empty files end with ENOSPC"

# what is (not) visible
touch "$TMP/host-marker-$$"
run_acs exec -- /bin/sh -c "for f in /tmp/host-marker-$$ /root /home /etc/shadow /sys; do test -e \$f && echo VISIBLE:\$f; done; ls /dev; hostname; echo listing-done"
contains "$OUT" "listing-done" "the sandbox listed its view"
lacks "$OUT" "VISIBLE:/tmp/host-marker" "host /tmp is not visible"
lacks "$OUT" "VISIBLE:/root" "/root is not visible"
lacks "$OUT" "VISIBLE:/home" "/home is not visible"
lacks "$OUT" "VISIBLE:/etc/shadow" "/etc/shadow is not visible"
lacks "$OUT" "VISIBLE:/sys" "/sys is absent"
is "$(printf '%s\n' "$OUT" | sed -n '/^fd$/,/^zero$/p' | tr '\n' ' ')" "fd full null random shm stderr stdin stdout urandom zero " "/dev holds only null zero full random urandom, shm and fd links"
contains "$OUT" "sandbox" "hostname from the profile"

# no process, mount or temp dir survives: a normal run, a timeout, SIGTERM to the launcher.
# The marker is assembled inside the sandbox ("acs-d-" + a number passed as $1), so
# the launcher's own command line never matches it.
mounts_before=$(wc -l </proc/self/mountinfo)
tag=$$
marker="acs-d-$tag"
run_acs exec -- /bin/bash -c '(setsid bash -c "exec -a acs-d-$1 sleep 300" &) ; for i in $(seq 50); do pgrep -x -f "acs-d-$1 300" >/dev/null && break; sleep 0.1; done; pgrep -x -f "acs-d-$1 300" >/dev/null && echo started' sh "$tag"
is "$OUT" "started" "the daemon was running inside"
check "a double-forked daemon does not outlive the run" wait_until 3 no_process "$marker 300"

run_acs exec --timeout 0.5 -- /bin/bash -c 'exec -a acs-t-$1 sleep 300' sh "$tag"
is "$RC" 124 "timeout of a shell command -> 124"
check "no process left after a timeout" no_process "acs-t-$tag 300"

wait_for() { # pattern: up to 5 s
        i=0
        while ! pgrep -x -f -- "$1" >/dev/null 2>&1 && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
        pgrep -x -f -- "$1" >/dev/null 2>&1
}
"$ACS" exec -- /bin/bash -c 'exec -a acs-s-$1 sleep 300' sh "$tag" >/dev/null 2>&1 &
lpid=$!
if wait_for "acs-s-$tag 300"; then ok "sandboxed sleeper seen from the host"; else fail "sleeper never started"; fi
kill -TERM "$lpid"
wait "$lpid"
is "$?" 143 "SIGTERM to the launcher -> 143"
check "no process left after SIGTERM to the launcher" wait_until 3 no_process "acs-s-$tag 300"

"$ACS" exec -- /bin/bash -c 'exec -a acs-k-$1 sleep 300' sh "$tag" >/dev/null 2>&1 &
lpid=$!
if wait_for "acs-k-$tag 300"; then ok "second sleeper seen from the host"; else fail "second sleeper never started"; fi
kill -KILL "$lpid"
wait "$lpid" 2>/dev/null
check "no process left after SIGKILL to the launcher" wait_until 3 no_process "acs-k-$tag 300"
is "$(wc -l </proc/self/mountinfo)" "$mounts_before" "no mount left in the caller's namespace"

# limits end with a clean report and a healthy host
run_acs $P --json -c '
import os
n = 0
try:
    while True:
        if os.fork() == 0:
            import time; time.sleep(5); os._exit(0)
        n += 1
except OSError as e:
    print("fork refused after", n, e.errno)
'
contains "$OUT" "fork refused after" "a fork bomb is stopped by the process limit"
is "$(printf '%s' "$OUT" | json_get .status)" "exited" "fork bomb run ends with a clean report"

run_acs $P --json -c 'x = bytearray(10 * 1024 ** 3); print(len(x))'
st=$(printf '%s' "$OUT" | json_get .status)
case $st in memory | signaled | exited) ok "10 GiB allocation ends with a report (status $st)" ;; *) fail "10 GiB allocation: status '$st'" ;; esac
lacks "$OUT" "10737418240" "10 GiB allocation does not succeed"
run_acs $P -c 'print("still fine")'
is "$OUT" "still fine" "the host is healthy after the limits"

# host preflight: a user namespace whose max_user_namespaces is 0 stands for a
# host that forbids them; the error names the setting and the fix
if unshare -Ur true 2>/dev/null; then
        out=$(unshare -Ur sh -c 'echo 0 >/proc/sys/user/max_user_namespaces && "$0" --profile unsafe-python -c "print(1)"; echo "rc=$?"' "$ACS" 2>&1)
        contains "$out" "rc=125" "no user namespaces -> 125"
        contains "$out" "user.max_user_namespaces" "the error names the sysctl"
        contains "$out" "sysctl -w" "the error says how to fix it"
else
        skip "unshare -Ur not available to this user"
fi

# a host whose /proc has overmounts (a container's masked paths): doctor and the
# run both say what is wrong
if unshare -Urm true 2>/dev/null; then
        out=$(unshare -Urm sh -c 'mount -t tmpfs none /proc/sys && "$0" doctor; "$0" --profile unsafe-python -c "print(1)"; echo "rc=$?"' "$ACS" 2>&1)
        contains "$out" "[FAIL] procfs in a user namespace" "doctor names the /proc overmount"
        contains "$out" "/proc/sys" "doctor lists it"
        contains "$out" "cannot mount a fresh /proc" "the run explains the failure"
        contains "$out" "rc=125" "and exits 125"
fi
out=$("$ACS" doctor 2>&1)
contains "$out" "[ ok ] procfs in a user namespace" "doctor: /proc is fully visible here"

# every clone path: an ordinary user takes the vfork-style one, root the one in
# the launcher's memory whose maps the launcher writes (both where acs-init is
# built in on x86-64); ACS_NO_FAST_CLONE=1 forces the fork-style one
for fast in 1 0; do
        if [ $fast = 1 ]; then unset ACS_NO_FAST_CLONE; else export ACS_NO_FAST_CLONE=1; fi
        run_acs $P -v -c 'import os, sys; print(os.path.exists("/proc/1")); sys.exit(7)'
        is "$RC" 7 "clone path fast=$fast: exit status passes through"
        is "$OUT" "False" "clone path fast=$fast: init is hidden in /proc (hidepid=ptraceable)"
        case $ERR in
        *vfork-style*) path=fast ;;
        *"launcher's memory, maps from the launcher"*) path=shared ;;
        *fork-style*) path=fork ;;
        *) path="?" ;;
        esac
        want=fork
        if [ $fast = 1 ] && [ "$(uname -m)" = x86_64 ]; then
                if [ "$(id -u)" -ne 0 ]; then want=fast; else want=shared; fi
        fi
        is "$path" "$want" "clone path fast=$fast: the expected clone was used"
        run_acs $P --timeout 0.5 -c 'import time; time.sleep(9)'
        is "$RC" 124 "clone path fast=$fast: timeout"
done
unset ACS_NO_FAST_CLONE

# /dev/null of the host is untouched by everything above
is "$(stat -c '%F %a' /dev/null)" "character special file 666" "host /dev/null untouched"

# The static acs-launch: runs alone; what needs shared libraries goes to acs-launch-full
if [ -x "$ACS_BUILDDIR/acs-launch-full" ]; then
        if LC_ALL=C readelf -l "$ACS" 2>/dev/null | grep -q "Requesting program interpreter"; then
                fail "with acs-launch-full built, acs-launch is static (no program interpreter)"
        else
                ok "with acs-launch-full built, acs-launch is static (no program interpreter)"
        fi
        mkdir "$TMP/alone" && cp "$ACS" "$TMP/alone/" && chmod -R a+rX "$TMP/alone"
        echo 'print("alone")' >"$TMP/alone.py"
        chmod 644 "$TMP/alone.py"
        out=$("$TMP/alone/acs-launch" --profile unsafe-python -- "$TMP/alone.py" 2>&1)
        is "$out" "alone" "the static acs-launch runs a program without acs-launch-full"
        # (an installed acs-launch-full in the configured libexec dir would be found)
        libexec=$(grep -a -o '/[[:print:]]*/libexec/acs-launch' "$ACS" | head -n 1)
        if [ -e "$libexec/acs-launch-full" ]; then
                skip "an installed $libexec/acs-launch-full exists"
        else
                out=$(echo 'x = 1' | "$TMP/alone/acs-launch" check - 2>&1)
                rc=$?
                is "$rc" 125 "without acs-launch-full, check fails with 125"
                contains "$out" "acs-launch-full" "and says what is missing"
        fi
        out=$(echo 'x = 1' | "$ACS" check - 2>&1)
        is "$?" 0 "with acs-launch-full next to it, check works"
        mkdir "$TMP/pws" && echo old >"$TMP/pws/f" && chmod -R a+rwX "$TMP/pws"
        out=$("$ACS" -q --profile unsafe-python -w "$TMP/pws" --patch - -c 'open("f", "w").write("new\n")' 2>&1)
        contains "$out" "+new" "the static acs-launch writes the patch"
        if [ ! -e "$libexec/acs-launch-full" ]; then
                # the patch is made in process (udiff.c): no helper, no library to load
                out=$("$TMP/alone/acs-launch" -q --profile unsafe-python -w "$TMP/pws" --patch - -c 'open("f", "w").write("new\n")' 2>&1)
                contains "$out" "-old
+new" "without acs-launch-full, --patch still works"
        fi
fi

tap_plan
