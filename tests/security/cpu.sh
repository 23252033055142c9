#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attack suite: `cpu` bounds the whole sandbox's CPU time, not each
# process's (security-model.md). RLIMIT_CPU is per process: in the first
# round N forked spinners got N x cpu seconds, and the kill was an
# unexplained SIGKILL. Each spinner here writes its own CPU time to a host
# directory every 20 ms, so the test can add up what the sandbox really got.
. "$ACS_SRCDIR/tests/security/sec-lib.sh"

mkdir -p "$TMP/out" && chmod 0777 "$TMP/out"
cat >"$TMP/spin.py" <<'PYEOF'
import os, sys, time
n = int(sys.argv[1])
def spin(i):
    last = 0.0
    while True:
        t = time.process_time()
        if t - last >= 0.02:
            # renamed into place: a kill between the open and the write leaves the last value
            with open("/out/.spin-%d" % i, "w") as f:
                f.write("%.3f" % t)
            os.replace("/out/.spin-%d" % i, "/out/spin-%d" % i)
            last = t
for i in range(1, n):
    if os.fork() == 0:
        spin(i)
spin(0)
PYEOF
chmod 0644 "$TMP/spin.py"

# total CPU seconds the spinners recorded (the last value of each)
total_cpu() {
        for _f in "$TMP"/out/spin-*; do [ -f "$_f" ] && { cat "$_f"; echo; }; done |
                awk '{ s += $1 } END { printf "%.2f", s }'
}

# spin N CPU DESC: N spinners under a profile with cpu = CPU stay within it; status cpu
spin() {
        rm -f "$TMP"/out/spin-* "$TMP"/out/.spin-*
        printf '[profile]\ninherit = unsafe-python\n[limits]\ncpu = %s\ntimeout = 60\n' "$2" >"$TMP/cpu$2.ini"
        chmod 0644 "$TMP/cpu$2.ini"
        run_acs --profile "$TMP/cpu$2.ini" --json --bind "$TMP/out" /out -- "$TMP/spin.py" "$1"
        _st=$(printf '%s' "$OUT" | json_get status)
        _got=$(total_cpu)
        is "$_st" cpu "$3: the run ends with status cpu"
        is "$(printf '%s' "$OUT" | json_get exit_code)" 137 "$3: exit status 137 (SIGKILL)"
        # the limit plus what the spinners can burn between two samples and
        # the kill (sampling is spaced by what is left of the budget)
        if awk -v g="$_got" -v l="$2" 'BEGIN { exit !(g > 0 && g <= l * 1.3 + 0.2) }'; then
                ok "$3: the sandbox got ${_got} s of CPU in all (limit $2 s)"
        else
                fail "$3: the sandbox's CPU time in all stays within the limit"
                diag "the spinners recorded ${_got} s in all under --cpu $2 (status $_st)"
        fi
}
spin 1 2 "one spinner"
spin 4 2 "four forked spinners"

ENF=$(printf '%s' "$OUT" | json_get limits.enforced.cpu)
case $ENF in
sampled | cgroup2) ok "the report says how the total is enforced: $ENF" ;;
*) fail "the report says how the total is enforced"; diag "limits.enforced.cpu: '$ENF'" ;;
esac

# a program that prints what a kill would print is still just exited
run_acs --profile unsafe-python --json -c 'import sys; print("MemoryError"); print("CPU time limit exceeded", file=sys.stderr); sys.exit(1)'
is "$(printf '%s' "$OUT" | json_get status)" exited "a printed 'MemoryError' stays status exited (the verdict is the kernel's)"
is "$RC" 1 "and the exit status is the program's own"

# --cpu on the command line: a short run is never sampled nor killed; a
# spinner is
run_acs --profile unsafe-python --json --cpu 1 -c 'print("quick")'
is "$(printf '%s' "$OUT" | json_get status)" exited "a short run under --cpu 1 is not touched"
run_acs --profile unsafe-python --json --cpu 1 --timeout 60 -c 'while True: pass'
is "$(printf '%s' "$OUT" | json_get status)" cpu "--cpu 1 ends a spinner with status cpu"
is "$(printf '%s' "$OUT" | json_get limits.cpu_s)" 1 "--cpu 1 is the report's cpu_s"
# a profile that locks cpu: the command line may tighten it, not loosen it
printf '[profile]\ninherit = unsafe-python\nlocked = cpu\n[limits]\ncpu = 2\n' >"$TMP/locked.ini"
chmod 0644 "$TMP/locked.ini"
run_acs --profile "$TMP/locked.ini" --cpu 10 -c 'print("ran")'
is "$RC" 125 "--cpu may not loosen a locked cpu (exit 125)"
contains "$ERR" "locks cpu" "and says the profile locks it"
run_acs --profile "$TMP/locked.ini" --cpu 1 -c 'print("ran")'
is "$OUT" ran "--cpu may tighten a locked cpu"

tap_plan
