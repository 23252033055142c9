#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scan speed, as figures and ratios to bare python (issue 3):
#   1. warm scan of a 100-line snippet, in process    (goal <= 0.2 ms)
#   2. cold `acs-launch check` vs python3 -I -S -c pass (goal <= 1.1x)
#   3. one-shot `--profile pure-math` run vs python3 -I -S hello.py (goal <= 1.4x),
#      with unsafe-python (no scan) beside it
#   4. the scan module linked against libpython3.11.so vs libpython3.11-pic.a
#   5. `check` of a 1 MB source of adversarial shapes (bench/adversarial.py:
#      fold bombs, alias chains, deep nesting, huge names, code in strings,
#      shadowed builtins) vs CPython's own parse of it (goal < 2 s)
# Usage: bench/scan.sh [BUILDDIR]   (run from anywhere; needs hyperfine)
# Environment: RUNS (default 30), ADV_RUNS (default 5), PY (default /usr/bin/python3).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
build=$(cd "${1:-$src}" && pwd)
RUNS=${RUNS:-30}
PY=${PY:-/usr/bin/python3}
ACS=$build/acs-launch
export ACS_PROFILE_PATH=${ACS_PROFILE_PATH:-$src/profiles}
export ACS_SCAN_MODULE_DIR=${ACS_SCAN_MODULE_DIR:-$build/.libs}
snippet=$src/bench/snippet100.py
hello=$src/examples/hello.py
[ -f "$hello" ] || { hello=$(mktemp); echo 'print("hello")' >"$hello"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

command -v hyperfine >/dev/null || { echo "bench/scan.sh: needs hyperfine" >&2; exit 1; }
make -s -C "$build" bench/scan-warm >/dev/null

# mean wall time of a hyperfine JSON export, in ms; cpu: mean user+system
mean() { "$PY" -I -S -c 'import json,sys; print("%.2f" % (json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]["mean"] * 1e3))' "$@"; }
cpu() { "$PY" -I -S -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]; print("%.2f" % ((r["user"] + r["system"]) * 1e3))' "$@"; }
ratio() { "$PY" -I -S -c 'import sys; print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$1" "$2"; }
hf() { hyperfine -N -w 5 -r "$RUNS" --export-json "$tmp/h.json" "$@" >/dev/null 2>&1; }

echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

set -- $("$build/bench/scan-warm" pure-math "$snippet" 5000)
echo "warm scan, 100 lines:     median $2 ms wall, $5 ms CPU; p95 $3 ms (first scan incl. interpreter start: $1 ms)"
parse=$("$PY" -I -S -c '
import sys, time
src = open(sys.argv[1]).read()
ts = []
for _ in range(3000):
    t = time.thread_time(); compile(src, "x", "exec", 1024); ts.append(time.thread_time() - t)
ts.sort(); print("%.4f" % (ts[len(ts) // 2] * 1e3))' "$snippet")
echo "                          parse alone (python3 compile, PyCF_ONLY_AST): $parse ms CPU; scan/parse = $(ratio "$5" "$parse")x"

hf "$PY -I -S -c pass" "$ACS check --profile pure-math $snippet"
py=$(mean "$tmp/h.json" 0)
chk=$(mean "$tmp/h.json" 1)
echo "cold check:               $chk ms vs python3 -I -S -c pass $py ms = $(ratio "$chk" "$py")x (goal 1.1x)"
echo "                          CPU $(cpu "$tmp/h.json" 1) ms vs $(cpu "$tmp/h.json" 0) ms = $(ratio "$(cpu "$tmp/h.json" 1)" "$(cpu "$tmp/h.json" 0)")x"

if [ -x "$ACS" ] && "$ACS" --profile pure-math -- "$hello" >/dev/null 2>&1; then
        hf "$PY -I -S $hello" "$ACS --profile pure-math -- $hello" "$ACS --profile unsafe-python -- $hello"
        py=$(mean "$tmp/h.json" 0)
        run=$(mean "$tmp/h.json" 1)
        raw=$(mean "$tmp/h.json" 2)
        echo "one-shot run, scan on:    $run ms vs python3 -I -S hello.py $py ms = $(ratio "$run" "$py")x (goal 1.4x)"
        echo "one-shot run, scan off:   $raw ms = $(ratio "$raw" "$py")x"
        echo "                          CPU: python $(cpu "$tmp/h.json" 0) ms, scan on $(cpu "$tmp/h.json" 1) ms ($(ratio "$(cpu "$tmp/h.json" 1)" "$(cpu "$tmp/h.json" 0)")x), scan off $(cpu "$tmp/h.json" 2) ms ($(ratio "$(cpu "$tmp/h.json" 2)" "$(cpu "$tmp/h.json" 0)")x)"
else
        echo "one-shot run:             skipped (acs-launch cannot run a sandbox here)"
fi

# The module with libpython linked in statically (Debian's libpython3.11-pic.a),
# -Bsymbolic so its 13k symbolic data relocations become relative ones.
pic=$("$PY" -I -S -c 'import sysconfig; print(sysconfig.get_config_var("LIBPL"))')/libpython3.11-pic.a
if [ -f "$pic" ] && ls "$build"/src/.libs/acs_scan_la-*.o >/dev/null 2>&1; then
        mkdir -p "$tmp/static"
        printf '{ global: acs_scan_module_v1; Py*; _Py*; local: *; };\n' >"$tmp/ver"
        ${CC:-cc} -shared -o "$tmp/static/acs-scan.so" "$build"/src/.libs/acs_scan_la-*.o \
                -Wl,--whole-archive "$pic" -Wl,--no-whole-archive -lexpat -lz -lm -ldl -lpthread \
                -lutil -Wl,--version-script="$tmp/ver" -Wl,-Bsymbolic -Wl,-z,relro,-z,now -Wl,-O1
        hf "env ACS_SCAN_MODULE_DIR=$build/.libs $ACS check --profile pure-math $snippet" \
           "env ACS_SCAN_MODULE_DIR=$tmp/static $ACS check --profile pure-math $snippet"
        dyn=$(mean "$tmp/h.json" 0)
        sta=$(mean "$tmp/h.json" 1)
        echo "module, libpython .so:    $dyn ms cold check"
        echo "module, libpython .a:     $sta ms cold check ($(ratio "$sta" "$dyn")x of the .so build)"
        echo "                          CPU: .so $(cpu "$tmp/h.json" 0) ms, .a $(cpu "$tmp/h.json" 1) ms"
fi

# A few bytes of hostile source once cost gigabytes and minutes here (issue 18);
# now the scan costs about what parsing the file costs.
"$PY" -I -S "$here/adversarial.py" all 1000000 >"$tmp/adv.py"
printf 'import sys\ncompile(open(sys.argv[1], "rb").read(), "x", "exec", 1024)\n' >"$tmp/parse.py"
hyperfine -N -i -w 1 -r "${ADV_RUNS:-5}" --export-json "$tmp/h.json" "$PY -I -S $tmp/parse.py $tmp/adv.py" \
        "$ACS check $tmp/adv.py" >/dev/null 2>&1
parse=$(mean "$tmp/h.json" 0)
adv=$(mean "$tmp/h.json" 1)
verdict=$("$ACS" check --json "$tmp/adv.py" 2>/dev/null | "$PY" -I -S -c 'import json, sys
s = json.load(sys.stdin)["scan"]
rules = sorted({f["rule"] for f in s["findings"]})
print("%s, %d findings (%s)" % (s["verdict"], len(s["findings"]), ", ".join(rules)))')
echo "adversarial 1 MB check:   $adv ms wall, $(cpu "$tmp/h.json" 1) ms CPU (goal < 2000 ms): $verdict"
echo "                          python3 parsing it alone: $parse ms wall, $(cpu "$tmp/h.json" 0) ms CPU; check/parse = $(ratio "$adv" "$parse")x"
