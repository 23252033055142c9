#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attack suite: processes and cleanup (security-model.md: pid namespace,
# nothing outlives a run; limits; every temporary directory and mount gone
# after a normal run, a timeout, SIGTERM to the launcher; the sandbox dies
# with the launcher).
. "$ACS_SRCDIR/tests/security/sec-lib.sh"

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# leaks_since BEFORE_DIRS BEFORE_MOUNTS DESC: no new launcher temp dir or
# host mount. A new dir may belong to a concurrent test's live run: give it
# two seconds to go away before calling it a leak.
leaks_since() {
        _i=0
        while :; do
                _new=$(acs_tmp_dirs | comm -13 "$1" -)
                [ -z "$_new" ] || [ $_i -ge 20 ] && break
                sleep 0.1
                _i=$((_i + 1))
        done
        if [ -z "$_new" ]; then ok "$3: no temporary directory left"; else
                fail "$3: no temporary directory left"
                diag "left: $_new"
        fi
        _m=$(host_mounts | comm -13 "$2" -)
        if [ -z "$_m" ]; then ok "$3: no mount left in the caller's namespace"; else
                fail "$3: no mount left in the caller's namespace"
                diag "left: $_m"
        fi
}
snapshot() {
        acs_tmp_dirs >"$TMP/dirs.before"
        host_mounts >"$TMP/mounts.before"
}
# no_survivor MARKER DESC
no_survivor() {
        if no_process "$1"; then ok "$2: no process of the run survives"; else
                fail "$2: no process of the run survives"
                diag "$(pgrep -af -- "$1" | head -n 5)"
                pkill -KILL -f -- "$1" 2>/dev/null
        fi
}

# --- a normal run ----------------------------------------------------------
snapshot
pyrun "print('normal-$MARK'); print('END')"
reached "normal run"
is "$RC" 0 "normal run exits 0"
no_survivor "normal-$MARK" "normal run"
leaks_since "$TMP/dirs.before" "$TMP/mounts.before" "normal run"

# --- a double-forked daemon ignoring SIGTERM/SIGHUP --------------------------
snapshot
pyrun "
import signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        open('/workspace/daemon.pid', 'w').write(str(os.getpid()))
        time.sleep(300)  # daemon-$MARK
        os._exit(0)
    os._exit(0)
time.sleep(0.3)
print('daemon-pid=' + open('/workspace/daemon.pid').read())
print('END')
"
reached "double-forked daemon started"
no_survivor "daemon-$MARK" "double-forked daemon"
leaks_since "$TMP/dirs.before" "$TMP/mounts.before" "daemon run"

# --- timeout: 124, within a second of the limit, everything killed -----------
snapshot
t0=$(now_ms)
pyrun "
import time
print('START', flush=True)
if os.fork() == 0:
    time.sleep(120)  # timeout-child-$MARK
time.sleep(120)  # timeout-$MARK
print('END')
" --timeout 1
t1=$(now_ms)
is "$RC" 124 "timeout: exit status 124"
contains "$OUT" START "timeout: the program had started"
el=$((t1 - t0))
if [ "$el" -lt 2000 ]; then ok "timeout: the run ended ${el} ms after start (limit 1 s + 1 s)"; else fail "timeout: the run ended ${el} ms after start (limit 1 s + 1 s)"; fi
no_survivor "timeout-$MARK" "timeout"
no_survivor "timeout-child-$MARK" "timeout (forked child)"
leaks_since "$TMP/dirs.before" "$TMP/mounts.before" "timeout"

# --- SIGTERM to the launcher ------------------------------------------------
# run_in_bg TAG: start a sleeping program, wait until it printed START;
# sets BG (the launcher's pid)
run_in_bg() {
        : >"$TMP/$1.out"
        "$ACS" --profile unsafe-python -c "
import os, time
print('START', flush=True)
if os.fork() == 0:
    time.sleep(120)  # $1-child-$MARK
time.sleep(120)  # $1-$MARK
" >"$TMP/$1.out" 2>"$TMP/$1.err" </dev/null &
        BG=$!
        _i=0
        while ! grep -q START "$TMP/$1.out" && [ $_i -lt 100 ]; do
                sleep 0.05
                _i=$((_i + 1))
        done
}
# wait_gone PID: up to 5 s
wait_gone() {
        _i=0
        while kill -0 "$1" 2>/dev/null && [ $_i -lt 100 ]; do
                sleep 0.05
                _i=$((_i + 1))
        done
        ! kill -0 "$1" 2>/dev/null
}

snapshot
run_in_bg sigterm
if grep -q START "$TMP/sigterm.out"; then ok "SIGTERM: the program had started"; else fail "SIGTERM: the program had started"; diag "$(cat "$TMP/sigterm.err")"; fi
kill -TERM "$BG"
if wait_gone "$BG"; then ok "SIGTERM: the launcher exits"; else fail "SIGTERM: the launcher exits"; kill -KILL "$BG"; fi
wait "$BG"
rc=$?
diag "launcher exit status after SIGTERM: $rc"
if [ "$rc" -ne 0 ]; then ok "SIGTERM: non-zero exit status ($rc)"; else fail "SIGTERM: non-zero exit status"; fi
no_survivor "sigterm-$MARK" "SIGTERM"
no_survivor "sigterm-child-$MARK" "SIGTERM (forked child)"
leaks_since "$TMP/dirs.before" "$TMP/mounts.before" "SIGTERM"

