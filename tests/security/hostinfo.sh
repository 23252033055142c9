#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attack suite: no host service through a bind, no host secret or identity
# in /proc (security-model.md). connect(2) to a unix socket needs write
# permission on the socket, not a writable mount: in the first round a
# socket in a --ro-bind directory or a read-only workspace (docker.sock, an
# ssh agent, X11) was reachable. /proc showed the host session keyring's key
# descriptions, the kernel command line, the boot id and bind sources.
. "$ACS_SRCDIR/tests/security/sec-lib.sh"

# --- host sockets ------------------------------------------------------------
mkdir -p "$TMP/svc/sub"
chmod -R 0777 "$TMP/svc"
cat >"$TMP/server.py" <<'PYEOF'
import os, socket, sys, time
socks = []
for p in sys.argv[2:]:
    s = socket.socket(socket.AF_UNIX)
    s.bind(p)
    os.chmod(p, 0o777)  # anyone may connect: only the sandbox must not
    s.listen(16)
    socks.append(s)
open(sys.argv[1], "w").write("ready")
time.sleep(120)
PYEOF
python3 "$TMP/server.py" "$TMP/server.ready" "$TMP/svc/daemon.sock" "$TMP/svc/sub/agent.sock" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; rm_tmp' EXIT
i=0
while [ ! -s "$TMP/server.ready" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done

cat >"$TMP/conn.py" <<'PYEOF'
import errno, socket, sys
for name, path in zip(sys.argv[1::2], sys.argv[2::2]):
    c = socket.socket(socket.AF_UNIX)
    try:
        c.connect(path)
        print("%s=CONNECTED" % name)
    except OSError as e:
        print("%s=%s" % (name, errno.errorcode.get(e.errno, e.errno)))
print("END")
PYEOF
chmod 0644 "$TMP/conn.py" "$TMP/server.py"

# the control: the host itself can connect
OUT=$(python3 "$TMP/conn.py" host "$TMP/svc/daemon.sock")
expect_field host CONNECTED "control: the host service accepts connections"

# through_bind DESC OPTIONS...: neither socket is reachable through the bind at /h
through_bind() {
        _d=$1
        shift
        run_acs --profile unsafe-python "$@" -- "$TMP/conn.py" top /h/daemon.sock nested /h/sub/agent.sock
        reached "$_d"
        expect_not_field top CONNECTED "$_d: a host socket is not reachable"
        expect_not_field nested CONNECTED "$_d: nor one in a subdirectory"
}
through_bind "--ro-bind" --ro-bind "$TMP/svc" /h
through_bind "--bind (read-write)" --bind "$TMP/svc" /h
printf '[profile]\ninherit = unsafe-python\n[filesystem]\nworkspace = readonly\n' >"$TMP/ro-ws.ini"
chmod 0644 "$TMP/ro-ws.ini"
run_acs --profile "$TMP/ro-ws.ini" -w "$TMP/svc" -- "$TMP/conn.py" top /workspace/daemon.sock nested /workspace/sub/agent.sock
reached "workspace = readonly"
expect_not_field top CONNECTED "workspace = readonly: a host socket is not reachable"
expect_not_field nested CONNECTED "workspace = readonly: nor one in a subdirectory"
run_acs --profile unsafe-python -w "$TMP/svc" -- "$TMP/conn.py" top /workspace/daemon.sock
expect_not_field top CONNECTED "workspace = overlay: a host socket is not reachable"

# the profile's sibling read-only dirs share one overlay of their parent
# (plan.h: acs_plan_ro_layers): no socket inside either is reachable, and a
# sibling that is a symlink shows its target, not the layer's entry
mkdir -p "$TMP/svc/other/deeper" "$TMP/elsewhere"
echo other-file >"$TMP/svc/other/f"
echo elsewhere-file >"$TMP/elsewhere/f"
ln -s "$TMP/elsewhere" "$TMP/svc/link"
chmod -R a+rX "$TMP/svc" "$TMP/elsewhere"
printf '[profile]\ninherit = unsafe-python\n[filesystem]\nro_bind += %s %s %s\n' \
        "$TMP/svc/sub" "$TMP/svc/other" "$TMP/svc/link" >"$TMP/layer.ini"
chmod 0644 "$TMP/layer.ini"
cat >"$TMP/layer.py" <<'PYEOF'
import errno, os, socket, sys
d = sys.argv[1]
c = socket.socket(socket.AF_UNIX)
try:
    c.connect(d + "/sub/agent.sock")
    print("nested=CONNECTED")
except OSError as e:
    print("nested=%s" % errno.errorcode.get(e.errno, e.errno))
devs = {}
for line in open("/proc/self/mountinfo"):
    f = line.split()
    devs[f[4]] = f[2]
print("shared=%s" % ("yes" if devs.get(d + "/sub") == devs.get(d + "/other") else "no"))
print("other=%s" % open(d + "/other/f").read().strip())
print("link=%s" % open(d + "/link/f").read().strip())
print("parent=%s" % ("seen" if os.path.exists(d + "/daemon.sock") else "hidden"))
print("END")
PYEOF
chmod 0644 "$TMP/layer.py"
run_acs --profile "$TMP/layer.ini" -- "$TMP/layer.py" "$TMP/svc"
reached "shared read-only layer"
expect_field shared yes "profile's sibling read-only dirs: shown from one shared overlay"
expect_not_field nested CONNECTED "shared read-only layer: a host socket is not reachable"
expect_field other other-file "shared read-only layer: each dir shows its own files"
expect_field link elsewhere-file "shared read-only layer: a sibling that is a symlink shows its target"
expect_field parent hidden "shared read-only layer: the parent's other entries are not shown"

# a socket as the bind source itself: refused unless the profile names it
run_acs --profile unsafe-python --ro-bind "$TMP/svc/daemon.sock" /d.sock -- "$TMP/conn.py" file /d.sock
is "$RC" 125 "binding a host socket as a file is refused (exit 125)"
contains "$ERR" "[filesystem] sockets" "and the message names the profile key that allows it"

# the one the profile names is reachable, and only that one
printf '[profile]\ninherit = unsafe-python\n[filesystem]\nsockets = %s\n' "$TMP/svc/daemon.sock" >"$TMP/sockets.ini"
chmod 0644 "$TMP/sockets.ini"
run_acs --profile "$TMP/sockets.ini" --ro-bind "$TMP/svc" "$TMP/svc" -- "$TMP/conn.py" \
        named "$TMP/svc/daemon.sock" other "$TMP/svc/sub/agent.sock"
reached "[filesystem] sockets"
expect_field named CONNECTED "[filesystem] sockets: the named socket is reachable"
expect_not_field other CONNECTED "[filesystem] sockets: another one in the same directory is not"

# --- /proc: no host secret or identity ----------------------------------------
# a key in the launcher's session keyring, as a login shell or ssh has them
DESC="acs-host-secret-$MARK"
cat >"$TMP/keys.py" <<'PYEOF'
import ctypes, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
# keyctl(KEYCTL_JOIN_SESSION_KEYRING, name): a session keyring for this test
if libc.syscall(250, 1, b"acs-test-session") < 0:
    print("NOKEYS"); sys.exit(0)
if libc.syscall(248, b"user", sys.argv[1].encode(), b"hunter2", 7, -3) < 0:  # add_key(..., @s)
    print("NOKEYS"); sys.exit(0)
visible = sys.argv[1] in open("/proc/keys").read()
print("HOSTSEES=%s" % ("yes" if visible else "no"), flush=True)
sys.exit(subprocess.run(sys.argv[2:]).returncode)
PYEOF
chmod 0644 "$TMP/keys.py"
OUT=$(python3 "$TMP/keys.py" "$DESC" "$ACS" exec -- /bin/sh -c \
        "if grep -q '$DESC' /proc/keys; then echo INSIDE=seen; else echo INSIDE=hidden; fi; echo END" 2>&1)
case $OUT in
*NOKEYS*) skip "this host has no key retention service" ;;
*)
        expect_field HOSTSEES yes "control: the launcher's session keyring holds the key"
        expect_field INSIDE hidden "the host session keyring's keys are not listed in the sandbox's /proc/keys"
        ;;
