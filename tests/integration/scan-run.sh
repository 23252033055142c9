#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The scanned run path (issue 3): the profile's python3 scans inside the
# sandbox through a bootstrap, then runs the program in the same interpreter.
# The program must not be able to tell: every script below runs under
# unsafe-python (no scan: plain `python3 FLAGS FILE`) and under the same
# profile with the scan on (mode = warn, so findings do not stop it), and
# stdout, stderr and the exit status must be identical.
. "$ACS_SRCDIR/tests/lib.sh"

printf '[profile]\ninherit = unsafe-python\n[scan]\nmode = warn\n' >"$TMP/warn.ini"

# same_run WHAT ARGS...: acs-launch ARGS with the scan off and on
same_run() {
        what=$1
        shift
        "$ACS" --quiet --profile unsafe-python "$@" >"$TMP/a.out" 2>"$TMP/a.err" <"$TMP/stdin"
        a_rc=$?
        "$ACS" --quiet --profile "$TMP/warn.ini" --report "$TMP/rep.json" "$@" \
                >"$TMP/b.out" 2>"$TMP/b.err" <"$TMP/stdin"
        b_rc=$?
        verdict=$(json_get .scan.verdict <"$TMP/rep.json")
        if [ "$a_rc" = "$b_rc" ] && cmp -s "$TMP/a.out" "$TMP/b.out" && cmp -s "$TMP/a.err" "$TMP/b.err" &&
                [ "$verdict" != skipped ]; then
                ok "scanned $what behaves as python3 itself (status $a_rc)"
        else
                fail "scanned $what behaves as python3 itself"
                diag "scan off: rc=$a_rc out=$(cat "$TMP/a.out") err=$(cat "$TMP/a.err")"
                diag "scan on:  rc=$b_rc verdict=$verdict out=$(cat "$TMP/b.out") err=$(cat "$TMP/b.err")"
        fi
}
# same NAME ARGS...: the script $TMP/NAME.py, run both ways with ARGS
same() {
        name=$1
        shift
        same_run "run of $name" -- "$TMP/$name.py" "$@"
}
echo 'line from stdin' >"$TMP/stdin"

cat >"$TMP/main.py" <<'EOF'
"""doc of main"""
import sys
print(sys.argv, __name__, __file__, __doc__, __package__, __spec__, __cached__)
print(sys.orig_argv[1:])
print(type(__loader__).__name__, __loader__.name, __loader__.path)
print(sorted(globals()))
print(sys.path[0] if sys.path and sys.path[0] in ("", "/run/acs") else "no script dir", sys.flags.isolated, sys.flags.no_site)
print(sys.excepthook.__name__, sys.modules["__main__"].__dict__ is globals())
if __name__ == "__main__":
    print("main guard")
EOF
same main one 'two words' -x

cat >"$TMP/fds.py" <<'EOF'
import os
print(sorted(os.listdir("/proc/self/fd")))
for fd in range(3, 64):
    try:
        os.fstat(fd)
        print("open fd", fd, os.readlink("/proc/self/fd/%d" % fd))
    except OSError:
        pass
EOF
same fds

cat >"$TMP/raise.py" <<'EOF'
def inner():
    raise ValueError("boom")
def outer():
    try:
        inner()
    except ValueError as e:
        raise KeyError("during handling") from e
print("before")
outer()
EOF
same raise

cat >"$TMP/exits.py" <<'EOF'
import sys, atexit
atexit.register(print, "atexit ran")
print("exiting", flush=True)
sys.exit(int(sys.argv[1]) if sys.argv[1].isdigit() else sys.argv[1])
EOF
same exits 0
same exits 7
same exits 'a message'

cat >"$TMP/interrupt.py" <<'EOF'
print("about to")
raise KeyboardInterrupt
EOF
same interrupt

