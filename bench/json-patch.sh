#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# What --json costs a run that changes files: the report carries the patch.
#   bench/json-patch.sh [N]   (run from the build tree, or set ACS_BUILDDIR)
# A workspace of 20 files; the program modifies two, adds two (one binary)
# and deletes one. The same run with and without --json, interleaved N times
# (default 40) so that drift on a shared machine affects both alike; medians
# in ms and their ratio (goal: <= 1.10).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
: "${ACS_SRCDIR:=$(dirname "$here")}"
: "${ACS_BUILDDIR:=$(pwd)}"
[ -x "$ACS_BUILDDIR/acs-launch" ] || ACS_BUILDDIR=$ACS_SRCDIR
: "${ACS_PROFILE_PATH:=$ACS_SRCDIR/profiles}"
export ACS_PROFILE_PATH
W=$(mktemp -d /tmp/acs-bench-json.XXXXXX)
trap 'rm -rf "$W"' EXIT
exec python3 - "$ACS_BUILDDIR/acs-launch" "$W" "${1:-40}" <<'PY'
import json, os, statistics, subprocess, sys, time
acs, ws, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(20):
    with open(os.path.join(ws, "f%02d.txt" % i), "w") as f:
        f.write("".join("line %d of file %d\n" % (k, i) for k in range(200)))
code = ("import os\n"
        "for name in ('f01.txt', 'f07.txt'):\n"
        "    s = open(name).read().replace('line 100 ', 'LINE 100 ')\n"
        "    open(name, 'w').write(s + 'tail\\n')\n"
        "open('new.txt', 'w').write('new file\\n' * 10)\n"
        "open('blob.bin', 'wb').write(bytes(range(256)) * 16)\n"
        "os.remove('f03.txt')\n")
base = [acs, "--profile", "unsafe-python", "-w", ws, "-c", code]
def once(extra):
    t0 = time.perf_counter()
    p = subprocess.run(base[:1] + extra + base[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    dt = (time.perf_counter() - t0) * 1000
    if p.returncode != 0:
        sys.exit("acs-launch failed (%d)" % p.returncode)
    return dt, p.stdout
_, out = once(["--json"])
files = json.loads(out)["files"]
assert "diff --git a/blob.bin" in files.get("patch", ""), "the report has no patch"
for _ in range(3):
    once([]), once(["--json"])
plain, js = [], []
for _ in range(n):
    plain.append(once([])[0])
    js.append(once(["--json"])[0])
mp, mj = statistics.median(plain), statistics.median(js)
print("runs: %d each, interleaved; load average %.2f" % (n, os.getloadavg()[0]))
print("without --json: median %7.2f ms  min %7.2f ms" % (mp, min(plain)))
print("with --json:    median %7.2f ms  min %7.2f ms  (patch %d bytes)" % (mj, min(js), len(files["patch"])))
print("ratio (--json / plain): %.3f" % (mj / mp))
PY
