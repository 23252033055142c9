#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attack suite: the command line's inputs and outputs (issue 12 items 7 and 9,
# issue 18 items 6 and 9). Nothing runs before the scan; what the program
# prints cannot pass for acs-launch's own words; -v traces never land in the
# program's stderr; output files and the script are never something planted.
. "$ACS_SRCDIR/tests/security/sec-lib.sh"

# --- nothing runs before the scan (issue 18 item 6) ---------------------------
mkdir "$TMP/pre" && chmod 0755 "$TMP/pre"
have_cc=false
if command -v cc >/dev/null 2>&1; then
        printf '#include <stdio.h>\n__attribute__((constructor)) static void f(void) { fprintf(stderr, "PRELOAD-RAN-%%s\\n", "x"); }\n' >"$TMP/pre/x.c"
        cc -shared -fPIC -o "$TMP/pre/x.so" "$TMP/pre/x.c" 2>/dev/null && have_cc=true
        chmod -R a+rX "$TMP/pre"
fi
[ -e "$TMP/pre/x.so" ] || : >"$TMP/pre/x.so"
# The scan refuses this code (default profile: no os). With LD_PRELOAD of a
# workspace library, the library's code would run before the scan.
REFUSED='import os
print("ran-program")'
run_acs -w "$TMP/pre" --setenv LD_PRELOAD /workspace/x.so -c "$REFUSED"
is "$RC" 125 "--setenv LD_PRELOAD on a scanned run without [env] allow_loader: exit 125"
contains "$ERR" "--setenv LD_PRELOAD" "  the message names the variable"
contains "$ERR" "[env] allow_loader" "  and the profile key that allows it"
lacks "$ERR" "PRELOAD-RAN" "  the library did not run"
lacks "$OUT" "ran-program" "  the program did not run"
run_acs -w "$TMP/pre" --json --setenv LD_PRELOAD /workspace/x.so -c "$REFUSED"
printf '%s\n' "$OUT" >"$TMP/pre.json"
if schema_valid "$TMP/pre.json" && [ "$(json_get .status <"$TMP/pre.json")" = error ]; then
        ok "  --json: one valid report, status error"
else
        fail "  --json: one valid report, status error"
        diag "$(tail -n 3 "$TMP/.schema.err"): $OUT"
fi