# --- SIGINT ---------------------------------------------------------------
snapshot
run_in_bg sigint
kill -INT "$BG"
if wait_gone "$BG"; then ok "SIGINT: the launcher exits"; else fail "SIGINT: the launcher exits"; kill -KILL "$BG"; fi
wait "$BG"
no_survivor "sigint-$MARK" "SIGINT"
leaks_since "$TMP/dirs.before" "$TMP/mounts.before" "SIGINT"

# --- SIGKILL to the launcher: the sandbox dies with it -----------------------
run_in_bg sigkill
kill -KILL "$BG"
wait "$BG" 2>/dev/null
_i=0
while ! no_process "sigkill-$MARK" && [ $_i -lt 40 ]; do
        sleep 0.05
        _i=$((_i + 1))
done
no_survivor "sigkill-$MARK" "SIGKILL to the launcher"
no_survivor "sigkill-child-$MARK" "SIGKILL to the launcher (forked child)"

# --- a bounded fork bomb under the processes limit ----------------------------
# 2^8 processes if nothing limited it: enough to exceed any sane limit,
# bounded so that a missing limit cannot take the host down.
pyrun "
import time
print('START', flush=True)
fails = 0
for i in range(8):
    try:
        os.fork()
    except OSError:
        fails += 1
if fails:
    print('EAGAIN', flush=True)
time.sleep(60)  # bomb-$MARK
" --timeout 2
contains "$OUT" START "fork bomb: started"
contains "$OUT" EAGAIN "fork bomb: fork fails at the processes limit"
if [ "$RC" -ne 125 ] && [ "$RC" -ne 0 ]; then ok "fork bomb: ends with the program's status ($RC), not a launcher error"; else fail "fork bomb: ends cleanly (rc=$RC)"; diag "$(printf %s "$ERR" | tail -n 3)"; fi
no_survivor "bomb-$MARK" "fork bomb"
pyrun "print('after-bomb'); print('END')"
is "$OUT" "after-bomb
END" "fork bomb: the next run works"

# --- limits cannot be raised from inside ------------------------------------
pyrun "
import resource
for name in ('RLIMIT_AS', 'RLIMIT_NPROC', 'RLIMIT_NOFILE', 'RLIMIT_FSIZE', 'RLIMIT_CPU'):
    lim = getattr(resource, name)
    soft, hard = resource.getrlimit(lim)
    try:
        resource.setrlimit(lim, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        res(name, 'RAISED' if hard != resource.RLIM_INFINITY else 'UNLIMITED')
    except (ValueError, OSError):
        res(name, 'REFUSED')
print('END')
"
reached "rlimit probe"
for k in RLIMIT_AS RLIMIT_NPROC RLIMIT_NOFILE RLIMIT_FSIZE RLIMIT_CPU; do
        expect_field $k REFUSED "$k cannot be raised inside"
done

# --- an output flood costs the launcher bounded memory -----------------------
cat >"$TMP/flood.py" <<'EOF'
import json, resource, subprocess, sys
code = "import sys\nb = b'x' * (1 << 20)\nfor i in range(300):\n    sys.stdout.buffer.write(b)\n"
p = subprocess.run([sys.argv[1], "--profile", "unsafe-python", "--json", "-c", code],
                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
print("flood_json_bytes=%d" % len(p.stdout))
try:
    print("flood_truncated=%s" % json.loads(p.stdout)["stdout"]["truncated"])
except Exception as e:
    print("flood_truncated=%r" % e)
print("flood_maxrss_mb=%d" % (resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024))
EOF
OUT=$(python3 "$TMP/flood.py" "$ACS" 2>&1)
diag "$(printf %s "$OUT" | tr '\n' ' ')"
expect_field flood_truncated True "300 MiB of output: the report says truncated"
mb=$(field flood_maxrss_mb)
if [ -n "$mb" ] && [ "$mb" -lt 100 ]; then ok "300 MiB of output: the launcher stays below 100 MiB ($mb MiB max RSS)"; else fail "300 MiB of output: the launcher stays below 100 MiB (got '$mb')"; fi
jb=$(field flood_json_bytes)
if [ -n "$jb" ] && [ "$jb" -lt 10000000 ]; then ok "300 MiB of output: the report is small ($jb bytes)"; else fail "300 MiB of output: the report is small (got '$jb')"; fi

# --- a 10 GiB allocation ----------------------------------------------------
pyrun "
print('START', flush=True)
b = bytearray(10 * 1024 ** 3)
print('ALLOCATED', flush=True)
"
contains "$OUT" START "10 GiB: started"
lacks "$OUT" ALLOCATED "10 GiB: the allocation does not succeed"
case $RC in
1) contains "$ERR" MemoryError "10 GiB: MemoryError" ;;
137) ok "10 GiB: killed (SIGKILL)" ;;
*) fail "10 GiB: MemoryError (1) or a kill (137), got $RC"; diag "$(printf %s "$ERR" | tail -n 3)" ;;
esac
run_acs --profile unsafe-python --json -c "b = bytearray(10 * 1024 ** 3)"
st=$(printf %s "$OUT" | json_get .status 2>/dev/null)
case $st in
exited | memory | signaled) ok "10 GiB: the JSON report says '$st'" ;;
*) fail "10 GiB: a clean JSON report (status '$st', rc $RC)"; diag "$(printf %s "$OUT$ERR" | head -c 400)" ;;
esac
pyrun "print('after-memory'); print('END')"
is "$RC" 0 "10 GiB: the next run works"

tap_plan
