#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attack suite: the caller's terminal is not the program's (security-model.md).
# acs-launch runs under a real pseudo-terminal (tests/security/pty-run.py) as
# a shell would run it. Without --stdin tty the program must not get the
# terminal (no termios, window size, input flush, file-flag changes that
# outlive the run); stdin from a pipe or file still reaches it, but never the
# caller's own file; with ansi = strip nothing the program prints live puts a
# control byte on the terminal (ESC, BEL, C1, OSC 52), also when a sequence is
# split across two writes; with --stdin tty the program gets the terminal and
# the caller's settings come back afterwards, also after a timeout or SIGTERM.
. "$ACS_SRCDIR/tests/security/sec-lib.sh"

HARNESS=$ACS_SRCDIR/tests/security/pty-run.py

# ptyrun [HARNESS OPTIONS] -- ACS ARGS...: run acs-launch under a new pty;
# the harness's JSON lands in $TMP/pty.json (after the checks queued on the
# previous run's have been judged)
ptyrun() {
        checks_done
        python3 -I "$HARNESS" "$@" >"$TMP/pty.json" 2>"$TMP/pty.err"
}
# pyis EXPR WANT DESC: queue a check of the last ptyrun: str(EXPR) == WANT,
# with d = the harness's JSON and o = the bytes that reached the terminal.
# (Queued, so that one python3 judges them all: this host may be slow.)
: >"$TMP/checks"
pyis() { printf '%s\037%s\037%s\036' "$1" "$2" "$3" >>"$TMP/checks"; }
checks_done() {
        [ -s "$TMP/checks" ] || return 0
        python3 -I -S -c 'import json, sys
try:
    d = json.load(open(sys.argv[1])); o = d["out"].encode("latin-1")
except Exception as e:
    d, o = None, b""; bad = "no harness result: %r" % e
for rec in open(sys.argv[2], encoding="utf-8").read().split("\036")[:-1]:
    expr, want, desc = rec.split("\037")
    try:
        got = str(eval(expr)) if d is not None else bad
    except Exception as e:
        got = "error: %r" % e
    if got == want:
        print("PASS\t" + desc)
    else:
        tail = repr(d["out"][-1500:]) if d is not None else ""
        print("FAIL\t%s\t%s = %s (want %s); terminal: %s" % (desc, expr, got, want, tail))
' "$TMP/pty.json" "$TMP/checks" >"$TMP/checks.out" 2>&1
        while IFS='	' read -r _st _desc _why; do
                case $_st in
                PASS) ok "$_desc" ;;
                FAIL) fail "$_desc"; diag "$_why"; diag "harness: $(tail -n 3 "$TMP/pty.err")" ;;
                *) fail "checks could not be judged"; diag "$_st $_desc $_why" ;;
                esac
        done <"$TMP/checks.out"
        : >"$TMP/checks"
}
# The terminal came back as it was: termios, window size, file status flags.
same_terminal() {
        for _k in iflag oflag lflag cc; do
                pyis "d['before']['$_k'] == d['after']['$_k']" True "$1: termios $_k unchanged"
        done
        pyis "d['before']['winsize'] == d['after']['winsize']" True "$1: window size unchanged"
        pyis "d['before']['fl'] == d['after']['fl']" True "$1: file status flags (O_NONBLOCK) unchanged"
}
# Every byte on the terminal is printable UTF-8, tab, CR or LF: no ESC, BEL,
# other C0, DEL, C1 (as UTF-8 or raw 8-bit bytes), invalid UTF-8.
TERM_CLEAN='not any((ord(c) < 32 and c not in "\t\r\n") or 0x7f <= ord(c) <= 0x9f or 0xdc80 <= ord(c) <= 0xdcff for c in o.decode("utf-8", "surrogateescape"))'

# The attacker: a program that tries every way to change the terminal it
# was given as stdin (or any of its fds), and says where it got.
ATTACK='import fcntl, os, struct, sys, termios
print("isatty=%s" % ",".join(str(os.isatty(i)) for i in range(3)), flush=True)
print("dev_tty=%s" % os.path.exists("/dev/tty"), flush=True)
done = []
for fd in (0, 1, 2):
    try:
        a = termios.tcgetattr(fd)
        a[0] = 0; a[1] &= ~termios.OPOST; a[3] &= ~(termios.ECHO | termios.ICANON | termios.ISIG)
        termios.tcsetattr(fd, termios.TCSANOW, a); done.append("raw%d" % fd)
    except (OSError, termios.error): pass
    try:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 3, 7, 0, 0)); done.append("winsz%d" % fd)
    except (OSError, termios.error): pass
    try:
        termios.tcflush(fd, termios.TCIOFLUSH); done.append("flush%d" % fd)
    except (OSError, termios.error): pass
    try:
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
    except (OSError, termios.error): pass
