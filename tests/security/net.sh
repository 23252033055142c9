#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attack suite: the network (security-model.md: network namespace with no
# interfaces or loopback only; seccomp allows only AF_UNIX with `none`).
# A listener on the host's 127.0.0.1 (TCP) and on a host abstract unix
# socket must be unreachable in both modes; the listener logs any connection.
. "$ACS_SRCDIR/tests/security/sec-lib.sh"

start_listener
trap 'stop_listener; rm -rf "$TMP"' EXIT
if [ -z "$PORT" ]; then
        fail "test setup: host listener did not start"
        tap_plan
        exit 1
fi
# control: the listener works from the host
python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 2).close()' "$PORT" &&
        wait_until 5 grep -q CONNECTED "$TMP/listener.log"
if grep -q CONNECTED "$TMP/listener.log"; then ok "control: host listener accepts from the host"; else fail "control: host listener accepts from the host"; fi
: >"$TMP/listener.log"
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.close()' "$TMP/ws/daemon.sock" &&
        wait_until 5 grep -q CONNECTED "$TMP/listener.log"
if grep -q CONNECTED "$TMP/listener.log"; then ok "control: the daemon socket in the workspace accepts from the host"; else fail "control: the daemon socket in the workspace accepts from the host"; fi
: >"$TMP/listener.log"

ATTACK="
import socket
def tcp():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(2)
    s.connect(('127.0.0.1', $PORT))
    s.close()
tryf('tcp', tcp)
def tcp6():
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.settimeout(2)
    s.connect(('::ffff:127.0.0.1', $PORT))
tryf('tcp6', tcp6)
def abstract():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(2)
    s.connect('\0$MARK-abstract')
tryf('abstract', abstract)
tryf('udp_out', lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('8.8.8.8', 53)))
tryf('packet', lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0).close())
tryf('netlink_audit', lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 9).close())
tryf('vsock', lambda: socket.socket(40, socket.SOCK_STREAM).close())
tryf('ifaces', lambda: ','.join(sorted(n for _, n in socket.if_nameindex())))
tryf('unix', lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close())
"

pyrun "$ATTACK
print('END')
"
reached "net none: probes"
expect_field tcp EPERM "net none: TCP socket to host 127.0.0.1:$PORT refused by seccomp (EPERM)"
expect_not_field tcp6 OK "net none: IPv6 connect fails"
expect_not_field abstract OK "net none: host abstract unix socket unreachable"
expect_not_field udp_out OK "net none: UDP to the outside fails"
expect_not_field packet OK "net none: AF_PACKET refused"
expect_not_field netlink_audit OK "net none: AF_NETLINK refused"
expect_not_field vsock OK "net none: AF_VSOCK refused"
expect_field unix OK "net none: control: AF_UNIX sockets work"

pyrun "$ATTACK
def loop_self():
    srv = socket.socket(); srv.bind(('127.0.0.1', 0)); srv.listen(1)
    c = socket.create_connection(srv.getsockname(), 2); c.close()
tryf('loop_self', loop_self)
print('END')
" --net loopback
reached "net loopback: probes"
expect_field loop_self OK "net loopback: control: the sandbox's own loopback works"
expect_not_field tcp OK "net loopback: connect to host 127.0.0.1:$PORT fails"
expect_not_field tcp6 OK "net loopback: IPv6 connect to the host fails"
expect_not_field abstract OK "net loopback: host abstract unix socket unreachable"
expect_not_field udp_out OK "net loopback: UDP to the outside fails"
expect_not_field packet OK "net loopback: AF_PACKET refused"
expect_not_field netlink_audit OK "net loopback: AF_NETLINK (audit) refused"
expect_not_field vsock OK "net loopback: AF_VSOCK refused"
is "$(field ifaces)" "lo" "net loopback: only the lo interface exists"

# A host daemon's unix socket that happens to live in the workspace (a dev
# server, git's fsmonitor--daemon.ipc): the overlay shows the inode, but
# connect() must not reach the host listener through it.
WSPROBE="
import socket
def ws_sock():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(2)
    s.connect('/workspace/daemon.sock')
tryf('ws_sock', ws_sock)
tryf('ws_sock_seen', lambda: str(os.path.exists('/workspace/daemon.sock')))
print('END')
"
for mode in none loopback; do
        pyrun "$WSPROBE" -w "$TMP/ws" --net $mode
        reached "net $mode: workspace socket probe"
        expect_field ws_sock_seen True "net $mode: control: the host daemon's socket is visible in /workspace"
        expect_not_field ws_sock OK "net $mode: connect() to a host daemon's socket in the workspace fails"
done

if ! listener_barrier; then
        fail "the host listener saw no connection from any sandbox (test setup: barrier failed)"
elif grep -q CONNECTED "$TMP/listener.log"; then
        fail "the host listener saw no connection from any sandbox"
        diag "$(cat "$TMP/listener.log")"
else
        ok "the host listener saw no connection from any sandbox"
fi

# the same through exec and a shell tool: python is the only client we
# can count on, but /dev/tcp style redirections are a classic too
shrun "bash -c 'exec 3<>/dev/tcp/127.0.0.1/$PORT' 2>/dev/null && echo TCP-LEAK; echo END" --net loopback
reached "exec: /dev/tcp probe"
lacks "$OUT" "TCP-LEAK" "exec: /dev/tcp to the host fails"

tap_plan