esac

shrun 'printf "cmdline=%s\n" "$(wc -c </proc/cmdline | tr -d " ")"
printf "boot_id=%s\n" "$(cat /proc/sys/kernel/random/boot_id)"
printf "keyusers=%s\n" "$(wc -c </proc/key-users | tr -d " ")"
printf "timers=%s\n" "$(wc -c </proc/timer_list 2>/dev/null | tr -d " ")"
echo END'
reached "/proc probe"
expect_field cmdline 0 "/proc/cmdline does not show the host kernel command line"
expect_not_field boot_id "$(cat /proc/sys/kernel/random/boot_id)" "/proc/sys/kernel/random/boot_id is not the host's"
expect_field keyusers 0 "/proc/key-users is empty"
if [ -e /proc/timer_list ]; then expect_field timers 0 "/proc/timer_list is empty"; else skip "no /proc/timer_list here"; fi
B1=$(field boot_id)
shrun 'cat /proc/sys/kernel/random/boot_id; echo END'
lacks "$OUT" "$B1" "each run gets a boot id of its own"

# bind sources: a read-only bind and the workspace do not show their host paths
mkdir -p "$TMP/secret-project-$MARK" "$TMP/ws-$MARK"
chmod 0755 "$TMP/secret-project-$MARK" "$TMP/ws-$MARK"
shrun 'cat /proc/self/mountinfo; echo END' --ro-bind "$TMP/secret-project-$MARK" /data -w "$TMP/ws-$MARK"
reached "mountinfo probe"
lacks "$OUT" "secret-project-$MARK" "/proc/self/mountinfo does not show a read-only bind's host path"
lacks "$OUT" "ws-$MARK" "/proc/self/mountinfo does not show the workspace's host path"

tap_plan