print("changed=" + (",".join(done) or "nothing"), flush=True)
'

# --- the default: a terminal on stdin is not passed ------------------------
ptyrun --type "typeahead-$MARK
" -- "$ACS" --profile unsafe-python -c "$ATTACK
print('END')"
pyis "'END' in d['out']" True "default: the program ran to its end"
pyis "d['rc']" 0 "default: exit status 0"
pyis "'isatty=False,False,False' in d['out']" True "default: none of the program's fds 0, 1, 2 is a terminal"
pyis "'changed=nothing' in d['out']" True "default: no terminal setting could be changed"
pyis "'dev_tty=False' in d['out']" True "default: no /dev/tty inside"
same_terminal "default"
pyis "d['left'] == 'typeahead-$MARK\\n'" True "default: typeahead still waits for the shell (no input flush)"

# the same through exec and a shell's stty
ptyrun -- "$ACS" exec -- /bin/sh -c 'stty raw -echo cols 7 rows 3 2>/dev/null; stty -F /dev/tty sane 2>/dev/null; [ -t 0 ] && echo STDIN-TTY; echo END'
pyis "'END' in d['out']" True "exec: the program ran to its end"
pyis "'STDIN-TTY' in d['out']" False "exec: stdin is not a terminal"
same_terminal "exec"

# --json never gives the terminal either
ptyrun -- "$ACS" --json --profile unsafe-python -c "$ATTACK"
pyis "'isatty=False,False,False' in d['out'] and 'changed=nothing' in d['out']" True "--json: the program's stdin is not the terminal"
same_terminal "--json"

# --- stdin from a pipe or a file still reaches the program ---------------
r=$(printf 'hi-%s\n' "$MARK" | "$ACS" --profile unsafe-python -c 'import os; print(os.isatty(0), input())' 2>&1)
is "$r" "False hi-$MARK" "a pipe on stdin reaches the program"
r=$(printf 'hi-%s\n' "$MARK" | "$ACS" exec -- /bin/sh -c 'read x; echo "got $x"' 2>&1)
is "$r" "got hi-$MARK" "exec: a pipe on stdin reaches the command"
head -c 3000000 /dev/urandom >"$TMP/big"
want=$(sha256sum <"$TMP/big" | cut -d' ' -f1)
r=$("$ACS" --profile unsafe-python -c 'import hashlib, sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())' <"$TMP/big" 2>&1)
is "$r" "$want" "3 MB from a file on stdin arrive intact"
r=$(yes | timeout 20 "$ACS" --profile unsafe-python -c 'print("ignored stdin")' 2>&1)
is "$r" "ignored stdin" "an endless stdin the program never reads does not hold the run"
r=$(yes | timeout 20 "$ACS" --profile unsafe-python -c 'import sys; sys.stdin.readline(); sys.stdin.close(); os = __import__("os"); os.close(0); print("closed")' 2>&1)
is "$r" "closed" "a program that closes its stdin early ends normally"

# The caller's file is not the program's: a file redirected to stdin cannot
# be reopened for writing through /proc/self/fd/0 (mode 0666: writable by
# whatever uid the sandbox has).
printf 'original-%s\n' "$MARK" >"$TMP/input"
chmod 0666 "$TMP/input"
run_stdin() { "$ACS" "$@" >"$TMP/.out" 2>"$TMP/.err" <"$TMP/input"; RC=$?; OUT=$(cat "$TMP/.out"); ERR=$(cat "$TMP/.err"); }
run_stdin --profile unsafe-python -c "$PRELUDE
tryf('reopen_read', lambda: open('/proc/self/fd/0').read(3))
res('read', input())
def inject():
    fd = os.open('/proc/self/fd/0', os.O_WRONLY | os.O_APPEND)
    os.write(fd, b'INJECTED\n')
    os.close(fd)
tryf('reopen_write', inject)
print('END')"
reached "stdin file: probe"
expect_field read "original-$MARK" "stdin file: its content reaches the program, whole"
expect_not_field reopen_read OK "stdin file: the program cannot open its stdin a second time"
is "$(cat "$TMP/input")" "original-$MARK" "stdin file: the caller's file is unchanged"

