#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The scan is not the boundary. For every family of refusal, the same attack
# runs with the scan off (profile unsafe-python) and the kernel layer must
# still contain it: host files stay invisible and unwritten, the network is
# absent. The same program under pure-math is refused (126) before it runs.
#
# The attacks only ever aim at paths under this test's own $TMP (and read
# /etc/shadow): a containment failure shows up as LEAK, never as damage.
. "$ACS_SRCDIR/tests/lib.sh"

SECRET=$TMP/host-secret
VICTIM=$TMP/host-victim
echo "TOP-SECRET-CANARY" >"$SECRET"
chmod 0644 "$SECRET"

# Each program ends by printing CONTAINED when every probe failed.
PROBES="
def probes(read, write, system=None):
    leaks = []
    for p in ('$SECRET', '/etc/shadow'):
        try:
            if 'CANARY' in read(p) or p == '/etc/shadow':
                leaks.append('read ' + p)
        except Exception:
            pass
    try:
        write('$VICTIM')
        leaks.append('wrote host file')
    except Exception:
        pass
    print('LEAK ' + ', '.join(leaks) if leaks else 'CONTAINED')
"

attack() { # NAME RULE BODY [PROFILE for the run with the scan off]
        name=$1
        rule=$2
        off=${4:-unsafe-python}
        f=$TMP/$name.py
        printf 'print("RAN")\n%s\n%s\n' "$PROBES" "$3" >"$f"
        run_acs check --profile pure-math "$f"
        if [ "$RC" = 126 ] && case $OUT in *": $rule: "*) true ;; *) false ;; esac; then
                ok "$name: the scan refuses it ($rule)"
        else
                fail "$name: the scan refuses it ($rule)"
                diag "rc=$RC out=$OUT"
        fi
        run_acs --profile pure-math -- "$f"
        is "$RC" 126 "$name: refused run exits 126"
        lacks "$OUT" RAN "$name: refused run executes nothing"
        run_acs --profile "$off" -- "$f"
        contains "$OUT" "RAN" "$name: with the scan off it runs"
        contains "$OUT" "CONTAINED" "$name: with the scan off the kernel contains it"
        [ "$RC" = 0 ] || diag "rc=$RC stderr: $ERR"
        lacks "$OUT" "LEAK" "$name: nothing leaks"
        if [ -e "$VICTIM" ]; then fail "$name: no host file written"; rm -f "$VICTIM"; else
                ok "$name: no host file written"; fi
}

attack import-os forbidden-import '
import os
def rd(p):
    fd = os.open(p, os.O_RDONLY)
    return os.read(fd, 100).decode()
def wr(p):
    os.close(os.open(p, os.O_WRONLY | os.O_CREAT, 0o644))
probes(rd, wr)'

attack subprocess forbidden-import '
import subprocess
def rd(p):
    r = subprocess.run(["/bin/cat", p], capture_output=True, text=True)
    if r.returncode:
        raise OSError(r.returncode)
    return r.stdout
def wr(p):
    if subprocess.run(["/bin/sh", "-c", "echo x > " + p]).returncode:
        raise OSError()
probes(rd, wr)'

attack ctypes-libc forbidden-import '
import ctypes
libc = ctypes.CDLL(None)
def rd(p):
    fd = libc.open(p.encode(), 0)
    if fd < 0:
        raise OSError()
    return "CANARY"
def wr(p):
    if libc.open(p.encode(), 0o101, 0o644) < 0:
        raise OSError()
probes(rd, wr)'

attack denied-builtin denied-builtin '
def rd(p):
    return open(p).read()
def wr(p):
    open(p, "w").write("x")
probes(rd, wr)'

attack eval-exec denied-builtin '
def rd(p):
    return eval("open(p).read()")
def wr(p):
    exec("open(p, \"w\").write(\"x\")")
probes(rd, wr)'

attack builtins-dict denied-builtin '
o = __builtins__["open"] if isinstance(__builtins__, dict) else __builtins__.open
probes(lambda p: o(p).read(), lambda p: o(p, "w").write("x"))'

attack class-hierarchy denied-attribute '
bi = [c for c in ().__class__.__base__.__subclasses__() if c.__name__ == "BuiltinImporter"][0]
posix = bi.load_module("posix")
def rd(p):
    return posix.read(posix.open(p, posix.O_RDONLY), 100).decode()