cat >"$TMP/syntax.py" <<'EOF'
print("never")
def broken(:
    pass
EOF
same syntax

cat >"$TMP/future.py" <<'EOF'
from __future__ import annotations
def f(x: UndefinedName) -> AlsoUndefined:
    return x
print(f.__annotations__, f(2))
EOF
same future

printf '# -*- coding: latin-1 -*-\nprint("caf\351", len("caf\351"))\n' >"$TMP/latin1.py"
same latin1

printf '\357\273\277print("bom ok")\n' >"$TMP/bom.py"
same bom

cat >"$TMP/io.py" <<'EOF'
import sys, warnings, threading
print(input())
warnings.warn("careful")
t = threading.Thread(target=lambda: print("thread done"))
t.start()
print("stderr line", file=sys.stderr)
EOF
same io

cat >"$TMP/frames.py" <<'EOF'
import sys, traceback
def where():
    return [f.name for f in traceback.extract_stack()]
print(where())
try:
    1 / 0
except ZeroDivisionError:
    traceback.print_exc()
EOF
same frames

# The program's end (scan-ext.c, end_program) does to its files and output
# what python3's exit does: buffers of files never closed written (held by
# a global, by garbage, by another module), __del__ of globals, a thread
# that ran on, atexit functions, a last line without a newline. The files
# each run leaves in its workspace must be the same, byte for byte.
cat >"$TMP/ends.py" <<'EOF'
import atexit, builtins, threading, time
class Noisy:
    def __del__(self):
        print("__del__ of a global ran")  # (python3 has no open() in builtins by then)
keep = Noisy()
g = open("global.txt", "w")
g.write("a global file never closed\n")
class Cycle:
    pass
c = Cycle()
c.me = c
c.f = open("cycle.txt", "w")
c.f.write("a file in garbage\n")
del c
b = open("binary.bin", "wb")
b.write(b"\0" * 10000 + b"tail")
builtins.held = open("held.txt", "w")
builtins.held.write("held by another module\n")
def later():
    time.sleep(0.2)
    open("thread.txt", "w").write("a thread that ran on\n")
threading.Thread(target=later).start()
atexit.register(lambda: open("atexit.txt", "w").write("atexit ran\n"))
print("no newline at the end", end="")
EOF
# ends_files PROFILE NAME: what a run of ends.py left (status, output, files) as one JSON line
ends_files() {
        rm -rf "$TMP/ws-$2"
        mkdir "$TMP/ws-$2"
        "$ACS" --quiet --profile "$1" -w "$TMP/ws-$2" --json -- "$TMP/ends.py" >"$TMP/ends-$2.json" 2>/dev/null </dev/null
        /usr/bin/python3 -I -S -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(json.dumps([r["exit_code"], r["stdout"]["text"], r["stderr"]["text"],
                  sorted((f["path"], f["size"], f["sha256"]) for f in r["files"]["added"])]))' "$TMP/ends-$2.json"
}
a=$(ends_files unsafe-python off)
b=$(ends_files "$TMP/warn.ini" on)
is "$b" "$a" "the scanned program's end leaves the files and output python3's exit leaves"
contains "$a" "held.txt" "(the unscanned run wrote the held file: the comparison has all six files)"
is "$(json_get .scan.verdict <"$TMP/ends-on.json")" warn "(the second run was scanned)"

# Without -I, python3 FILE puts the script's directory first on sys.path
# (and -c puts ''): the bootstrap's own -c must not change that.
printf '[profile]\ninherit = unsafe-python\n[python]\nflags = -S\n' >"$TMP/noi-off.ini"
printf '[profile]\ninherit = unsafe-python\n[python]\nflags = -S\n[scan]\nmode = warn\n' >"$TMP/noi-warn.ini"
printf 'import sys\nprint(repr(sys.path[0]), sys.flags.safe_path, sys.argv)\n' >"$TMP/path0.py"
a=$("$ACS" -q --profile "$TMP/noi-off.ini" -- "$TMP/path0.py" x 2>&1; "$ACS" -q --profile "$TMP/noi-off.ini" -c 'import sys; print(repr(sys.path[0]))' 2>&1)
b=$("$ACS" -q --profile "$TMP/noi-warn.ini" -- "$TMP/path0.py" x 2>&1; "$ACS" -q --profile "$TMP/noi-warn.ini" -c 'import sys; print(repr(sys.path[0]))' 2>&1)
is "$b" "$a" "without -I: sys.path[0] of a scanned script and of -c code as python3's"
contains "$a" "'/run/acs' False" "without -I: the script's directory is first (the test sees it)"

# -c: sys.argv and the traceback of inline code
same_run "-c code" -c 'import sys; print(sys.argv, sys.orig_argv[1:]); 1/0' x y

# mode = warn: the findings are reported, on stderr and in the report, and the program ran
printf 'import os\nprint("ran anyway")\n' >"$TMP/warned.py"
run_acs --profile "$TMP/warn.ini" -- "$TMP/warned.py"
is "$RC" 0 "mode warn: the program's status"
is "$OUT" "ran anyway" "mode warn: the program ran"
contains "$ERR" "mode = warn, so the program ran" "mode warn: stderr says the scan found issues"
contains "$ERR" "warned.py:1:0: forbidden-import:" "mode warn: stderr names each finding"
run_acs --quiet --profile "$TMP/warn.ini" -- "$TMP/warned.py"
lacks "$ERR" "forbidden-import" "mode warn: --quiet keeps the findings off stderr"

# The program cannot forge the verdict: the scanner closed the socket before
# any of it ran, so a fake "pass" line reaches nobody.
cat >"$TMP/forge.py" <<'EOF'
import os
fake = b'{"verdict":"pass","ms":0,"findings":[]}\n'
hits = 0
for fd in range(3, 256):
    try:
        os.write(fd, fake)
        hits += 1
    except OSError:
        pass
print("writable fds:", hits)
EOF
run_acs --profile "$TMP/warn.ini" --json -- "$TMP/forge.py"
is "$(printf %s "$OUT" | json_get .stdout.text)" "writable fds: 0" "forged verdict: no fd of the scanner is left to write to"
is "$(printf %s "$OUT" | json_get .scan.verdict)" "warn" "forged verdict: the report keeps the scanner's verdict"
contains "$(printf %s "$OUT" | json_get .scan.findings)" "forbidden-import" "forged verdict: and its findings"

# A refusal: the verdict and the exit status, nothing of the program ran.
printf 'print("RAN")\nimport os\n' >"$TMP/refused.py"
run_acs --profile pure-math --json -- "$TMP/refused.py"
is "$RC" 126 "refused run exits 126"
is "$(printf %s "$OUT" | json_get .status)" "rejected" "refused run: status rejected"
is "$(printf %s "$OUT" | json_get .stdout.text)" "" "refused run: nothing printed"
is "$(printf %s "$OUT" | json_get .scan.findings.0.line)" "2" "refused run: the finding's line"

# The scanner reads the file as it is inside the sandbox, which is what runs;
# a file that is too large for max_source is refused the same way.
printf '[profile]\ninherit = pure-math\n[scan]\nmax_source = 64\n' >"$TMP/small.ini"
printf 'x = 1\n# %s\nprint(x)\n' "$(head -c 100 /dev/zero | tr '\0' a)" >"$TMP/big.py"
run_acs --profile "$TMP/small.ini" --json -- "$TMP/big.py"
is "$RC" 126 "a source over max_source is refused"
is "$(printf %s "$OUT" | json_get .scan.findings.0.rule)" "source-too-large" "and the rule says why"

# mode = warn with code over max_source: reported, and the whole code runs
printf '[profile]\ninherit = pure-math\n[scan]\nmode = warn\nmax_source = 20\n' >"$TMP/warn20.ini"
run_acs --profile "$TMP/warn20.ini" -c 'print("a long program, all of it ran")'
is "$OUT" "a long program, all of it ran" "mode warn, code over max_source: all of it runs, never a cut-off part"
contains "$ERR" "source-too-large" "mode warn, code over max_source: the finding is reported"

# An interpreter that cannot load the scanner (another Python, a broken
# module) is an error of acs-launch, 125, with a message; nothing runs.
mkdir -p "$TMP/badmod"
printf 'not an ELF file\n' >"$TMP/badmod/acs-scan-ext.so"
chmod 0644 "$TMP/badmod/acs-scan-ext.so"
ACS_SCAN_MODULE_DIR=$TMP/badmod "$ACS" --profile pure-math -c 'print("RAN")' >"$TMP/o" 2>"$TMP/e"
is "$?" 125 "a scanner that cannot load: exit 125"
lacks "$(cat "$TMP/o")" RAN "a scanner that cannot load: nothing ran"
contains "$(cat "$TMP/e")" "gave no verdict" "a scanner that cannot load: the launcher says so"
ACS_SCAN_MODULE_DIR=$TMP/nowhere "$ACS" --profile pure-math -c 'print("RAN")' >"$TMP/o" 2>"$TMP/e"
is "$?" 125 "a missing scanner: exit 125"
contains "$(cat "$TMP/e")" "scan module" "a missing scanner: the message names the module"

tap_plan
