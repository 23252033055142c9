#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The test-suite recipe (issue 13): `acs-launch exec -w REPO -- python3 -m
# pytest -q` under the shipped shell profile, a failure clipped with the
# failing test and the summary kept, no __pycache__ or .pytest_cache in the
# diff; and every limit set from the command line.
. "$ACS_SRCDIR/tests/lib.sh"

if /usr/bin/python3 -c 'import pytest' 2>/dev/null; then
        mkdir -p "$TMP/repo/pkg" "$TMP/repo/tests"
        printf 'def double(x):\n    return 2 * x\n' >"$TMP/repo/pkg/__init__.py"
        cat >"$TMP/repo/tests/test_pkg.py" <<'PY'
import threading
import pytest
from pkg import double

@pytest.mark.parametrize("n", range(300))
def test_double(n):
    assert double(n) == n + n

def test_threads():
    ts = [threading.Thread(target=lambda: None) for _ in range(100)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()

def test_breaks_on_purpose():
    print("noise " * 2000)
    assert double(list(range(200))) == list(range(400))
PY
        run_acs exec -w "$TMP/repo" --max-tokens 400 --json -- python3 -m pytest -q
        is "$(printf %s "$OUT" | json_get .exit_code)" 1 "pytest recipe: a failing suite exits 1"
        is "$(printf %s "$OUT" | json_get .stdout.truncated)" true "  the output is clipped"
        text=$(printf %s "$OUT" | json_get .stdout.text)
        contains "$text" "FAILED tests/test_pkg.py::test_breaks_on_purpose" "  the failing test is kept"
        contains "$text" "1 failed, 301 passed" "  the summary is kept (threads start too)"
        is "$(printf %s "$OUT" | json_get .files.added)" "[]" "  no __pycache__ or .pytest_cache in the diff"
        is "$(printf %s "$OUT" | json_get .files.modified)" "[]" "  nothing modified"

        rm "$TMP/repo/tests/test_pkg.py"
        printf 'from pkg import double\n\ndef test_ok():\n    assert double(2) == 4\n' >"$TMP/repo/tests/test_ok.py"
        run_acs exec -w "$TMP/repo" -- python3 -m pytest -q
        is "$RC" 0 "pytest recipe: a passing suite exits 0"
        contains "$OUT" "1 passed" "  and says so"
        check "  nothing was written into the repository" test ! -e "$TMP/repo/.pytest_cache" -a ! -e "$TMP/repo/tests/__pycache__"
else
        skip "python3-pytest not installed (bootstrap.sh installs it)"
fi

# --- every limit from the command line ----------------------------------
P="--profile unsafe-python"
run_acs $P --open-files 20 -c 'import resource; print(resource.getrlimit(resource.RLIMIT_NOFILE)[0])'
is "$OUT" 20 "--open-files sets RLIMIT_NOFILE"
run_acs $P --file-size 1M -c 'import resource; print(resource.getrlimit(resource.RLIMIT_FSIZE)[0])'
is "$OUT" 1048576 "--file-size sets RLIMIT_FSIZE"
run_acs $P --processes 7 --json -c 'print(1)'
is "$(printf %s "$OUT" | json_get .limits.processes)" 7 "--processes sets the process limit"
run_acs $P --cpu 3 --json -c 'print(1)'
is "$(printf %s "$OUT" | json_get .limits.cpu_s)" 3 "--cpu sets the CPU limit"
for opt in "--processes 0" "--open-files 2" "--file-size 1Q"; do
        # shellcheck disable=SC2086
        run_acs $P $opt -c 'print(1)'
        is "$RC" 125 "bad $opt -> 125"
        contains "$ERR" "acs-launch: ${opt%% *}: expected " "  the message names ${opt%% *} and what it expects"
done
printf '[profile]\ninherit = unsafe-python\nlocked = processes open_files file_size\n' >"$TMP/locked.ini"
for opt in "--processes 99" "--open-files 999" "--file-size 0"; do
        # shellcheck disable=SC2086
        run_acs --profile "$TMP/locked.ini" $opt -c 'print(1)'
        is "$RC" 125 "a locked profile refuses a looser $opt"
        _key=$(printf %s "${opt%% *}" | sed 's/^--//; s/-/_/g')
        contains "$ERR" "profile 'locked' locks $_key: the command line may not loosen it" "  the refusal names the locked key $_key"
done
run_acs --profile "$TMP/locked.ini" --processes 8 --open-files 16 --file-size 1K -c 'print("tight")'
is "$OUT" tight "  and accepts tighter ones"

# the MCP call may lower the server profile's limits, never raise them
res=$(python3 - "$ACS" <<'PY'
import json, subprocess, sys
p = subprocess.Popen([sys.argv[1], "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL, text=True)
def send(m):
    p.stdin.write(json.dumps(dict(jsonrpc="2.0", **m)) + "\n")
    p.stdin.flush()
send(dict(id=1, method="initialize", params=dict(protocolVersion="2025-06-18", capabilities={},
                                                 clientInfo=dict(name="t", version="1"))))
for i, n in ((2, 100), (3, 100000)):
    send(dict(id=i, method="tools/call", params=dict(name="execute_command",
              arguments=dict(command="ulimit -n", open_files=n, cpu=5))))
r = {}
while len(r) < 3:
    m = json.loads(p.stdout.readline())
    r[m["id"]] = m.get("result", {})
p.stdin.close()
p.wait()
ok = r[2]["structuredContent"]
print(ok["stdout"]["text"].strip(), ok["limits"]["cpu_s"], r[3].get("isError"), "open_files" in r[3]["content"][0]["text"])
PY
)
is "$res" "100 5 True True" "MCP execute_command: open_files and cpu lower the profile's limits; a higher open_files is refused"

# memory_rlimit = fallback: RLIMIT_AS only where no memory cgroup bounds the run
printf '[profile]\ninherit = unsafe-python\n[limits]\nmemory = 512M\nmemory_rlimit = fallback\n' >"$TMP/fb.ini"
run_acs --profile "$TMP/fb.ini" --json -c 'import resource; print(resource.getrlimit(resource.RLIMIT_AS)[0])'
enforced=$(printf %s "$OUT" | json_get .limits.enforced.memory)
as=$(printf %s "$OUT" | json_get .stdout.text)
if [ "$enforced" = cgroup2 ]; then
        is "$as" -1 "memory_rlimit = fallback: no RLIMIT_AS in a memory cgroup"
else
        is "$enforced/$as" "rlimit/536870912" "memory_rlimit = fallback: RLIMIT_AS without a memory cgroup, and the report says rlimit"
fi

tap_plan
