# SPDX-License-Identifier: LGPL-2.1-or-later
# Helpers for the attack suite (tests/security/*.sh), on top of tests/lib.sh.
# Every attack runs through the real CLI with the scan off (profile
# unsafe-python, or `exec` under the shell profile) and prints what it
# observed; each test also checks a positive control (the program reached its
# end), so a launcher that fails to start cannot make an attack "pass".
. "$ACS_SRCDIR/tests/lib.sh"

# Safety guard. These probes try to mount, write system files, change the
# hostname...: run outside a sandbox (a broken launcher, a shim) as root they
# would damage the host. So first check, with a read-only probe, that the
# launcher really confines (no_new_privs, seccomp, no capabilities, a user
# namespace), for both `run` and `exec`; otherwise run no attack at all.
# The probes also use harmless arguments where the result is the same.
_guard_probe='st = open("/proc/self/status").read()
um = open("/proc/self/uid_map").read().split()
ok = ("NoNewPrivs:\t1" in st and "Seccomp:\t2" in st and "CapEff:\t0000000000000000" in st
      and um[:3] != ["0", "0", "4294967295"])
print("SANDBOX-" + ("CONFINED" if ok else "OPEN"))'
_g1=$("$ACS" --profile unsafe-python -c "$_guard_probe" </dev/null 2>&1)
_g2=$("$ACS" exec -- /bin/sh -c 'grep -q "^NoNewPrivs:.1" /proc/self/status && grep -q "^Seccomp:.2" /proc/self/status &&
        grep -q "^CapEff:.0000000000000000" /proc/self/status && ! grep -q "^ *0 *0 *4294967295" /proc/self/uid_map &&
        echo SANDBOX-CONFINED' </dev/null 2>&1)
case "$_g1 $_g2" in
*SANDBOX-CONFINED*SANDBOX-CONFINED*) ;;
*)
        echo "not ok 1 - the launcher does not confine (or does not run): attack suite not run"
        printf '# run:  %s\n# exec: %s\n' "$(printf %s "$_g1" | tail -n 3)" "$(printf %s "$_g2" | tail -n 3)"
        echo "1..1"
        exit 1
        ;;
esac

# A marker unique to this test run, for pgrep -f and host files.
MARK="acs-marker-$$-$(date +%s)"

# Python prelude: raw syscalls through ctypes, errno names.
PRELUDE='import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def sc(nr, *a):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(x) if isinstance(x, int) else x for x in a])
    return "OK" if r >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
def res(name, value):
    print("%s=%s" % (name, value), flush=True)
def tryf(name, f):
    try:
        v = f()
        res(name, "OK" if v is None else v)
    except OSError as e:
        res(name, errno.errorcode.get(e.errno, str(e.errno)))
'

# pyrun CODE [OPTIONS...]: run CODE under unsafe-python; sets OUT ERR RC.
# The code should end with print("END").
pyrun() {
        _code=$1
        shift
        run_acs --profile unsafe-python "$@" -c "$PRELUDE$_code"
}

# shrun SCRIPT [OPTIONS...]: run `sh -c SCRIPT` through `acs-launch exec`.
shrun() {
        _s=$1
        shift
        run_acs exec "$@" -- /bin/sh -c "$_s"
}

# field NAME: the value printed as NAME=value by the program (from $OUT)
field() { printf '%s\n' "$OUT" | sed -n "s/^$1=//p" | head -n 1; }

# expect_field NAME WANT DESC: the program reported NAME=WANT
expect_field() {
        _got=$(field "$1")
        if [ "$_got" = "$2" ]; then ok "$3"; else
                fail "$3"
                diag "$1: got '$_got', want '$2' (rc=$RC)"
                diag "stderr: $(printf %s "$ERR" | tail -n 5)"
        fi
}

# expect_not_field NAME BAD DESC: NAME was reported and is not BAD
expect_not_field() {
        _got=$(field "$1")
        if [ -n "$_got" ] && [ "$_got" != "$2" ]; then ok "$3"; else
                fail "$3"
                diag "$1: got '$_got' (must be reported and not '$2'; rc=$RC)"
                diag "stderr: $(printf %s "$ERR" | tail -n 5)"
        fi
}

