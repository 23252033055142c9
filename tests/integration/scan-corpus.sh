#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The scan corpus through the CLI: every tests/data/scan/reject/*.py must be
# refused by `check --profile pure-math` with the rule named on its first
# line (`# expect: RULE`) and by a real run (exit 126, nothing of it runs);
# every accept/*.py must pass `check` and, run for real, print exactly its
# sibling .out (and exit with .status, default 0).
. "$ACS_SRCDIR/tests/lib.sh"
D=$ACS_SRCDIR/tests/data/scan

for f in "$D"/reject/*.py; do
        n=${f##*/}
        rule=$(sed -n '1s/^# expect: *//p' "$f")
        run_acs check --profile pure-math "$f"
        if [ "$RC" = 126 ] && case $OUT in *": $rule: "*) true ;; *) false ;; esac; then
                ok "check refuses reject/$n with $rule"
        else
                fail "check refuses reject/$n with $rule"
                diag "rc=$RC out=$OUT err=$ERR"
        fi
done

# The run path scans in the sandbox with acs-scan-ext.so, check in the
# launcher with acs-scan.so: the same rules must give the same findings.
findings() { /usr/bin/python3 -I -S -c 'import json,sys
r = json.load(sys.stdin)
s = r.get("scan", r)
print(s["verdict"], sorted((f["rule"], f["name"], f["line"], f["col"], f["message"]) for f in s["findings"]))'; }
agree=0 disagree=
for f in "$D"/reject/*.py "$D"/accept/*.py; do
        a=$("$ACS" check --profile pure-math --json "$f" 2>/dev/null | findings)
        b=$("$ACS" --profile pure-math --json -- "$f" 2>/dev/null | findings)
        if [ -n "$a" ] && [ "$a" = "$b" ]; then agree=$((agree + 1)); else disagree="$disagree ${f##*/}"; fi
done
if [ -z "$disagree" ]; then ok "check and the in-sandbox scan agree on all $agree corpus files"; else
        fail "check and the in-sandbox scan agree on every corpus file"
        diag "they differ on:$disagree"
fi

# MCP inspect_code_security is the third way in: one server session, one call
# per corpus file, the same findings as check's (issue 13 item 8).
mcp_findings() { # FILE... -> one line per file, as findings() prints them
        /usr/bin/python3 -I -S -c '
import json, subprocess, sys
acs, files = sys.argv[1], sys.argv[2:]
p = subprocess.Popen([acs, "mcp", "--profile", "pure-math"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, text=True)
def send(m):
    p.stdin.write(json.dumps(m) + "\n")
    p.stdin.flush()
def reply(i):
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == i:
            return m
send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
      "capabilities": {}, "clientInfo": {"name": "scan-corpus", "version": "1"}}})
reply(0)
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
for i, f in enumerate(files, 1):
    send({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "inspect_code_security",
          "arguments": {"code": open(f, encoding="utf-8", errors="surrogateescape").read()}}})
    s = reply(i)["result"].get("structuredContent", {}).get("scan", {})
    print(s.get("verdict"), sorted((x["rule"], x["name"], x["line"], x["col"], x["message"])
                                   for x in s.get("findings", [])))
p.stdin.close()
p.wait()' "$ACS" "$@"; }
set -- "$D"/reject/*.py "$D"/accept/*.py
mcp_findings "$@" >"$TMP/mcp.out" 2>"$TMP/mcp.err"
agree=0 disagree=
while IFS= read -r m; do
        f=$1
        shift
        a=$("$ACS" check --profile pure-math --json "$f" 2>/dev/null | findings | sed "s|$D/||g")
        if [ -n "$a" ] && [ "$a" = "$(printf %s "$m" | sed "s|$D/||g")" ]; then agree=$((agree + 1)); else
                disagree="$disagree ${f##*/}"; fi
done <"$TMP/mcp.out"
if [ -z "$disagree" ] && [ "$#" = 0 ] && [ "$agree" -gt 0 ]; then
        ok "check and MCP inspect_code_security agree on all $agree corpus files"
else
        fail "check and MCP inspect_code_security agree on every corpus file"
        diag "they differ on:$disagree; $# without an answer; $(head -c 500 "$TMP/mcp.err")"