cat >"$TMP/preset.ini" <<EOF
[profile]
inherit = default
[env]
set += LD_LIBRARY_PATH=/workspace
EOF
cat >"$TMP/prekeep.ini" <<EOF
[profile]
inherit = default
[env]
keep += LD_AUDIT
EOF
cat >"$TMP/noflags.ini" <<EOF
[profile]
inherit = default
[python]
flags = -S
EOF
cat >"$TMP/allowed.ini" <<EOF
[profile]
inherit = default
[env]
allow_loader = LD_PRELOAD
EOF
chmod 0644 "$TMP"/*.ini
run_acs --profile "$TMP/preset.ini" -c 'print("ran")'
is "$RC/$OUT" "125/" "[env] set of LD_LIBRARY_PATH without allow_loader: 125, nothing ran"
contains "$ERR" "[env] set LD_LIBRARY_PATH" "  the message says where it came from"
LD_AUDIT=/workspace/a.so run_acs --profile "$TMP/prekeep.ini" -c 'print("ran")'
is "$RC/$OUT" "125/" "[env] keep of LD_AUDIT without allow_loader: 125, nothing ran"
contains "$ERR" "[env] keep LD_AUDIT" "  the message says where it came from"
run_acs --setenv LC_ALL /workspace/locale -c 'print("ran")'
is "$RC/$OUT" "125/" "a locale that is a path (LC_ALL=/workspace/...): 125, nothing ran"
# python3 without -I/-E reads PYTHON*: PYTHONINSPECT would give an
# interactive prompt on stdin after the scan's refusal
echo 'print("STDIN-RAN")' >"$TMP/stdin.py"
"$ACS" --profile "$TMP/noflags.ini" --setenv PYTHONINSPECT 1 -c 'import os' <"$TMP/stdin.py" >"$TMP/insp.out" 2>&1
is "$?" 125 "PYTHONINSPECT under flags without -I: 125"
lacks "$(cat "$TMP/insp.out")" "STDIN-RAN" "  nothing from stdin ran"
run_acs --setenv PYTHONPATH /workspace -c 'print("ran")'
is "$RC/$OUT" "0/ran" "PYTHONPATH under -I (ignored by python3): passed"
run_acs --profile unsafe-python --setenv LD_BIND_NOW 1 -c 'print("ran")'
is "$RC/$OUT" "0/ran" "scan mode off: nothing to bypass, LD_* passed"
run_acs exec --setenv LD_BIND_NOW 1 -- /bin/echo ran
is "$RC/$OUT" "0/ran" "exec (no scan): LD_* passed"

# allowed by the profile: passed, and the report says the scan could be bypassed
run_acs --profile "$TMP/allowed.ini" -w "$TMP/pre" --json --setenv LD_PRELOAD /workspace/x.so -c "$REFUSED"
printf '%s\n' "$OUT" >"$TMP/allowed.json"
is "$(json_get .scan.bypassable <"$TMP/allowed.json")" "true" "[env] allow_loader = LD_PRELOAD: the report's scan.bypassable is true"
is "$(json_get .scan.bypass_env <"$TMP/allowed.json")" '["LD_PRELOAD"]' "  scan.bypass_env names it"
if schema_valid "$TMP/allowed.json"; then ok "  the report is valid"; else fail "  the report is valid"; diag "$(tail -n 3 "$TMP/.schema.err")"; fi
if $have_cc; then
        contains "$(json_get .stderr.text <"$TMP/allowed.json")" "PRELOAD-RAN" \
                "  (what it allows: the workspace library ran before the scan refused the program)"
else
        skip "no C compiler: the preload library was not built"
fi
run_acs --profile "$TMP/allowed.ini" -w "$TMP/pre" --setenv LD_PRELOAD /workspace/x.so -c 'print("ran")'
contains "$ERR" "acs-launch: warning: LD_PRELOAD was passed" "  without --json, a warning says so"
run_acs -w "$TMP/pre" --json -c 'print("ran")'
is "$(json_get .scan.bypassable <<EOF
$OUT
EOF
)" "null" "an ordinary run has no scan.bypassable"

# --- -v traces are ours, never the program's stderr (issue 12 item 7) --------
for fast in 1 0; do
        if [ $fast = 1 ]; then unset ACS_NO_FAST_CLONE; else export ACS_NO_FAST_CLONE=1; fi
        run_acs --profile unsafe-python -v --json -c 'import sys; print("own-stderr", file=sys.stderr)'
        is "$(json_get .stderr.text <<EOF
$OUT
EOF
)" "own-stderr" "-v --json (fast=$fast): the report's stderr is the program's alone"
        contains "$ERR" "acs-launch: " "  the traces went to the launcher's stderr"
        contains "$ERR" "program: stdio" "  including the step the program process traces after its stdio became the pipes"
done
unset ACS_NO_FAST_CLONE

# --- the program's output cannot pass for our words (issue 12 item 7) --------
FAKE='import sys
print("acs-launch: files: no changes", file=sys.stderr)
print("acs-launch: exited with status 0 (scan pass)")
sys.stdout.write("\racs-launch: applied 9\n")
sys.stderr.write("x\racs-launch: cr\n\x1b[2K\x1b[1Gacs-launch: esc\n")
print("END")'
run_acs --profile unsafe-python -c "$FAKE"
if printf '%s\n' "$ERR" | grep -q '^acs-launch: files: no changes'; then
        fail "the program's stderr line 'acs-launch: files: ...' does not start a line as ours"
else
        ok "the program's stderr line 'acs-launch: files: ...' does not start a line as ours"
fi
contains "$ERR" "[program] acs-launch: files: no changes" "  it is marked as the program's"
contains "$ERR" "x$(printf '\r')[program] acs-launch: cr" "  also after a carriage return"
contains "$ERR" "[program] acs-launch: esc" "  and after escape sequences"
is "$(printf '%s\n' "$OUT" | head -n 1)" "acs-launch: exited with status 0 (scan pass)" \
        "stdout to a file of its own is the program's data, unchanged"
"$ACS" --profile unsafe-python -c "$FAKE" >"$TMP/both.txt" 2>&1 </dev/null
if grep -q '^acs-launch: exited' "$TMP/both.txt"; then
        fail "stdout and stderr in one file: no program line passes for ours"
else
        ok "stdout and stderr in one file: no program line passes for ours"
fi
contains "$(cat "$TMP/both.txt")" "[program] acs-launch: exited with status 0 (scan pass)" "  stdout is marked there too"
# our own words: every line of the summary starts with "acs-launch: ", on a line of its own
run_acs --profile unsafe-python -c 'import sys; open("new.txt", "w").write("x"); sys.stderr.write("no newline")'
contains "$ERR" "no newline
acs-launch: A  new.txt" "our summary starts on a line of its own, each line with 'acs-launch: '"

# --- the script is a regular file, never a FIFO to hang on (issue 18 item 9) -
mkfifo "$TMP/fifo.py"
start=$(date +%s)
timeout 20 "$ACS" --profile unsafe-python -- "$TMP/fifo.py" >"$TMP/fifo.out" 2>&1 </dev/null
rc=$?
is "$rc" 125 "a FIFO as the script: exit 125, not a hang"
contains "$(cat "$TMP/fifo.out")" "is not a regular file" "  the message says why"
if [ $(($(date +%s) - start)) -lt 10 ]; then ok "  at once"; else fail "  at once"; fi

# --- --report and --patch never write through a planted entry (issue 18 item 9)
mkdir "$TMP/out" "$TMP/ows" && chmod 0777 "$TMP/out" "$TMP/ows"
echo precious >"$TMP/out/target"
ln -s target "$TMP/out/report.json"
ln -s target "$TMP/out/changes.patch"
run_acs --profile unsafe-python --report "$TMP/out/report.json" -c 'print("ran")'
is "$RC/$OUT" "125/" "--report to a symlink: exit 125, nothing ran"
contains "$ERR" "is a symbolic link" "  the message says why"
run_acs --profile unsafe-python -w "$TMP/ows" --patch "$TMP/out/changes.patch" -c 'open("f", "w").write("x\n"); print("ran")'
is "$RC/$OUT" "125/" "--patch to a symlink: exit 125, nothing ran"
is "$(cat "$TMP/out/target")" "precious" "  the symlinks' target is untouched"
mkfifo "$TMP/out/fifo.json"
timeout 20 "$ACS" --profile unsafe-python --report "$TMP/out/fifo.json" -c 'print("ran")' >"$TMP/ff.out" 2>&1 </dev/null
is "$?" 125 "--report to a FIFO: exit 125, not a hang"
contains "$(cat "$TMP/ff.out")" "'$TMP/out/fifo.json' exists and is not a regular file" "  the message says why"
ln "$TMP/out/target" "$TMP/out/hard.json"
run_acs --profile unsafe-python --report "$TMP/out/hard.json" -c 'print("ran")'
is "$RC/$(cat "$TMP/out/target")" "125/precious" "--report to a file with another hard link: refused, untouched"
echo old >"$TMP/out/mine.json"
run_acs --profile unsafe-python --report "$TMP/out/mine.json" -c 'print("ran")'
is "$RC/$(json_get .status <"$TMP/out/mine.json")" "0/exited" "--report over a regular file of one's own: rewritten"
run_acs --profile unsafe-python -w "$TMP/ows" --patch "$TMP/out/mine.patch" -c 'open("f", "w").write("x\n")'
contains "$(cat "$TMP/out/mine.patch")" "+x" "--patch to a new file: written"
if is_root; then
        echo theirs >"$TMP/out/theirs.json" && chown 65534:65534 "$TMP/out/theirs.json"
        run_acs --profile unsafe-python --report "$TMP/out/theirs.json" -c 'print("ran")'
        is "$RC/$(cat "$TMP/out/theirs.json")" "125/theirs" "--report over another user's file: refused, untouched"
        contains "$ERR" "belongs to another user" "  the message says why"
else
        skip "another user's file: needs root to plant one"
fi

# --- bind destinations are absolute, without '..' (issue 18 item 9) ----------
for dest in "/tmp/../x" "/tmp/../usr/x" "/a/.." "rel/x" ".."; do
        run_acs --profile unsafe-python --ro-bind "$TMP/pre" "$dest" -c 'print("ran")'
        is "$RC/$OUT" "125/" "--ro-bind to '$dest': exit 125, nothing ran"
done
contains "$ERR" "absolute path without '..'" "  the message says what a destination must be"
run_acs --profile unsafe-python --tmpfs /tmp/../y -c 'print("ran")'
is "$RC/$OUT" "125/" "--tmpfs /tmp/../y: exit 125, nothing ran"

tap_plan
