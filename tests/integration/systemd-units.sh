#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# contrib/systemd: `systemd-analyze verify` finds nothing wrong, every
# service delegates its cgroup and sets none of the options that break
# sandboxes, and the socket-activated MCP server answers over its socket
# (systemd-socket-activate --inetd does what Accept=yes does).
. "$ACS_SRCDIR/tests/lib.sh"
units=$ACS_SRCDIR/contrib/systemd

for u in acs-launch-job.service acs-launch-mcp@.service acs-launch-serve.service; do
        is "$(grep -c '^Delegate=yes$' "$units/$u")" 1 "$u: Delegate=yes"
        bad=$(grep -E '^(ProtectKernelTunables|ProtectHostname|ProtectControlGroups|RestrictNamespaces|PrivateUsers|SystemCallFilter|ProtectProc|ProcSubset)=' "$units/$u")
        is "$bad" "" "$u sets none of the options that break sandboxes"
        for opt in ProtectKernelTunables ProtectHostname ProtectControlGroups RestrictNamespaces PrivateUsers SystemCallFilter; do
                if grep -q "^#.*$opt" "$units/$u" || grep -q "^#.*$opt" "$units/acs-launch-job.service"; then :; else
                        fail "$u: a comment warns about $opt"
                fi
        done
done
contains "$(cat "$units/acs-launch-mcp.socket")" "Accept=yes" "the MCP socket starts one server per connection"
contains "$(cat "$units/acs-launch-serve.socket")" "SocketMode=0600" "the serve socket is the user's alone (0600)"

if ! command -v systemd-analyze >/dev/null 2>&1; then
        skip "systemd-analyze is not installed (Debian: systemd)"
else
        # the units name /usr/bin/acs-launch (make install rewrites it to its
        # bindir): verify them with this build's binary in its place
        mkdir -p "$TMP/units"
        for u in acs-launch-job.service acs-launch-mcp.socket acs-launch-mcp@.service acs-launch-serve.socket \
                acs-launch-serve.service; do
                sed "s|/usr/bin/acs-launch|$ACS|g" "$units/$u" >"$TMP/units/$u"
        done
        cp "$TMP/units/acs-launch-mcp@.service" "$TMP/units/acs-launch-mcp@1.service"
        for u in acs-launch-job.service acs-launch-mcp.socket acs-launch-mcp@1.service acs-launch-serve.socket \
                acs-launch-serve.service; do
                out=$(cd "$TMP/units" && SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no "$u" 2>&1)
                rc=$?
                # outside a booted systemd (CI's containers) verify may also
                # complain about the host; only lines about our units count
                mine=$(printf '%s\n' "$out" | grep -F "acs-launch" | grep -v "^$")
                if [ $rc -eq 0 ] && [ -z "$mine" ]; then ok "systemd-analyze verify $u: clean"; else
                        fail "systemd-analyze verify $u: clean (rc $rc)"
                        diag "$out"
                fi
        done
        # and verify does catch a broken unit (a misspelt option)
        sed 's/^Delegate=yes/Delegat=yes/' "$TMP/units/acs-launch-job.service" >"$TMP/units/broken.service"
        out=$(cd "$TMP/units" && systemd-analyze verify --man=no broken.service 2>&1)
        contains "$out" "Delegat" "systemd-analyze verify reports a misspelt option"
fi

# activated_init SOCK ID ACTIVATE-ARGS...: start a server as a socket unit
# does, send it MCP initialize with id ID, print the first reply line
activated_init() {
        _sock=$1 _id=$2
        shift 2
        systemd-socket-activate "$@" >"$_sock.log" 2>&1 &
        _act=$!
        _i=0
        while [ ! -S "$_sock" ] && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
        python3 - "$_sock" "$_id" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(30)
s.connect(sys.argv[1])
req = {"jsonrpc": "2.0", "id": int(sys.argv[2]), "method": "initialize",
       "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                  "clientInfo": {"name": "systemd-units.sh", "version": "1"}}}
s.sendall((json.dumps(req) + "\n").encode())
buf = b""
while b"\n" not in buf:
    d = s.recv(65536)
    if not d:
        break
    buf += d
print(buf.decode().split("\n")[0])
PY
        kill "$_act" 2>/dev/null
        wait "$_act" 2>/dev/null
}

if ! command -v systemd-socket-activate >/dev/null 2>&1; then
        skip "systemd-socket-activate is not installed (Debian: systemd)"
else
        # the MCP server, as acs-launch-mcp.socket runs it (--inetd: Accept=yes)
        reply=$(activated_init "$TMP/mcp.sock" 1 --inetd -a -l "$TMP/mcp.sock" -E ACS_PROFILE_PATH \
                -E ACS_SCAN_MODULE_DIR "$ACS" mcp)
        contains "$reply" '"serverInfo"' "acs-launch mcp answers initialize over the activated socket"
        contains "$reply" '"id":1' "the reply is to our request"

        # serve as acs-launch-serve.socket starts it: one server takes the
        # listening socket from systemd (LISTEN_FDS, Accept=no)
        reply=$(activated_init "$TMP/serve.sock" 7 -l "$TMP/serve.sock" -E ACS_PROFILE_PATH -E ACS_SCAN_MODULE_DIR \
                "$ACS" serve --pool 0)
        contains "$reply" '"serverInfo"' "acs-launch serve answers initialize on the socket systemd passes it"
        contains "$reply" '"id":7' "serve: the reply is to our request"
fi
echo "1..$_tap_n"