fi

# A refused run executes nothing: the marker print never appears.
for n in import-os.py eval-direct.py cve-2025-9959-hierarchy.py generator-frame.py; do
        { echo 'print("RAN")'; cat "$D/reject/$n"; } >"$TMP/run-$n"
        run_acs --profile pure-math -- "$TMP/run-$n"
        is "$RC" 126 "run of reject/$n exits 126"
        lacks "$OUT" RAN "run of reject/$n ran nothing"
done

for f in "$D"/accept/*.py; do
        n=${f##*/}
        base=${f%.py}
        want_rc=0
        [ -f "$base.status" ] && want_rc=$(cat "$base.status")
        run_acs check --profile pure-math "$f"
        if [ "$RC" = 0 ] && [ -z "$OUT" ]; then ok "check passes accept/$n"; else
                fail "check passes accept/$n"
                diag "rc=$RC out=$OUT err=$ERR"
        fi
        run_acs --profile pure-math -- "$f"
        if [ "$RC" = "$want_rc" ] && [ "$OUT" = "$(cat "$base.out")" ]; then
                ok "run of accept/$n prints its .out and exits $want_rc"
        else
                fail "run of accept/$n prints its .out and exits $want_rc"
                diag "rc=$RC out=$OUT err=$ERR"
        fi
done

# check: JSON form, stdin, modes, errors
run_acs check --profile pure-math --json "$D/reject/import-os.py"
is "$RC" 126 "check --json refusal exits 126"
is "$(printf %s "$OUT" | json_get .schema)" "acs-check/1" "check --json names its schema"
is "$(printf %s "$OUT" | json_get .scan.verdict)" "reject" "check --json verdict"
is "$(printf %s "$OUT" | json_get .scan.findings.0.rule)" "forbidden-import" "check --json finding rule"
is "$(printf %s "$OUT" | json_get .scan.findings.0.line)" "2" "check --json finding line"
contains "$(printf %s "$OUT" | json_get .scan.findings.0.message)" "allowed: math" "finding says what is allowed"

"$ACS" check --profile pure-math - <"$D/reject/eval-direct.py" >"$TMP/o" 2>"$TMP/e"
is "$?" 126 "check - reads stdin"
contains "$(cat "$TMP/o")" "<stdin>:2:6: denied-builtin:" "stdin findings are named <stdin> with line:col"

printf '[profile]\ninherit = pure-math\n[scan]\nmode = warn\n' >"$TMP/warnprof.ini"
printf '[profile]\ninherit = pure-math\n[scan]\nmode = off\n' >"$TMP/offprof.ini"
run_acs check --profile "$TMP/warnprof.ini" "$D/reject/import-os.py"
is "$RC" 0 "mode warn: check exits 0"
contains "$OUT" "forbidden-import" "mode warn: findings still printed"
run_acs check --profile "$TMP/offprof.ini" --json "$D/reject/import-os.py"
is "$RC" 0 "mode off: check exits 0"
is "$(printf %s "$OUT" | json_get .scan.verdict)" "skipped" "mode off: verdict skipped"
printf 'print("warned run")\nimport json\nx = eval("1")\nprint(x)\n' >"$TMP/warnrun.py"
run_acs --profile "$TMP/warnprof.ini" -- "$TMP/warnrun.py"
is "$RC" 0 "mode warn: the run goes ahead"
contains "$OUT" "warned run" "mode warn: the program ran"

run_acs check --profile pure-math "$TMP/does-not-exist.py"
is "$RC" 125 "check of a missing file exits 125"
contains "$ERR" "check: cannot open $TMP/does-not-exist.py: No such file" "  and names the file"
run_acs check --profile no-such-profile "$D/accept/hello.py"
is "$RC" 125 "check with an unknown profile exits 125"
contains "$ERR" "profile 'no-such-profile' not found" "  and names the profile"
ACS_SCAN_MODULE_DIR=$TMP/nowhere "$ACS" check --profile pure-math "$D/accept/hello.py" >/dev/null 2>"$TMP/e"
is "$?" 125 "check without the scan module exits 125"
contains "$(cat "$TMP/e")" "scan module" "and says the module is missing"

tap_plan