# --stdin null: nothing, even from a pipe
r=$(echo data | "$ACS" --stdin null --profile unsafe-python -c 'import sys; print(repr(sys.stdin.read()))' 2>&1)
is "$r" "''" "--stdin null: the program reads nothing"
# --json with --stdin pipe: the input reaches the program, one report
r=$(echo "json-$MARK" | "$ACS" --json --stdin pipe --profile unsafe-python -c 'print(input())' 2>/dev/null | json_get .stdout.text)
is "$r" "json-$MARK" "--json --stdin pipe: the input reaches the program"

# --- --stdin pipe: typed input reaches the program, the terminal does not --
ptyrun --type-later 1.5 "typed-$MARK
" -- "$ACS" --stdin pipe --profile unsafe-python -c "$ATTACK
fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, fcntl.F_GETFL) & ~os.O_NONBLOCK)  # the attack set it on its pipe
print('read=' + input())
print('END')"
pyis "'read=typed-$MARK' in d['out']" True "--stdin pipe: a typed line reaches the program"
pyis "'isatty=False,False,False' in d['out'] and 'changed=nothing' in d['out']" True "--stdin pipe: the program has no terminal"
same_terminal "--stdin pipe"

# --- --stdin tty: the explicit opt-in, restored afterwards ----------------
ptyrun -- "$ACS" --stdin tty --profile unsafe-python -c "$ATTACK
print('END')"
pyis "'END' in d['out']" True "--stdin tty: the program ran to its end"
# (the program's own tcflush may discard its first lines before the harness reads them: the
# line printed after it says which fds were terminals -- only 0 could be made raw)
pyis "'changed=raw0,winsz0,flush0\r\n' in d['out'] or 'changed=raw0,winsz0,flush0\n' in d['out']" True "--stdin tty: stdin (only) is the terminal"
pyis "'raw0' in d['out'] and 'winsz0' in d['out']" True "--stdin tty: the program could change the terminal (control)"
same_terminal "--stdin tty"

ptyrun -- "$ACS" --stdin tty --timeout 1 --profile unsafe-python -c "$ATTACK
import time; time.sleep(30)"
pyis "d['rc']" 124 "--stdin tty, timeout: status 124"
same_terminal "--stdin tty, timeout"

ptyrun --term-after 1.5 -- "$ACS" --stdin tty --profile unsafe-python -c "$ATTACK
import time; time.sleep(30)"
pyis "d['rc'] != 0" True "--stdin tty, SIGTERM: the run was ended"
same_terminal "--stdin tty, SIGTERM to the launcher"

# exclusive mode and stopped output outlive a process unless undone
ptyrun -- "$ACS" --stdin tty --profile unsafe-python -c "$ATTACK
import time
fcntl.ioctl(0, termios.TIOCEXCL)
print('END', flush=True)
time.sleep(0.5)
termios.tcflow(0, termios.TCOOFF)"
pyis "'END' in d['out']" True "--stdin tty, TIOCEXCL + TCOOFF: the program ran to its end"
pyis "d['flow']" True "--stdin tty: output stopped by the program (TCOOFF) flows again afterwards"
pyis "d['reopen']" True "--stdin tty: exclusive mode set by the program (TIOCEXCL) is undone"
same_terminal "--stdin tty, TIOCEXCL + TCOOFF"

run_acs --stdin tty --profile unsafe-python -c 'print(1)'
is "$RC" 125 "--stdin tty without a terminal on stdin: exit 125"
contains "$ERR" "--stdin" "--stdin tty without a terminal: the message names the option"
run_acs --stdin bogus --profile unsafe-python -c 'print(1)'
is "$RC" 125 "--stdin bogus: exit 125"
contains "$ERR" "bogus" "--stdin bogus: the message names the value"

# --- ansi = strip: no control byte reaches the terminal -------------------
# Escapes in one write, split across two writes with a pause (so that the
# launcher reads them separately), on both streams, in the live head and in
# the tail printed at the end.
ESCAPES='import sys, time
def w(s, stream=sys.stdout):
    stream.buffer.write(s); stream.flush()