# reached DESC: the program ran to its end (the control for the attacks above)
reached() {
        case $OUT in *END*) ok "$1 (program ran to its end)" ;; *)
                fail "$1 (program ran to its end)"
                diag "rc=$RC stdout: $(printf %s "$OUT" | tail -n 5)"
                diag "stderr: $(printf %s "$ERR" | tail -n 8)"
                ;;
        esac
}

# is_root: the test runs as root
is_root() { [ "$(id -u)" -eq 0 ]; }

# A free TCP port on 127.0.0.1 with a listener that logs every accepted
# connection to $TMP/listener.log; pid in LISTENER_PID, port in PORT.
start_listener() {
        : >"$TMP/listener.log"
        mkdir -p "$TMP/ws" && chmod 0777 "$TMP/ws"
        python3 -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
u = socket.socket(socket.AF_UNIX); u.bind("\0" + sys.argv[2]); u.listen(16)
import os
# a daemon socket inside a directory that a run shows as its workspace
w = socket.socket(socket.AF_UNIX); w.bind(sys.argv[3]); os.chmod(sys.argv[3], 0o777); w.listen(16)
open(sys.argv[1] + ".port", "w").write(str(s.getsockname()[1]))
import select
while True:
    r, _, _ = select.select([s, u, w], [], [])
    for l in r:
        c, a = l.accept()
        open(sys.argv[1], "a").write("CONNECTED %r\n" % (a,))
        c.close()
' "$TMP/listener.log" "$MARK-abstract" "$TMP/ws/daemon.sock" &
        LISTENER_PID=$!
        _i=0
        while [ ! -s "$TMP/listener.log.port" ] && [ $_i -lt 100 ]; do
                sleep 0.05
                _i=$((_i + 1))
        done
        PORT=$(cat "$TMP/listener.log.port" 2>/dev/null)
}
# listener_barrier: returns 0 once the listener has accepted every connection
# made before the call, so that "no connection" is asserted without a fixed
# sleep: one marked connection from the host to each of its sockets (accept
# queues are FIFO), waited for in the log (10 s), then those lines dropped.
listener_barrier() {
        python3 -c '
import socket, sys, time
log, port, abstract, path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
want, keep = [], []
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.connect(("127.0.0.1", port))
want.append("CONNECTED %r" % (t.getsockname(),)); keep.append(t)
for i, addr in enumerate(["\0" + abstract, path]):
    u = socket.socket(socket.AF_UNIX); me = "\0%s-barrier-%d" % (abstract, i)
    u.bind(me); u.connect(addr)
    want.append("CONNECTED %r" % (me.encode(),)); keep.append(u)
deadline = time.monotonic() + 10
while True:
    lines = open(log).read().splitlines()
    if all(w in lines for w in want):
        break
    if time.monotonic() > deadline:
        sys.exit("listener_barrier: the listener did not log %r" % ([w for w in want if w not in lines],))
    time.sleep(0.02)
open(log, "w").write("".join(l + "\n" for l in lines if l not in want))
' "$TMP/listener.log" "$PORT" "$MARK-abstract" "$TMP/ws/daemon.sock"
}
stop_listener() { kill "$LISTENER_PID" 2>/dev/null; wait "$LISTENER_PID" 2>/dev/null; }

# Temp dirs of the launcher that exist now (not this test's own).
acs_tmp_dirs() {
        for _d in /tmp/acs-* /tmp/.acs-*; do
                [ -e "$_d" ] || continue
                case $_d in /tmp/acs-test.* | /tmp/acs-stage.* | /tmp/acs-bench-*) continue ;; esac
                printf '%s\n' "$_d"
        done | sort
}

# mounts of this (host) mount namespace that mention the sandbox
host_mounts() { grep -E 'acs|workspace|overlay' /proc/self/mountinfo | sort; }
