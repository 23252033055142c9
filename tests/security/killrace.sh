#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attack suite: the launcher killed at any moment of its start (security-model.md:
# nothing outlives a run). SIGKILL and SIGTERM land at random points of the
# first milliseconds -- planning, the clone, the child's steps in the
# launcher's memory (while root's launcher writes the id maps beside it), the
# program's start -- hundreds of times each. Afterwards no process of any of
# those runs is left (the program's command line and, before its exec, the
# child's carry a marker), nor a temporary directory or a mount in the
# caller's namespace.
. "$ACS_SRCDIR/tests/security/sec-lib.sh"

TRIES=${ACS_KILLRACE_TRIES:-300}
acs_tmp_dirs >"$TMP/dirs.before"
host_mounts >"$TMP/mounts.before"
# a number no other test sleeps for: /bin/sleep MARKNUM is this test's program
MARKNUM="86$$.5"

out=$(/usr/bin/python3 -I -S - "$ACS" "$MARKNUM" "$TRIES" <<'EOF'
import os, random, signal, sys, time
acs, mark, tries = sys.argv[1], sys.argv[2], int(sys.argv[3])
argv = [acs, "exec", "--", "/bin/sleep", mark]
null = os.open(os.devnull, os.O_RDWR)
fa = [(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
# how long a start takes here: the program's process appears (a deadline poll)
def started():
    for p in os.listdir("/proc"):
        try:
            if p.isdigit() and open(f"/proc/{p}/cmdline", "rb").read() == b"/bin/sleep\0" + mark.encode() + b"\0":
                return True
        except OSError:
            pass
    return False
t0 = time.perf_counter()
pid = os.posix_spawn(acs, argv, os.environ, file_actions=fa)
while not started() and time.perf_counter() - t0 < 10:
    pass
start_ms = (time.perf_counter() - t0) * 1e3
ran = started()
os.kill(pid, signal.SIGKILL)
os.waitpid(pid, 0)
if not ran:
    print("the program never started in 10 s: no try made")
    sys.exit(0)
# kill points spread over twice that: about half land before the program runs
alive = {signal.SIGKILL: 0, signal.SIGTERM: 0}
for i in range(tries):
    sig = signal.SIGKILL if i % 2 else signal.SIGTERM
    pid = os.posix_spawn(acs, argv, os.environ, file_actions=fa)
    end = time.perf_counter() + random.uniform(0, 2 * start_ms) / 1e3
    while time.perf_counter() < end:
        pass
    os.kill(pid, sig)
    _, st = os.waitpid(pid, 0)
    # SIGTERM: the launcher tears the sandbox down and exits 143 (or dies of
    # it, before its handler exists); SIGKILL: it dies. Anything else means it
    # ended before the signal, and this try tested nothing.
    if os.WIFSIGNALED(st) and os.WTERMSIG(st) == sig or sig == signal.SIGTERM and os.WIFEXITED(st) and os.WEXITSTATUS(st) == 143:
        alive[sig] += 1
print(f"start {start_ms:.1f} ms, signalled while alive: KILL {alive[signal.SIGKILL]}, TERM {alive[signal.SIGTERM]}")
EOF
)
diag "$out"
case $out in
*"KILL $((TRIES / 2)), TERM $((TRIES - TRIES / 2))") ok "$TRIES launchers signalled at random points of their start, each while it ran (control)" ;;
*) fail "$TRIES launchers signalled at random points of their start, each while it ran (control)" ;;
esac

# the kernel finishes what PR_SET_PDEATHSIG started: a deadline, not a sleep
gone() { ! pgrep -f -- "sleep $MARKNUM" >/dev/null 2>&1; }
if wait_until 10 gone; then ok "no process of any of the $TRIES runs is left"; else
        fail "no process of any of the $TRIES runs is left"
        diag "$(pgrep -af -- "sleep $MARKNUM" | head -n 5)"
        pkill -KILL -f -- "sleep $MARKNUM" 2>/dev/null
fi
left_dirs() { [ -z "$(acs_tmp_dirs | comm -13 "$TMP/dirs.before" -)" ]; }
if wait_until 5 left_dirs; then ok "no temporary directory is left"; else
        fail "no temporary directory is left"
        diag "left: $(acs_tmp_dirs | comm -13 "$TMP/dirs.before" -)"
fi
m=$(host_mounts | comm -13 "$TMP/mounts.before" -)
if [ -z "$m" ]; then ok "no mount is left in the caller's namespace"; else
        fail "no mount is left in the caller's namespace"
        diag "left: $m"
fi

tap_plan