def wr(p):
    posix.close(posix.open(p, posix.O_WRONLY | posix.O_CREAT, 0o644))
probes(rd, wr)'

attack format-string denied-attribute '
leak = "{0.__class__.__base__}".format(1)
print("format leaked only a repr:", leak)
probes(lambda p: open(p).read(), lambda p: open(p, "w").write("x"))'

attack frame-walk denied-attribute '
def gen():
    yield 1
b = gen().gi_frame.f_builtins
probes(lambda p: b["open"](p).read(), lambda p: b["open"](p, "w").write("x"))'

attack dynamic-type dynamic-type '
K = type("K", (), {"rd": staticmethod(lambda p: open(p).read()),
                   "wr": staticmethod(lambda p: open(p, "w").write("x"))})
probes(K.rd, K.wr)'

attack module-internals module-internals '
import random
os = random._os
def rd(p):
    return os.read(os.open(p, os.O_RDONLY), 100).decode()
def wr(p):
    os.close(os.open(p, os.O_WRONLY | os.O_CREAT, 0o644))
probes(rd, wr)'

attack reflective reflective-access '
print(sorted(dir())[:2])
probes(lambda p: open(p).read(), lambda p: open(p, "w").write("x"))'

# Issue 13 item 6: the families the scan learned to refuse. Each reaches
# builtins or os through the family's mechanism, with the scan off.
attack match-positional denied-attribute '
class M(type):
    def __instancecheck__(cls, obj):
        return True
class G(metaclass=M):
    __match_args__ = ("gi_frame",)
class F(metaclass=M):
    __match_args__ = ("f_builtins",)
def gen():
    yield 1
match gen():
    case G(fr):
        match fr:
            case F(b):
                probes(lambda p: b["open"](p).read(), lambda p: b["open"](p, "w").write("x"))'

attack typing-evaluate denied-attribute '
import typing
def ev(code):
    return typing.get_args(typing.List[code])[0]._evaluate(None, None, frozenset())
rd = ev("lambda p: __import__(\"os\").read(__import__(\"os\").open(p, 0), 100).decode()")
wr = ev("lambda p: __import__(\"os\").open(p, 0o101, 0o644)")
probes(rd, wr)'

attack format-runtime reflective-access '
t = bytes([123, 48, 46]).decode() + "__globals__}"
print("format leaked only a repr:", len(t.format(probes)) > 0)
probes(lambda p: open(p).read(), lambda p: open(p, "w").write("x"))'

attack submodule forbidden-import '
from json import tool
os = tool.sys.modules["os"]
def rd(p):
    return os.read(os.open(p, os.O_RDONLY), 100).decode()
def wr(p):
    os.close(os.open(p, os.O_WRONLY | os.O_CREAT, 0o644))
probes(rd, wr)'

attack wrapper-getattr denied-attribute '
import functools
class W:
    pass
w = W()
functools.update_wrapper(w, probes, assigned=("__globals__",), updated=())
b = w.__globals__["__builtins__"]
o = b["open"] if isinstance(b, dict) else b.open
probes(lambda p: o(p).read(), lambda p: o(p, "w").write("x"))'

attack monkeypatch module-write '
import json
json.dumps = lambda p: open(p).read()
probes(json.dumps, lambda p: open(p, "w").write("x"))'

# site's license() reads any file by name; -S dropped so that it exists.
printf '[profile]\ninherit = unsafe-python\n[python]\nflags = -I\n' >"$TMP/site-on.ini"
attack site-license denied-builtin '
def rd(p):
    license._Printer__filenames = [p]
    license._Printer__lines = None
    license._Printer__setup()
    t = "\n".join(license._Printer__lines)
    if "python.org" in t:
        raise OSError("not read")
    return t
probes(rd, lambda p: open(p, "w").write("x"))' "$TMP/site-on.ini"

# The network: no interfaces with net = none.
f=$TMP/net.py
printf 'print("RAN")\nimport socket\ntry:\n    s = socket.create_connection(("1.1.1.1", 53), timeout=2)\n    print("LEAK connected")\nexcept OSError as e:\n    print("CONTAINED", type(e).__name__)\n' >"$f"
run_acs check --profile pure-math "$f"
is "$RC" 126 "network: the scan refuses import socket"
run_acs --profile unsafe-python -- "$f"
contains "$OUT" "CONTAINED" "network: with the scan off no connection is possible"
lacks "$OUT" "LEAK" "network: nothing connects"

tap_plan
