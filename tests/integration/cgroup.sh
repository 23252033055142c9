#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Per-run cgroup v2 in a delegated subtree (security-model.md, "Limits"):
# the sandbox is cloned into PARENT/acs-run-PID-N, which is removed after a
# normal run, a timeout, SIGTERM, and (swept by the next run) SIGKILL of the
# launcher; an undelegated cgroup is never touched; the report says
# "cgroup2" only for limits the cgroup really sets.
#
# A delegated cgroup needs root to create (as systemd does for Delegate=yes):
# the root pass creates one for root (marked trusted.delegate=1) and one for
# an unprivileged user (chowned), and runs a copy of acs-launch as that user.
. "$ACS_SRCDIR/tests/lib.sh"

MNT=
for m in /sys/fs/cgroup /sys/fs/cgroup/unified; do
        if [ "$(stat -fc %T "$m" 2>/dev/null)" = cgroup2fs ]; then
                MNT=$m
                break
        fi
done

cat >"$TMP/sleeper.py" <<'EOF'
import os, sys, time
if os.fork() == 0:          # a double-forked daemon that ignores the end of the run
    os.setsid()
    if os.fork() == 0:
        time.sleep(60)
        os._exit(0)
    os._exit(0)
print("ready", flush=True)
time.sleep(float(sys.argv[1]))
EOF
echo 'print(open("/proc/self/cgroup").read().strip().splitlines()[-1])' >"$TMP/where.py"
chmod 644 "$TMP"/*.py

runs_in() { ls -d "$1"/acs-run-* 2>/dev/null; }

# --- no delegation: nothing is created, the rlimits say so -----------------
run_acs -v --json --profile unsafe-python -- "$TMP/where.py"
is "$RC" 0 "a run without a delegated cgroup works"
is "$(printf %s "$OUT" | json_get .limits.enforced.memory)" rlimit "without one, memory is enforced by rlimit"
contains "$ERR" "cgroup: none, rlimits only" "-v says no cgroup was used, and why"

if [ "$(id -u)" -ne 0 ] || [ -z "$MNT" ] || ! mkdir "$MNT/acs-test-$$" 2>/dev/null; then
        skip "creating a delegated cgroup needs root and a cgroup v2 hierarchy"
        tap_plan
        exit
fi
CG=$MNT/acs-test-$$
CGU=$MNT/acs-testu-$$
mkdir "$CGU"
cleanup_cg() {
        for d in "$CG" "$CGU"; do
                for r in "$d"/acs-run-* "$d"/acs-launcher; do
                        [ -d "$r" ] || continue
                        echo 1 >"$r/cgroup.kill" 2>/dev/null
                        sleep 0.1
                        rmdir "$r" 2>/dev/null
                done
                # whatever is left in it goes back to the root cgroup first
                while read -r p; do echo "$p" >"$MNT/cgroup.procs" 2>/dev/null; done <"$d/cgroup.procs"
                rmdir "$d" 2>/dev/null
        done
        rm -rf "$TMP"
}
trap cleanup_cg EXIT

# in_cg DIR CMD...: run CMD as a process of cgroup DIR (the same pid: `in_cg ... &` gives $!)
IN_CG='echo $$ >"$1/cgroup.procs" && shift && exec "$@"'
in_cg() { sh -c "$IN_CG" sh "$@"; }

# --- root in a cgroup that is not marked delegated: left alone -------------
in_cg "$CG" "$ACS" -v --json --profile unsafe-python -- "$TMP/where.py" >"$TMP/o" 2>"$TMP/e"
contains "$(cat "$TMP/e")" "not delegated" "root: an unmarked cgroup (a service's own) is not taken over"
is "$(runs_in "$CG")" "" "root: nothing was created in it"

/usr/bin/python3 -c 'import os, sys; os.setxattr(sys.argv[1], "trusted.delegate", b"1")' "$CG"

# --- root, delegated: the sandbox lives in its own cgroup ------------------
in_cg "$CG" "$ACS" -v --json --profile unsafe-python -- "$TMP/where.py" >"$TMP/o" 2>"$TMP/e"
is "$(json_get .stdout.text <"$TMP/o")" "0::/" "root, delegated: the sandbox sees its cgroup as / (cgroup namespace)"
contains "$(cat "$TMP/e")" "cgroup: $CG/acs-run-" "root, delegated: -v names the run's cgroup"
is "$(runs_in "$CG")" "" "root, delegated: the run's cgroup is removed after the run"

out=$(in_cg "$CG" "$ACS" doctor 2>&1)
contains "$out" "own cgroup under $CG" "root, delegated: doctor finds the delegated cgroup"

# membership, seen from the host, while the program runs
sh -c "$IN_CG" sh "$CG" "$ACS" --profile unsafe-python --timeout 20 -- "$TMP/sleeper.py" 30 >"$TMP/o" 2>"$TMP/e" &
lpid=$!
i=0
while [ $i -lt 100 ] && ! grep -q ready "$TMP/o"; do sleep 0.05; i=$((i + 1)); done
run=$(runs_in "$CG")
procs=$(cat "$run/cgroup.procs" 2>/dev/null | wc -l)
[ "$procs" -ge 3 ] && ok "root: init, program and daemon are all in $run ($procs processes)" ||
        fail "root: the sandbox's processes are in the run's cgroup (found '$run' with $procs)"
mine=$(cat "$CG/cgroup.procs")
is "$mine" "$lpid" "root: the launcher itself stays outside the run's cgroup"
kill -TERM $lpid
wait $lpid
is "$?" 143 "root: SIGTERM to the launcher ends the run (143)"
is "$(runs_in "$CG")" "" "root: after SIGTERM the run's cgroup is gone, daemon and all"

# a timeout with a daemon that outlives the program
in_cg "$CG" "$ACS" --json --profile unsafe-python --timeout 1 -- "$TMP/sleeper.py" 30 >"$TMP/o" 2>"$TMP/e"
is "$(json_get .status <"$TMP/o")" timeout "root: timeout in a cgroup is a timeout"
is "$(runs_in "$CG")" "" "root: after a timeout the run's cgroup is gone"

# SIGKILL to the launcher leaves an empty cgroup; the next run sweeps it
sh -c "$IN_CG" sh "$CG" "$ACS" --profile unsafe-python --timeout 20 -- "$TMP/sleeper.py" 30 >"$TMP/o" 2>"$TMP/e" &
lpid=$!
i=0
while [ $i -lt 100 ] && ! grep -q ready "$TMP/o"; do sleep 0.05; i=$((i + 1)); done
stale=$(runs_in "$CG")
kill -KILL $lpid
wait $lpid 2>/dev/null
i=0
while [ $i -lt 100 ] && [ -n "$stale" ] && [ "$(cat "$stale/cgroup.procs" 2>/dev/null)" != "" ]; do
        sleep 0.05
        i=$((i + 1))
done
is "$(cat "$stale/cgroup.procs" 2>/dev/null)" "" "root: SIGKILL of the launcher: the sandbox dies with it (PDEATHSIG)"
in_cg "$CG" "$ACS" --profile unsafe-python -- "$TMP/where.py" >/dev/null 2>&1
check "root: the next run removed the stale cgroup of the killed launcher" test ! -e "$stale"
is "$(runs_in "$CG")" "" "root: and left none of its own"

# a live run whose launcher we cannot see (another pid namespace) is never swept
other=$CG/acs-run-4194000-0
mkdir "$other"
sh -c "$IN_CG" sh "$other" sleep 30 &
spid=$!
wait_until 5 grep -q . "$other/cgroup.procs" || fail "test setup: the foreign sleeper never joined $other"
in_cg "$CG" "$ACS" --profile unsafe-python -- "$TMP/where.py" >/dev/null 2>&1
check "root: a populated cgroup of an unknown launcher is left alone" test -d "$other"
check "root: and its process still runs" kill -0 $spid
kill $spid
wait $spid 2>/dev/null
rmdir "$other"

# the sandbox's total CPU time, from the run's cpu.stat (no controller needed)
cat >"$TMP/spin.py" <<'EOF'
import os
for i in range(3):
    if os.fork() == 0:
        break
while True:
    pass
EOF
chmod 644 "$TMP/spin.py"
in_cg "$CG" "$ACS" --json --profile unsafe-python --cpu 1 --timeout 60 -- "$TMP/spin.py" >"$TMP/o" 2>"$TMP/e"
is "$(json_get .status <"$TMP/o")" cpu "root, delegated: forked spinners end at the cgroup's CPU total (status cpu)"
is "$(json_get .limits.enforced.cpu <"$TMP/o")" cgroup2 "root, delegated: the report says the cgroup counts the CPU time"
contains "$(json_get .confinement.cgroup <"$TMP/o")" "acs-run-" "root, delegated: confinement names the run's cgroup"
is "$(runs_in "$CG")" "" "root, delegated: after a CPU kill the run's cgroup is gone"

# honest report: cgroup2 only where the controller exists
ctl=$(cat "$CG/cgroup.controllers")
in_cg "$CG" "$ACS" --json --profile unsafe-python -- "$TMP/where.py" >"$TMP/o" 2>"$TMP/e"
case " $ctl " in
*" memory "*)
        is "$(json_get .limits.enforced.memory <"$TMP/o")" cgroup2 "root: memory.max enforces the memory limit"
        sh -c "$IN_CG" sh "$CG" "$ACS" --profile unsafe-python --memory 64M -- "$TMP/sleeper.py" 5 >"$TMP/o" 2>"$TMP/e" &
        lpid=$!
        i=0
        while [ $i -lt 100 ] && ! grep -q ready "$TMP/o"; do sleep 0.05; i=$((i + 1)); done
        run=$(runs_in "$CG")
        is "$(cat "$run/memory.max" 2>&1)" 67108864 "root: memory.max is the --memory limit"
        is "$(cat "$run/memory.swap.max" 2>&1)" 0 "root: no swap to escape into"
        kill -TERM $lpid
        wait $lpid
        cat >"$TMP/hog.py" <<'EOF'
b = []
while True:
    b.append(bytearray(16 << 20))
EOF
        chmod 644 "$TMP/hog.py"
        in_cg "$CG" "$ACS" --json --profile unsafe-python --memory 64M -- "$TMP/hog.py" >"$TMP/o" 2>"$TMP/e"
        is "$(json_get .status <"$TMP/o")" memory "root: going over memory.max is status memory"
        ;;
*)
        is "$(json_get .limits.enforced.memory <"$TMP/o")" rlimit \
                "root: no memory controller here ($ctl): the report still says rlimit"
        ;;
esac

# --- an ordinary user in a cgroup delegated to it (chowned, as systemd does)
user=${ACS_TEST_USER:-nobody}
uid=$(id -u "$user")
gid=$(id -g "$user")
chown "$uid:$gid" "$CGU" "$CGU/cgroup.procs" "$CGU/cgroup.subtree_control" "$CGU/cgroup.threads"
mkdir "$TMP/u" && cp "$ACS" "$ACS_BUILDDIR"/acs-launch-full* "$TMP/u/" 2>/dev/null; cp -r "$ACS_PROFILE_PATH" "$TMP/u/profiles" && chmod -R a+rX "$TMP/u"
as_user() {
        in_cg "$CGU" setpriv --reuid="$uid" --regid="$gid" --clear-groups \
                env -i PATH=/usr/bin:/bin ACS_PROFILE_PATH="$TMP/u/profiles" "$TMP/u/acs-launch" "$@"
}
as_user -v --json --profile unsafe-python -- "$TMP/where.py" >"$TMP/o" 2>"$TMP/e"
is "$(json_get .stdout.text <"$TMP/o")" "0::/" "user, delegated: the sandbox sees its cgroup as /"
contains "$(cat "$TMP/e")" "cgroup: $CGU/acs-run-" "user, delegated: -v names the run's cgroup"
is "$(runs_in "$CGU")" "" "user, delegated: the run's cgroup is removed after the run"
out=$(as_user doctor 2>&1)
contains "$out" "own cgroup under $CGU" "user, delegated: doctor finds the delegated cgroup"
as_user --json --profile unsafe-python --timeout 1 -- "$TMP/sleeper.py" 30 >"$TMP/o" 2>"$TMP/e"
is "$(json_get .status <"$TMP/o")" timeout "user: timeout in a cgroup"
is "$(runs_in "$CGU")" "" "user: after a timeout the run's cgroup is gone"

# the user's launcher cannot use the root-owned cgroup even if placed there
chown 0:0 "$CGU"
as_user -v --json --profile unsafe-python -- "$TMP/where.py" >"$TMP/o" 2>"$TMP/e"
contains "$(cat "$TMP/e")" "not delegated" "user: a cgroup owned by someone else is not used"
is "$(runs_in "$CGU")" "" "user: nothing was created in it"

tap_plan
