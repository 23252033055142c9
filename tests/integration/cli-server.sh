#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# `acs-launch --server PATH` (issue 14): a run handed to a running
# `acs-launch serve` prints exactly what the cold run prints (stdout,
# stderr, exit status; with --json the same report but for timings), falls
# back to a cold run when no server answers or the server cannot run it so,
# never gets more than the server's policy grants, and leaves nothing behind.
. "$ACS_SRCDIR/tests/lib.sh"

S=$TMP/serve.sock
ws=$TMP/ws
mkdir -p "$ws"
chmod 0755 "$ws"

# start_server SOCKET ARGS...: serve in the background ($SPID), ready once
# the socket answers
start_server() {
        _s=$1
        shift
        "$ACS" serve --socket "$_s" "$@" 2>>"$TMP/serve.err" &
        SPID=$!
        wait_until 10 test -S "$_s"
}
stop_server() {
        kill -TERM "$1" 2>/dev/null
        wait "$1" 2>/dev/null
}

# capture NAME ARGS...: stdout, stderr and status of one run into $TMP/NAME.{out,err,rc}
capture() {
        _cn=$1
        shift
        (cd "$ws" && "$ACS" "$@" >"$TMP/$_cn.out" 2>"$TMP/$_cn.err" </dev/null)
        echo $? >"$TMP/$_cn.rc"
}

# a report without what may differ between two runs: timings, usage, the cgroup's name
norm() {
        /usr/bin/python3 -I -S -c 'import json, sys
r = json.load(open(sys.argv[1]))
for k in ("usage", "timings"):
    r.pop(k, None)
if isinstance(r.get("scan"), dict):
    r["scan"].pop("ms", None)
if isinstance(r.get("confinement"), dict):
    r["confinement"].pop("cgroup", None)
print(json.dumps(r, sort_keys=True))' "$1"
}

# same NAME DESC ARGS...: the run through the server equals the cold run
same() {
        _n=$1 _sd=$2
        shift 2
        capture "$_n.cold" --no-server "$@"
        capture "$_n.srv" --server "$S" "$@"
        is "$(cat "$TMP/$_n.srv.rc")" "$(cat "$TMP/$_n.cold.rc")" "$_sd: the same exit status ($(cat "$TMP/$_n.cold.rc"))"
        case " $* " in
        *" --json "*)
                is "$(norm "$TMP/$_n.srv.out")" "$(norm "$TMP/$_n.cold.out")" "$_sd: the same report but for timings"
                check "$_sd: the report through the server validates" schema_valid "$TMP/$_n.srv.out"
                ;;
        *)
                check "$_sd: the same stdout bytes" cmp -s "$TMP/$_n.srv.out" "$TMP/$_n.cold.out" ||
                        diag "$(head -c 300 "$TMP/$_n.srv.out") | $(head -c 300 "$TMP/$_n.cold.out")"
                ;;
        esac
        check "$_sd: the same stderr bytes" cmp -s "$TMP/$_n.srv.err" "$TMP/$_n.cold.err" ||
                diag "server: $(head -c 400 "$TMP/$_n.srv.err") | cold: $(head -c 400 "$TMP/$_n.cold.err")"
}

start_server "$S" -w "$ws" --max-timeout 30 || fail "serve --socket did not start: $(cat "$TMP/serve.err")"
SPID1=$SPID
fds_before=$(ls /proc/"$SPID1"/fd | wc -l)

# the server really runs it: under -v the CLI says so and the cold run's setup trace is absent
capture v -v --server "$S" -w "$ws" -c 'print(1)'
is "$(cat "$TMP/v.out")" 1 "through the server: the program's output"
contains "$(cat "$TMP/v.err")" "ran it in a ready sandbox" "-v: the server ran it"
lacks "$(cat "$TMP/v.err")" "plan ready" "-v: no cold run's setup trace"

