#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Agent code does real work (issue 13): the seed documents' examples run as
# written under `default`, Python file work lands in the diff and applies,
# the allowed list is never cut off, and `exec` has Debian's toolchain with
# HOME outside the workspace.
. "$ACS_SRCDIR/tests/lib.sh"

# --- the seed documents' examples, as written, CLI, default profile ---------
run_acs -c "
import math
result = [math.factorial(i) for i in range(10)]
print('Calculated factorials:', result)
"
is "$RC/$OUT" "0/Calculated factorials: [1, 1, 2, 6, 24, 120, 720, 5040, 40320, 362880]" \
        "seed: the factorial example prints what it promises"

mkdir "$TMP/seed"
run_acs -w "$TMP/seed" --json -c '
import math
print("Calculated:", math.sqrt(144))
with open("result.txt", "w") as f:
    f.write("Computation complete")
'
is "$(printf %s "$OUT" | json_get .stdout.text)" "Calculated: 12.0" "seed: the API example prints 12.0"
is "$(printf %s "$OUT" | json_get .files.added.0.path)" "result.txt" "seed: result.txt is in files.added"
is "$(printf %s "$OUT" | json_get .files.added.0.size)" 20 "  with its size"

for code in "import os
os.remove('/etc/hosts')" "import os; os.system('cat /etc/passwd')"; do
        run_acs --json -c "$code"
        is "$RC" 126 "seed: '$(printf %s "$code" | head -1)...' is refused (126)"
        is "$(printf %s "$OUT" | json_get .scan.findings.0.rule)/$(printf %s "$OUT" | json_get .scan.findings.0.name)" \
                "forbidden-import/os" "  with a forbidden-import finding naming os"
done
msg=$(printf %s "$OUT" | json_get .scan.findings.0.message)
lacks "$msg" "…" "the finding's allowed list is not cut off"
contains "$msg" "os.path" "  and names what is allowed for files (os.path)"

# --- file work under default: open, pathlib, shutil, csv, os.path, zipfile ---
mkdir "$TMP/ws"
printf 'name,n\na,1\nb,2\n' >"$TMP/ws/data.csv"
cat >"$TMP/files.py" <<'PY'
import csv, shutil, pathlib, zipfile, glob, tempfile
import os.path
with open("data.csv", newline="") as f:
    rows = list(csv.DictReader(f))
total = sum(int(r["n"]) for r in rows)
with open("total.csv", "w", newline="") as f:
    csv.writer(f).writerow(["total", total])
out = pathlib.Path("out")
out.mkdir()
(out / "note.txt").write_text("from pathlib\n")
shutil.copy("data.csv", out / "copy.csv")
with zipfile.ZipFile("bundle.zip", "w") as z:
    z.write("total.csv")
with tempfile.TemporaryDirectory() as d:
    pathlib.Path(d, "scratch").write_text("gone after the run")
print(total, sorted(glob.glob("*")), os.path.isfile("total.csv"))
PY
run_acs -w "$TMP/ws" --json -- "$TMP/files.py"
is "$RC" 0 "file work passes the default scan and runs"
is "$(printf %s "$OUT" | json_get .stdout.text)" "3 ['bundle.zip', 'data.csv', 'out', 'total.csv'] True" \
        "  open, csv, pathlib, shutil, zipfile, glob, os.path work"
added=$(printf %s "$OUT" | python3 -c 'import json,sys; print(" ".join(sorted(f["path"] for f in json.load(sys.stdin)["files"]["added"])))')
is "$added" "bundle.zip out out/copy.csv out/note.txt total.csv" "  and land in files.added (nothing from /tmp)"
check "the host workspace is untouched without --apply" test ! -e "$TMP/ws/total.csv"

run_acs -w "$TMP/ws" --apply -- "$TMP/files.py"
is "$RC" 0 "file work with --apply"
is "$(tr -d "\r" <"$TMP/ws/total.csv" 2>/dev/null)" "total,3" "  total.csv is written back"
is "$(cat "$TMP/ws/out/note.txt" 2>/dev/null)" "from pathlib" "  out/note.txt is written back"
check "  out/copy.csv is written back" cmp -s "$TMP/ws/data.csv" "$TMP/ws/out/copy.csv"

# the scan lets file work through because the kernel confines it: under
# default, writes outside the workspace and the private tmpfs mounts fail,
# and the host's files outside the bound system directories are not there
cat >"$TMP/escape.py" <<'PY'
import pathlib
for path in ("/usr/evil", "/etc/hosts", "/etc/passwd", "/run/acs/x", "/proc/sys/kernel/hostname", "/proc/1/environ"):
    try:
        with open(path, "wb") as f:
            f.write(b"x")
        print("WROTE", path)
    except OSError as e:
        print("refused", path, type(e).__name__)
for path in ("/root", "/home/" , "/etc/shadow", "/var/lib"):
    print("EXISTS" if pathlib.Path(path).exists() else "absent", path)
PY
run_acs -- "$TMP/escape.py"
is "$RC" 0 "file escapes pass the scan under default and run"
lacks "$OUT" "WROTE" "  the kernel refuses every write outside the workspace and tmpfs"
lacks "$OUT" "EXISTS" "  and the host's other files are not in the sandbox"

# pure-math stays pure: no open, no file modules
run_acs --profile pure-math -c 'open("x", "w")'
is "$RC" 126 "pure-math refuses open"
run_acs --profile pure-math -c 'import pathlib'
is "$RC" 126 "pure-math refuses pathlib"

# of os, only os.path: the rest of os stays refused however it is reached
run_acs -c 'import os.path
print(os.path.join("a", "b"))'
is "$RC/$OUT" "0/a/b" "import os.path; os.path.join works"
for code in 'import os.path
os.system("id")' 'import os.path
getattr(os, "popen")' 'from os import path, getcwd' 'import subprocess' 'import ctypes' 'import importlib' \
        'import pickle' 'import socket' 'eval("1")'; do
        run_acs -c "$code"
        is "$RC" 126 "default refuses: $(printf %s "$code" | tr '\n' ';')"
done

# --- exec: Debian's /usr works, HOME is a tmpfs outside the workspace -------
mkdir "$TMP/repo"
echo 'hello' >"$TMP/repo/f.txt"
run_acs exec -w "$TMP/repo" --json -- sh -c '
awk "BEGIN { print 6 * 7 }"
which sh
echo "HOME=$HOME"
git config --global user.name sandbox && cat "$HOME/.gitconfig" >/dev/null && echo gitconfig-ok
mkdir -p "$HOME/.cache/x" && echo cached >"$HOME/.cache/x/c"
echo "int main(void){return 0;}" >/tmp/t.c && cc -o /tmp/t /tmp/t.c && /tmp/t && echo cc-ok
grep "^sandbox:" /etc/passwd | cut -d: -f6'
out=$(printf %s "$OUT" | json_get .stdout.text)
contains "$out" "42" "exec: awk runs (/etc/alternatives is bound)"
contains "$out" "/usr/bin/sh" "exec: which runs"
contains "$out" "HOME=/run/home" "exec: HOME is outside the workspace"
contains "$out" "gitconfig-ok" "exec: git writes its config in HOME"
if command -v cc >/dev/null 2>&1; then contains "$out" "cc-ok" "exec: cc compiles and links"; else skip "no cc on this host"; fi
contains "$out" "/run/home" "exec: the passwd entry's home is HOME"
is "$(printf %s "$OUT" | json_get .files.added)" "[]" "exec: nothing of HOME or /tmp lands in the workspace diff"

tap_plan
