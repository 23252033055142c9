#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# One-shot start-up of hello.py: bare python3 -I -S, acs-launch (scan off and
# on), unshare -Urmnpfiu and bwrap --unshare-all with the same root, in ONE
# hyperfine run, as ratios to bare python and milliseconds over it (absolute
# times drift on shared machines; machines differ 2.5x in speed, so a ratio
# alone misleads).
#   bench/startup.sh [path/to/acs-launch [path/to/another/acs-launch]]
# With a second launcher (e.g. a tree built with --disable-static-launcher)
# both are measured in the same run.
set -eu
ACS=${1:-$(dirname "$0")/../acs-launch}
ACS=$(readlink -f "$ACS")
OTHER=${2:+$(readlink -f "$2")}
PY=/usr/bin/python3
d=$(mktemp -d /tmp/acs-bench.XXXXXX)
trap 'rm -rf "$d"' EXIT
chmod 755 "$d"
echo 'print("hello")' >"$d/hello.py"
export ACS_PROFILE_PATH=${ACS_PROFILE_PATH:-$(dirname "$0")/../profiles}
hyperfine -N -w 5 -r "${RUNS:-50}" --export-json "$d/h.json" \
        -n bare "$PY -I -S $d/hello.py" \
        -n acs-unsafe "$ACS --profile unsafe-python -q -- $d/hello.py" \
        -n acs-scan "$ACS --profile pure-math -q -- $d/hello.py" \
        ${OTHER:+-n other-unsafe "$OTHER --profile unsafe-python -q -- $d/hello.py"} \
        ${OTHER:+-n other-scan "$OTHER --profile pure-math -q -- $d/hello.py"} \
        -n unshare "unshare -Urmnpfiu --mount-proc $PY -I -S $d/hello.py" \
        -n bwrap "bwrap --unshare-all --die-with-parent --ro-bind /usr /usr --symlink usr/lib /lib --symlink usr/lib64 /lib64 --symlink usr/bin /bin --proc /proc --dev /dev --tmpfs /tmp --ro-bind $d $d $PY -I -S $d/hello.py" \
        >/dev/null
$PY - "$d/h.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
base = r["bare"]["median"]
for name, x in r.items():
    print(f"{name:12s} median {x['median']*1e3:7.2f} ms   {x['median']/base:5.2f}x bare python"
          f"   {(x['median'] - base)*1e3:+6.2f} ms")
PY