big='for i in range(40000): print("line", i)'
for j in "" --json; do
        t=${j:-text}
        same "ok$j" "ok ($t)" -w "$ws" $j -c 'print("hello"); print(6 * 7)'
        same "exit$j" "exit 3 ($t)" -w "$ws" $j -c 'print("out"); raise SystemExit(3)'
        same "raise$j" "a traceback ($t)" -w "$ws" $j -c 'raise ValueError("boom")'
        same "rej$j" "refused by the scan ($t)" -w "$ws" $j -c 'import socket'
        same "timeout$j" "timeout ($t)" -w "$ws" --timeout 0.5 $j -c 'while True: pass'
        same "big$j" "output over the budget ($t)" -w "$ws" $j -c "$big"
        same "write$j" "a file written ($t)" -w "$ws" $j -c 'open("/workspace/new.txt", "w").write("x\n")'
        same "badprof$j" "a bad profile ($t)" -w "$ws" -p no-such-profile $j -c 'print(1)'
done
is "$(cat "$TMP/timeout.srv.rc")" 124 "the timeout through the server is 124"
is "$(cat "$TMP/rej.srv.rc")" 126 "the scan's refusal through the server is 126"
test ! -e "$ws/new.txt"
check "a run through the server leaves the host workspace alone (no --apply)" test $? -eq 0

