#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attack suite: what a program leaves in /workspace cannot be used against
# the launcher (security-model.md, "After the run"; acs-launch(1), THE
# WORKSPACE, "Bounds of the diff"). A deep tree, a wide one, pathological
# names and unreadable entries each give a normal, parseable report with the
# program's own exit status, a bounded report and a bounded launcher memory,
# through the CLI and through the MCP server.
#
# Memory is measured with wait4(2) around acs-launch: ru_maxrss of the
# launcher and of every process it waited for (the sandbox's own processes
# and the patch helper included), so an upper bound of the launcher's own.
. "$ACS_SRCDIR/tests/security/sec-lib.sh"

# The documented caps (acs-launch(1)): 10,000 entries and 4 MiB of JSON for
# the lists, 4 MiB of JSON for the patch; the launcher stays under 64 MiB.
MAX_ENTRIES=10000
MAX_LIST_JSON=$((4 << 20))
MAX_PATCH_JSON=$((4 << 20))
MAX_RSS_KB=65536

# A workspace big enough for 100,000 inodes (nr_inodes = size / 4 KiB) and
# time to make them: the profile only makes room, it limits nothing we test.
cat >"$TMP/big.ini" <<EOF
[profile]
inherit = unsafe-python
[filesystem]
workspace_size = 1G
[limits]
timeout = 300
cpu = 300
memory = 1G
EOF
chmod 0644 "$TMP/big.ini"