w(b"A1\x1b]52;c;SGVsbG8=\x07A2\x1b]0;title-x\x07A3\x1b[2J\x1bPqdcs\x1b\\A4\x07\x08\x0e\x7fA5\n")
w(b"C1\xc2\x9b31mC2\xc2\x9d52;c;QQ==\xc2\x9cC3\xc2\x85\xc2\x8dC4\x9b31m\x9dC5\n")
w(b"S1\x1b]5"); time.sleep(0.3); w(b"2;c;U1BMSVQ=\x07S2\n")
w(b"T1\x1b"); time.sleep(0.3); w(b"]52;c;U1BMSVQy\x07T2\n")
w(b"U1\xc2"); time.sleep(0.3); w(b"\x9b31mU2 \xc3"); time.sleep(0.3); w(b"\xa9U3\n")
w(b"E1\x1b]52;c;RVJS\x07E2\x07\n", sys.stderr)
w(b"".join(b"filler line %d\n" % i for i in range(200)))
w(b"Z1\x1b]52;c;VEFJTA==\x07Z2\x07\xc2\x85\x9bZ3\n")
w(b"Y1\x1b]0;tail-title\x07Y2\n", sys.stderr)
print("END")'
ptyrun -- "$ACS" --profile unsafe-python --max-tokens 300 -c "$ESCAPES"
pyis "'END' in d['out'] and 'Z1Z2' in d['out'] and 'Y1Y2' in d['out']" True "strip: the program ran to its end (tail printed)"
pyis "o.count(b'\x1b')" 0 "strip: no ESC reached the terminal"
pyis "o.count(b'\x07')" 0 "strip: no BEL reached the terminal"
pyis "b'52;c' in o or b'title-x' in o or b'tail-title' in o" False "strip: no OSC 52 / title payload reached the terminal"
pyis "$TERM_CLEAN" True "strip: only printable UTF-8, tab, CR, LF on the terminal (no C0, DEL, C1, raw 8-bit)"
pyis "b'A1A2A3A4A5' in o and b'S1S2' in o and b'T1T2' in o and b'E1E2' in o" True "strip: the text around the escapes survives"
pyis "b'U1' in o and b'U2 \xc3\xa9U3' in o" True "strip: a character split across reads survives whole"
pyis "b'SPLIT' in o or b'U1BMSVQ' in o" False "strip: a sequence split across two reads is still stripped"

# What the launcher itself prints from what the code or the program chose:
# scan findings quoting a string of the code, a patch of the files it wrote.
ESC=$(printf '\033')
BEL=$(printf '\007')
run_acs -c '__import__("o\x1b]52;c;RklORA==\x07s")'
is "$RC" 126 "finding: the code is refused"
case $ERR in *"$ESC"* | *"$BEL"*) fail "finding: no raw ESC or BEL from the code on stderr"; diag "$ERR" ;;
*) ok "finding: no raw ESC or BEL from the code on stderr" ;; esac
contains "$ERR" '\x1b]52;c;RklORA==\x07' "finding: the escape is shown escaped"
OUT=$(printf '__import__("o\\x1b]52;c;RklORA==\\x07s")\n' | "$ACS" check - 2>&1)
case $OUT in *"$ESC"* | *"$BEL"*) fail "check: no raw ESC or BEL from the code"; diag "$OUT" ;;
*) ok "check: no raw ESC or BEL from the code" ;; esac
contains "$OUT" '\x1b]52;c;RklORA==\x07' "check: the escape is shown escaped"

mkdir -p "$TMP/ws" "$TMP/ws2"
chmod 0777 "$TMP/ws" "$TMP/ws2"
WRITE='open("/workspace/f.txt", "w").write("P1\x1b]52;c;UEFUQ0g=\x07P2\n"); print("END")'
ptyrun -- "$ACS" --profile unsafe-python -w "$TMP/ws" --patch - -c "$WRITE"
pyis "b'+P1P2' in o" True "--patch - on a terminal: the patch is shown"
pyis "o.count(b'\x1b') + o.count(b'\x07')" 0 "--patch - on a terminal: no ESC or BEL from the files"
run_acs --profile unsafe-python -w "$TMP/ws" --patch - --keep "$TMP/kept" -c "$WRITE"
contains "$OUT" "P1$ESC]52;c;UEFUQ0g=${BEL}P2" "--patch - to a pipe: the patch is exact"
ptyrun -- "$ACS" apply "$TMP/kept" --workspace "$TMP/ws2" --patch -
pyis "b'+P1P2' in o and o.count(b'\x1b') + o.count(b'\x07') == 0" True "apply --patch - on a terminal: no ESC or BEL from the files"

# ansi = keep passes them (the control: the harness does see escapes)
cat >"$TMP/keep.ini" <<EOF
[profile]
description = keep escapes
inherit = unsafe-python
[output]
ansi = keep
EOF
ptyrun -- "$ACS" --profile "$TMP/keep.ini" -c 'print("K1\x1b]0;kept\x07K2"); print("END")'
pyis "b'K1\x1b]0;kept\x07K2' in o" True "keep: escape sequences pass through (documented)"

checks_done
tap_plan