# a CLI killed during its run: the server kills the run's sandbox, its worker and connection end
# (the count of the server's processes once the earlier runs' connections have ended)
few_left() { [ "$(pgrep -c -P "$SPID1")" -le 2 ]; }
steady() {
        _c1=$(pgrep -c -f -- "--socket $S")
        sleep 0.3
        base=$(pgrep -c -f -- "--socket $S")
        [ "$_c1" = "$base" ]
}
wait_until 10 few_left
wait_until 10 steady
# (sleeping: neither the CPU limit nor the 30 s timeout ends it within the check's 10 s)
(cd "$ws" && exec "$ACS" --server "$S" -w "$ws" --timeout 30 -c 'import time
while True: time.sleep(1)' >/dev/null 2>&1 </dev/null) &
cli=$!
grew() { [ "$(pgrep -c -f -- "--socket $S")" -gt "$base" ]; }
check "a run through the server: its connection process and worker ($base before)" wait_until 10 grew
sleep 0.5
kill -KILL "$cli"
wait "$cli" 2>/dev/null
back() { [ "$(pgrep -c -f -- "--socket $S")" -le "$base" ]; }
# a deadline on the clock (wait_until counts rounds, which a loaded machine stretches)
within() {
        _end=$(($(date +%s) + $1))
        shift
        until "$@"; do
                [ "$(date +%s)" -ge "$_end" ] && return 1
                sleep 0.1
        done
}
check "a CLI killed mid-run: its worker and connection process end within 10 s (not at the 30 s timeout)" within 10 back

# quick runs keep the spare: it takes the next client with the pool it has, so the set of the
# master's processes is the same after five runs (each of which a new spare took, before).
# A run still going after 250 ms is claimed by design (serve.c: CLAIM_ALONE_MS) and a new
# spare starts; a machine loaded enough to stretch print() that far makes the round say
# nothing about quick runs, so a round with a run over 200 ms (the client's whole wall
# time, a bound on the server's part) is done again, up to three times.
kids() { pgrep -P "$SPID1" | sort | tr '\n' ' '; }
ms_now() { echo $(($(date +%s%N) / 1000000)); }
quick_round() {
        wait_until 10 steady
        k0=$(kids)
        _quick=1
        for i in 1 2 3 4 5; do
                _t=$(ms_now)
                capture q$i -v --server "$S" -w "$ws" -c "print($i)"
                [ $(($(ms_now) - _t)) -lt 200 ] || _quick=0
        done
        [ "$_quick" = 1 ]
}
rounds=1
until quick_round || [ "$rounds" -ge 3 ]; do rounds=$((rounds + 1)); done
is "$(cat "$TMP/q1.out")$(cat "$TMP/q5.out")" 15 "five quick runs through the server: their output"
contains "$(cat "$TMP/q5.err")" "ran it in a ready sandbox" "the fifth quick run: in a ready sandbox"
if [ "$_quick" = 1 ]; then
        is "$(kids)" "$k0" "five quick runs: the master's processes are the ones before (the spare served them all)"
else
        skip "five quick runs: in $rounds rounds some run took over 200 ms here, which the server may claim"
fi

# a run that lasts is claimed: a new spare takes the next client while it runs
(cd "$ws" && exec "$ACS" --server "$S" -w "$ws" --timeout 30 -c 'import time
time.sleep(25)' >/dev/null 2>&1 </dev/null) &
cli=$!
check "a long run through the server: a new spare starts for the clients after it" wait_until 10 grew
capture q6 -v --server "$S" -w "$ws" -c 'print(6)'
is "$(cat "$TMP/q6.out")" 6 "a quick run while a long one runs: its output"
contains "$(cat "$TMP/q6.err")" "ran it in a ready sandbox" "a quick run while a long one runs: in a ready sandbox"
check "a quick run while a long one runs: the long one still runs" kill -0 "$cli"
kill -KILL "$cli"
wait "$cli" 2>/dev/null
check "the long run's client killed: its worker and connection process end" within 10 back

# a client that connects and says nothing does not hold the spare: the next run still goes through
/usr/bin/python3 -I -S -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); time.sleep(30)' "$S" &
mute=$!
check "a silent client: its connection is claimed" wait_until 10 grew
capture q7 -v --server "$S" -w "$ws" -c 'print(7)'
is "$(cat "$TMP/q7.out")" 7 "a run after a silent client: its output"
contains "$(cat "$TMP/q7.err")" "ran it in a ready sandbox" "a run after a silent client: in a ready sandbox"
kill "$mute"
wait "$mute" 2>/dev/null
check "the silent client gone: its connection process ends" within 10 back

# $ACS_SERVER when --server is absent; --no-server and --server '' force a cold run
capture env -v -w "$ws" -c 'print(1)'
lacks "$(cat "$TMP/env.err")" "ready sandbox" "no --server, no ACS_SERVER: cold"
(export ACS_SERVER="$S"; capture env2 -v -w "$ws" -c 'print(1)')
contains "$(cat "$TMP/env2.err")" "ran it in a ready sandbox" "ACS_SERVER: through the server"
(export ACS_SERVER="$S"; capture env3 -v --no-server -w "$ws" -c 'print(1)')
lacks "$(cat "$TMP/env3.err")" "ready sandbox" "--no-server wins over ACS_SERVER"
(export ACS_SERVER="$S"; capture env4 -v --server '' -w "$ws" -c 'print(1)')
lacks "$(cat "$TMP/env4.err")" "ready sandbox" "--server '' wins over ACS_SERVER"

# what the pooled path does not make exactly so runs cold, and says why under -v
cold_because() {
        _sd=$1 _why=$2
        shift 2
        capture cb -v --server "$S" "$@"
        contains "$(cat "$TMP/cb.err")" "$_why" "$_sd: cold, and -v says why"
        lacks "$(cat "$TMP/cb.err")" "ran it in a ready sandbox" "$_sd: not through the server"
}
cold_because "another workspace" "another workspace" -c 'print(1)'
cold_because "--apply" "--apply" -w "$ws" --apply -c 'print(1)'
cold_because "--keep" "--keep" -w "$ws" --keep "$TMP/keep" -c 'print(1)'
cold_because "a script file" "only" -w "$ws" /dev/null
cold_because "exec" "only" -w "$ws" exec -- true
cold_because "--memory" "limit" -w "$ws" --memory 64M -c 'print(1)'
export ACS_NO_FAST_CLONE=1
cold_because "ACS_NO_FAST_CLONE set for the CLI only" "ACS_NO_FAST_CLONE" -w "$ws" -c 'print(1)'
unset ACS_NO_FAST_CLONE
echo data >"$TMP/stdin.txt"
(cd "$ws" && "$ACS" -v --server "$S" -w "$ws" -c 'print(1)' <"$TMP/stdin.txt" >/dev/null 2>"$TMP/pipe.err")
contains "$(cat "$TMP/pipe.err")" "stdin is neither" "stdin from a file: cold (the program would read it)"

# the operator's policy: a profile it does not allow, a timeout over --max-timeout
cold_because "a profile the server does not allow" "does not allow profile pure-math" -w "$ws" -p pure-math -c 'print(1)'
cold_because "a timeout over --max-timeout" "at most 30 s" -w "$ws" --timeout 100 -c 'print(1)'

# no server: no socket, a stale socket, a server that never answers, one that hangs up
same_cold() {
        _sd=$1 _why=$2
        shift 2
        capture sc.cold --no-server -w "$ws" -c 'print("x")'
        capture sc -v "$@" -w "$ws" -c 'print("x")'
        is "$(cat "$TMP/sc.rc"):$(cat "$TMP/sc.out")" "$(cat "$TMP/sc.cold.rc"):$(cat "$TMP/sc.cold.out")" \
                "$_sd: the cold run's output and status"
        contains "$(cat "$TMP/sc.err")" "$_why" "$_sd: -v says why"
        capture sc.q "$@" -w "$ws" -c 'print("x")'
        check "$_sd: silent without -v" cmp -s "$TMP/sc.q.err" "$TMP/sc.cold.err"
}
same_cold "no socket" "no socket there" --server "$TMP/none.sock"
/usr/bin/python3 -I -S -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.close()' "$TMP/stale.sock"
same_cold "a stale socket" "stale" --server "$TMP/stale.sock"
/usr/bin/python3 -I -S -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
c = [s.accept() for _ in range(2)]
time.sleep(30)' "$TMP/mute.sock" &
mute=$!
wait_until 5 test -S "$TMP/mute.sock"
same_cold "a server that never answers" "no answer within" --server "$TMP/mute.sock"
kill "$mute" 2>/dev/null
/usr/bin/python3 -I -S -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
for _ in range(2):
    c, _ = s.accept(); c.recv(100); c.close()' "$TMP/hangup.sock" &
hang=$!
wait_until 5 test -S "$TMP/hangup.sock"
same_cold "a server that hangs up" "no answer" --server "$TMP/hangup.sock"
kill "$hang" 2>/dev/null
wait "$mute" "$hang" 2>/dev/null

# --session needs a server: without one a clear error, 125 (with --json one error report)
capture ns -w "$ws" --session a -c 'x = 1'
is "$(cat "$TMP/ns.rc")" 125 "--session without a server: 125"
contains "$(cat "$TMP/ns.err")" "--session a needs a running server" "--session without a server: says why"
capture nsj --json -w "$ws" --session a -c 'x = 1'
is "$(json_get .status <"$TMP/nsj.out")" error "--session without a server, --json: an error report"
capture nsb -w "$ws" --session 'a b' -c 'x = 1'
is "$(cat "$TMP/nsb.rc")" 125 "--session with a bad id: 125"

# sessions through the server: globals and workspace persist per id, ids never see each other
capture s1 --server "$S" -w "$ws" --session a -c 'x = 41'
capture s2 --server "$S" -w "$ws" --session a -c 'print(x + 1)'
is "$(cat "$TMP/s1.rc"):$(cat "$TMP/s2.rc"):$(cat "$TMP/s2.out")" "0:0:42" "--session a: x = 41, then print(x + 1) prints 42"
capture s3 --server "$S" -w "$ws" --session b -c 'print(x + 1)'
is "$(cat "$TMP/s3.rc")" 1 "--session b does not see a's globals (NameError, exit 1)"
contains "$(cat "$TMP/s3.err")" "NameError" "--session b: the traceback on stderr"
capture s4 --server "$S" -w "$ws" --session a -c 'open("/workspace/s.txt", "w").write("kept\n")'
capture s5 --server "$S" -w "$ws" --session a --json -c 'print(open("/workspace/s.txt").read(), end="")'
is "$(json_get .stdout.text <"$TMP/s5.out")" kept "--session a: the workspace persists (--json report)"
check "--session a: its --json report validates" schema_valid "$TMP/s5.out"
capture s6 --server "$S" -w "$ws" --session b -c 'print(open("/workspace/s.txt").read())'
is "$(cat "$TMP/s6.rc")" 1 "--session b does not see a's workspace"
capture s7 --server "$S" -w "$ws" --session a -c 'import socket'
is "$(cat "$TMP/s7.rc")" 126 "--session: every call is still scanned (126)"
capture s8 --server "$S" -w "$ws" --session a -c 'print(x)'
is "$(cat "$TMP/s8.out")" 41 "--session: a refused call leaves the session as it was"
test ! -e "$ws/s.txt"
check "a session's files stay in its sandbox" test $? -eq 0
capture s9 --server "$S" --session a -c 'print(x)'
is "$(cat "$TMP/s9.rc")" 125 "--session where the server cannot run it (another workspace): 125, never cold"
contains "$(cat "$TMP/s9.err")" "another workspace" "--session: says why the server cannot run it"
# a session's output is live, as a cold run's: what it flushed is on the CLI's stdout while it runs
(cd "$ws" && exec "$ACS" --server "$S" -w "$ws" --session live --timeout 30 -c 'import time
print("early", flush=True)
time.sleep(20)
print("late")' >"$TMP/live.out" 2>"$TMP/live.err" </dev/null) &
lcli=$!
said_early() { grep -q early "$TMP/live.out"; }
check "--session: what the program flushed reaches the CLI's stdout while it runs" within 15 said_early
check "--session: (the run was still going then)" kill -0 "$lcli"
kill -KILL "$lcli"
wait "$lcli" 2>/dev/null
# the keeper ends that session at once (it waited for the call's end before) and takes the next run
capture s9a --server "$S" -w "$ws" --session c -c 'print("next")'
is "$(cat "$TMP/s9a.out")" next "--session: a CLI killed mid-call does not hold up the next session's run"
# the cut-off run's tail: the same bytes live and at the end as through a cold run
capture s9b --server "$S" -w "$ws" --session c -c "for i in range(3000): print('line', i)
1 / 0"
capture s9c --no-server -w "$ws" -c "for i in range(3000): print('line', i)
1 / 0"
contains "$(cat "$TMP/s9c.out")" "omitted" "(the cold run's output was clipped: the comparison has a head and a tail)"
check "--session: a clipped output prints the same bytes as a cold run (head live, then the tail)" cmp -s "$TMP/s9b.out" "$TMP/s9c.out"
check "--session: and the same stderr" cmp -s "$TMP/s9b.err" "$TMP/s9c.err" ||
        diag "session: $(head -c 300 "$TMP/s9b.err") | cold: $(head -c 300 "$TMP/s9c.err")"
capture s10 --server "$S" -w "$ws" --session a --timeout 0.5 -c 'while True: pass'
is "$(cat "$TMP/s10.rc")" 124 "--session: a timeout is 124"
capture s11 --server "$S" -w "$ws" --session a -c 'print(x)'
is "$(cat "$TMP/s11.rc")" 1 "--session: a timed-out session is ended; the id starts afresh"

# --max-sessions and --session-idle hold for CLI sessions too
S2=$TMP/serve2.sock
start_server "$S2" -w "$ws" --max-sessions 1 --session-idle 1 || fail "serve --max-sessions 1 did not start"
SPID2=$SPID
capture m1 --server "$S2" -w "$ws" --session one -c 'y = 1'
capture m2 --server "$S2" -w "$ws" --session two -c 'y = 2'
is "$(cat "$TMP/m1.rc"):$(cat "$TMP/m2.rc")" "0:125" "--max-sessions 1: a second id is refused (125)"
contains "$(cat "$TMP/m2.err")" "at most 1 sessions" "--max-sessions: says so"
sleep 2
capture m3 --server "$S2" -w "$ws" --session one -c 'print(y)'
is "$(cat "$TMP/m3.rc")" 1 "--session-idle 1: an idle session has ended (NameError)"
stop_server "$SPID2"
S3=$TMP/serve3.sock
start_server "$S3" -w "$ws" --max-sessions 0 || fail "serve --max-sessions 0 did not start"
capture m4 --server "$S3" -w "$ws" --session one -c 'y = 1'
is "$(cat "$TMP/m4.rc")" 125 "--max-sessions 0: --session is an error (125)"
contains "$(cat "$TMP/m4.err")" "no sessions" "--max-sessions 0: says so"
stop_server "$SPID"

# nothing is left: the server's connection processes end with their clients, and all with SIGTERM
# each connection process ends with its client: the master keeps its spare and the session keeper
no_process_of() { ! pgrep -f -- "--socket $1" >/dev/null; }
check "after the runs the master has only its spare and its session keeper" wait_until 10 few_left
is "$(ls /proc/"$SPID1"/fd | wc -l)" "$fds_before" "after the runs the master holds as many fds as before"
stop_server "$SPID1"
check "SIGTERM: no process of the server is left" wait_until 10 no_process_of "$S"
check "SIGTERM: no process of the other servers is left" wait_until 10 no_process_of "$TMP/serve"
test ! -e "$S"
check "SIGTERM: the socket is removed" test $? -eq 0
tap_plan