# measure OUT ARGS...: run acs-launch ARGS with stdout to OUT; sets RC and RSS (KiB)
measure() {
        _m=$(/usr/bin/python3 -I -S -c '
import os, sys
out = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
err = os.open(sys.argv[1] + ".err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
pid = os.fork()
if pid == 0:
    os.dup2(out, 1); os.dup2(err, 2)
    os.execv(sys.argv[2], sys.argv[2:])
_, st, ru = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(st), ru.ru_maxrss)' "$@")
        RC=${_m% *}
        RSS=${_m#* }
}

# describe_report FILE: prints one line "key=value ..." describing the report
describe_report() {
        /usr/bin/python3 -I -S -c '
import json, sys
raw = open(sys.argv[1], "rb").read()
try:
    r = json.loads(raw)
except Exception as e:
    print("parse=no size=%d" % len(raw)); sys.exit()
f = r.get("files") or {}
lists = {k: f.get(k, []) for k in ("added", "modified", "deleted")}
n = sum(len(v) for v in lists.values())
lj = len(json.dumps(lists, ensure_ascii=False, separators=(",", ":")).encode())
pj = len(json.dumps(f.get("patch", ""), ensure_ascii=False).encode()) - 2
om = f.get("omitted") or {}
total = n + om["entries"] if isinstance(om.get("entries"), int) else "none"
print("parse=yes size=%d status=%s exit=%s listed=%d total=%s listjson=%d patchjson=%d truncated=%s omitted=%s/%s/%s patch_omitted=%s error=%s" % (
    len(raw), r.get("status"), r.get("exit_code"), n, total, lj, pj, f.get("truncated", False),
    om.get("entries"), om.get("bytes"), om.get("dirs"), f.get("patch_omitted", False),
    (r.get("error") or "-").replace(" ", "_")[:80]))' "$1"
}
kv() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# bounded DESC REPORTLINE WANT_EXIT: the common assertions on one run
bounded() {
        is "$RC" "$3" "$1: acs-launch exits with the program's own status"
        is "$(kv parse "$2")" yes "$1: the report parses"
        is "$(kv status "$2")/$(kv exit "$2")" "exited/$3" "$1: status exited with the real exit code"
        if [ "${RSS:-999999999}" -lt "$MAX_RSS_KB" ]; then ok "$1: launcher max RSS under 64 MiB (${RSS} KiB)"; else
                fail "$1: launcher max RSS under 64 MiB"
                diag "max RSS ${RSS} KiB"
        fi
        _l=$(kv listed "$2")
        if [ "${_l:-999999}" -le "$MAX_ENTRIES" ] && [ "$(kv listjson "$2")" -le "$MAX_LIST_JSON" ] 2>/dev/null; then
                ok "$1: the lists stay within $MAX_ENTRIES entries and 4 MiB of JSON"
        else
                fail "$1: the lists stay within $MAX_ENTRIES entries and 4 MiB of JSON"
                diag "$2"
        fi
        if [ "$(kv patchjson "$2")" -le "$MAX_PATCH_JSON" ] 2>/dev/null; then ok "$1: the patch stays within 4 MiB of JSON"; else
                fail "$1: the patch stays within 4 MiB of JSON"
                diag "$2"
        fi
}

# --- a deep tree: 20,000 nested directories ----------------------------------
cat >"$TMP/deep.py" <<'EOF'
import os, sys
os.chdir("/workspace")
for i in range(20000):
    os.mkdir("d")
    os.chdir("d")
open("leaf", "w").write("x")
print("END")
sys.exit(3)
EOF
measure "$TMP/deep.json" "$ACS" --profile "$TMP/big.ini" --json "$TMP/deep.py"
rep=$(describe_report "$TMP/deep.json")
diag "deep: rc=$RC rss=${RSS}KiB $rep"
bounded "depth 20,000" "$rep" 3
is "$(kv truncated "$rep")" True "depth 20,000: files.truncated is set"
_d=$(kv omitted "$rep")
case $_d in */*/[1-9]*) ok "depth 20,000: files.omitted counts the directories left unexamined ($_d)" ;; *)
        fail "depth 20,000: files.omitted counts the directories left unexamined"
        diag "omitted entries/bytes/dirs: $_d"
        ;;
esac

# --- a wide tree: 100,000 files ------------------------------------------------
cat >"$TMP/wide.py" <<'EOF'
import os, sys
os.chdir("/workspace")
for i in range(100000):
    os.close(os.open("f%06d" % i, os.O_CREAT | os.O_WRONLY, 0o644))
print("END")
sys.exit(4)
EOF
measure "$TMP/wide.json" "$ACS" --profile "$TMP/big.ini" --json "$TMP/wide.py"
rep=$(describe_report "$TMP/wide.json")
diag "wide: rc=$RC rss=${RSS}KiB $rep"
bounded "100,000 files" "$rep" 4
is "$(kv truncated "$rep")" True "100,000 files: files.truncated is set"
is "$(kv total "$rep")" 100000 "100,000 files: listed + omitted entries = 100,000"

# --- 30,000 files with 250-byte non-UTF-8 names, 3,765 bytes deep -------------
# Each name byte costs 5 bytes of JSON ("\\xff"): one entry's path is ~20 KB.
cat >"$TMP/names.py" <<'EOF'
import os, sys
n = int(sys.argv[1])
os.chdir("/workspace")
for i in range(15):
    d = b"%03d" % i + b"\xff" * 247
    os.mkdir(d)
    os.chdir(d)
for i in range(n):
    os.close(os.open(b"%06d" % i + b"\xfe" * 244, os.O_CREAT | os.O_WRONLY, 0o644))
print("END")
sys.exit(5)
EOF
measure "$TMP/names.json" "$ACS" --profile "$TMP/big.ini" --json "$TMP/names.py" 30000
rep=$(describe_report "$TMP/names.json")
diag "names: rc=$RC rss=${RSS}KiB $rep"
bounded "30,000 long non-UTF-8 names" "$rep" 5
_s=$(kv size "$rep")
if [ "${_s:-999999999}" -le $((MAX_LIST_JSON + MAX_PATCH_JSON + (1 << 20))) ]; then
        ok "30,000 long non-UTF-8 names: the whole report stays under 9 MiB ($_s bytes)"
else
        fail "30,000 long non-UTF-8 names: the whole report stays under 9 MiB"
        diag "report: $_s bytes"
fi

# The same names, few enough to be listed: the patch (4 bytes per name byte,
# 5 in JSON, twice per file) is bounded by its JSON size, not its raw size.
measure "$TMP/names-patch.json" "$ACS" --profile "$TMP/big.ini" --json "$TMP/names.py" 150
rep=$(describe_report "$TMP/names-patch.json")
diag "names (150): rc=$RC rss=${RSS}KiB $rep"
bounded "150 long non-UTF-8 names" "$rep" 5
is "$(kv truncated "$rep")" False "150 long non-UTF-8 names: all listed"

# --- what the program left unreadable -----------------------------------------
# A directory and a file with mode 000: unprivileged, the launcher cannot read
# them either; the run still ends with the program's status.
cat >"$TMP/unreadable.py" <<'EOF'
import os, sys
os.chdir("/workspace")
os.mkdir("d")
open("d/inner", "w").write("y")
os.chmod("d", 0)
open("f", "w").write("x")
os.chmod("f", 0)
print("END")
sys.exit(6)
EOF
measure "$TMP/unreadable.json" "$ACS" --profile "$TMP/big.ini" --json "$TMP/unreadable.py"
rep=$(describe_report "$TMP/unreadable.json")
diag "unreadable: rc=$RC $rep"
is "$RC" 6 "mode-000 entries: acs-launch exits with the program's own status"
is "$(kv status "$rep")/$(kv exit "$rep")" "exited/6" "mode-000 entries: status exited with the real exit code"

# --- through the MCP server: the report always comes back ---------------------
# 4,000 files with ~4 KB non-UTF-8 paths: about 80 MB of JSON unclipped.
cat >"$TMP/mcp-client.py" <<'EOF'
import json, subprocess, sys
acs, profile, code = sys.argv[1], sys.argv[2], open(sys.argv[3]).read()
p = subprocess.Popen([acs, "mcp", "--profile", profile], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def send(o):
    p.stdin.write((json.dumps(o) + "\n").encode())
    p.stdin.flush()
send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
      "capabilities": {}, "clientInfo": {"name": "diff-bounds", "version": "1"}}})
p.stdout.readline()
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
      "params": {"name": "execute_python", "arguments": {"code": code}}})
line = p.stdout.readline()
p.stdin.close()
p.wait()
m = json.loads(line)
if "error" in m:
    print("error=%s" % m["error"].get("message", "").replace(" ", "_")[:100])
    sys.exit()
res = m["result"]
sc = res.get("structuredContent") or {}
f = sc.get("files") or {}
print("size=%d status=%s exit=%s truncated=%s text=%s" % (len(line), sc.get("status"), sc.get("exit_code"),
      f.get("truncated", False), "END" in res["content"][0]["text"]))
EOF
sed 's/int(sys.argv\[1\])/4000/' "$TMP/names.py" >"$TMP/mcp-names.py"
chmod 0644 "$TMP"/*.py
out=$(/usr/bin/python3 -I -S "$TMP/mcp-client.py" "$ACS" "$TMP/big.ini" "$TMP/mcp-names.py" 2>"$TMP/mcp.err")
diag "mcp: $out"
is "$(kv status "$out")/$(kv exit "$out")" "exited/5" "MCP, 4,000 long non-UTF-8 names: the result carries the report with the real status"
is "$(kv truncated "$out")" True "MCP, 4,000 long non-UTF-8 names: the file list is clipped (files.truncated)"
is "$(kv text "$out")" True "MCP, 4,000 long non-UTF-8 names: the text still shows the program's output"

# --- every report above validates against doc/report.schema.json --------------
if /usr/bin/python3 -I -c 'import jsonschema' 2>/dev/null; then
        for f in deep wide names names-patch unreadable; do
                _v=$(/usr/bin/python3 -I -c '
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
V = jsonschema.validators.validator_for(schema)
errs = list(V(schema).iter_errors(json.load(open(sys.argv[2]))))
print("ok" if not errs else "FAIL %s at %s" % (errs[0].message[:200], "/".join(map(str, errs[0].path))))' \
                        "$ACS_SRCDIR/doc/report.schema.json" "$TMP/$f.json" 2>&1)
                is "$_v" ok "the $f report validates against the schema"
        done
else
        skip "schema validation: python3-jsonschema is not installed"
fi

tap_plan
