#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# contrib/systemd/acs-launch-mcp-http.service: `systemd-analyze verify` finds
# nothing wrong, it delegates its cgroup, lets the server shut itself down
# (KillMode=mixed), sets none of the options that break sandboxes and warns
# about each; and its ExecStart, run as systemd would run it (%d, the
# credentials directory, holding the token), serves MCP on 127.0.0.1 with
# the token required.
. "$ACS_SRCDIR/tests/lib.sh"
unit=$ACS_SRCDIR/contrib/systemd/acs-launch-mcp-http.service
u=acs-launch-mcp-http.service

is "$(grep -c '^Delegate=yes$' "$unit")" 1 "$u: Delegate=yes"
is "$(grep -c '^KillMode=mixed$' "$unit")" 1 "$u: SIGTERM to the server alone (KillMode=mixed)"
bad=$(grep -E '^(ProtectKernelTunables|ProtectHostname|ProtectControlGroups|RestrictNamespaces|PrivateUsers|SystemCallFilter|ProtectProc|ProcSubset|RestrictAddressFamilies|MemoryDenyWriteExecute)=' "$unit")
is "$bad" "" "$u sets none of the options that break sandboxes"
for opt in ProtectKernelTunables ProtectHostname ProtectControlGroups RestrictNamespaces PrivateUsers SystemCallFilter; do
        if grep -q "^#.*$opt" "$unit"; then ok "$u: a comment warns about $opt"; else fail "$u: a comment warns about $opt"; fi
done
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
contains "$exec_start" "mcp --http 127.0.0.1:" "$u listens on loopback"
contains "$exec_start" "--http-token-file %d/token" "$u takes the token from its credentials"

if ! command -v systemd-analyze >/dev/null 2>&1; then
        skip "systemd-analyze is not installed (Debian: systemd)"
else
        # the unit names /usr/bin/acs-launch (make install rewrites it to its bindir)
        mkdir -p "$TMP/units"
        sed "s|/usr/bin/acs-launch|$ACS|g" "$unit" >"$TMP/units/$u"
        out=$(cd "$TMP/units" && SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no "$u" 2>&1)
        rc=$?
        # outside a booted systemd verify may also complain about the host; only lines about our unit count
        mine=$(printf '%s\n' "$out" | grep -F "acs-launch" | grep -v "^$")
        if [ $rc -eq 0 ] && [ -z "$mine" ]; then ok "systemd-analyze verify $u: clean"; else
                fail "systemd-analyze verify $u: clean (rc $rc)"
                diag "$out"
        fi
        # and verify does look at it: a misspelt option is reported
        sed 's/^KillMode=mixed/KillMod=mixed/' "$TMP/units/$u" >"$TMP/units/broken-http.service"
        out=$(cd "$TMP/units" && systemd-analyze verify --man=no broken-http.service 2>&1)
        contains "$out" "KillMod" "systemd-analyze verify reports a misspelt option"
fi

# ExecStart as systemd runs it: %d is the credentials directory; port 0 instead of 8808
mkdir -p "$TMP/cred"
token=t$$x$(date +%s)
printf '%s\n' "$token" >"$TMP/cred/token"
chmod 0600 "$TMP/cred/token"
cmd=$(printf '%s\n' "$exec_start" | sed "s|^/usr/bin/acs-launch|$ACS|; s|%d|$TMP/cred|g; s|127.0.0.1:8808|127.0.0.1:0|")
# shellcheck disable=SC2086 # the unit's words
$cmd 2>"$TMP/http.err" &
srv=$!
wait_until 10 grep -q "serving MCP over HTTP" "$TMP/http.err"
url=$(sed -n 's/.*serving MCP over HTTP at \(http:[^ ]*\).*/\1/p' "$TMP/http.err")
contains "$url" "http://127.0.0.1:" "the unit's command serves on 127.0.0.1 ($url)"
codes=$(python3 - "$url" "$token" <<'PY'
import http.client, json, sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "systemd-http-unit.sh", "version": "1"}}})
out = []
for auth in (None, "Bearer " + sys.argv[2]):
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=20)
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if auth:
        h["Authorization"] = auth
    c.request("POST", u.path, init, h)
    r = c.getresponse()
    body = r.read().decode()
    out.append(str(r.status) + (" serverInfo" if '"serverInfo"' in body else ""))
    c.close()
print(" ".join(out))
PY
)
is "$codes" "401 200 serverInfo" "without the token 401, with it the MCP initialize answer"
kill -TERM "$srv"
wait "$srv"
is "$?" 0 "SIGTERM (KillMode=mixed sends it to the server alone): exit 0"
tap_plan
