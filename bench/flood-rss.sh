#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Launcher memory for a 1 GiB output flood versus a quiet run (issue 5).
# Two figures per case:
#   time %M   max RSS from /usr/bin/time -f %M: the launcher, or a reaped
#             child if larger (wait4's ru_maxrss covers both);
#   VmHWM     the launcher process alone, sampled from /proc/PID/status.
# Goal: under 20 MB, within a few MB of quiet.
#   bench/flood-rss.sh [path/to/acs-launch]      (GIB=N floods N GiB, default 1)
set -eu
ACS=${1:-$(dirname "$0")/../acs-launch}
ACS=$(readlink -f "$ACS")
export ACS_PROFILE_PATH=${ACS_PROFILE_PATH:-$(dirname "$0")/../profiles}
GIB=${GIB:-1}
d=$(mktemp -d /tmp/acs-bench.XXXXXX)
trap 'rm -rf "$d"' EXIT
chmod 755 "$d"
cat >"$d/flood.py" <<PY
import sys
b = "y" * 65535 + "\n"
w = sys.stdout.write
for _ in range(16384 * $GIB): w(b)
PY
echo 'pass' >"$d/quiet.py"

# time_rss ARGS...: KiB from /usr/bin/time
time_rss() {
        /usr/bin/time -f %M -o "$d/t" "$ACS" "$@" >/dev/null 2>&1 </dev/null || true
        tail -n 1 "$d/t"
}
# hwm_rss ARGS...: peak VmHWM of the launcher process itself, KiB
hwm_rss() {
        "$ACS" "$@" >/dev/null 2>&1 </dev/null &
        pid=$!
        peak=0
        while [ -r /proc/$pid/status ]; do
                v=$(awk '/^VmHWM:/ { print $2 }' /proc/$pid/status 2>/dev/null || true)
                [ -n "$v" ] && [ "$v" -gt "$peak" ] && peak=$v
                [ "$(awk '/^State:/ { print $2 }' /proc/$pid/status 2>/dev/null)" = Z ] && break
                sleep 0.02
        done
        wait $pid || true
        echo "$peak"
}

O="--profile unsafe-python --timeout 600 --max-tokens 1000"
printf '%-28s %10s %10s %8s\n' case "time %M" VmHWM seconds
for mode in json stream; do
        if [ $mode = json ]; then M=--json; else M=; fi
        for case in quiet flood; do
                s0=$(date +%s.%N)
                t=$(time_rss $O $M -- "$d/$case.py")
                s1=$(date +%s.%N)
                h=$(hwm_rss $O $M -- "$d/$case.py")
                eval "${mode}_${case}_t=$t ${mode}_${case}_h=$h"
                printf '%-28s %7s KiB %6s KiB %8.2f\n' "$case ($mode)" "$t" "$h" \
                        "$(awk "BEGIN { print $s1 - $s0 }")"
        done
done
echo
for mode in json stream; do
        eval "qt=\$${mode}_quiet_t fl=\$${mode}_flood_t qh=\$${mode}_quiet_h fh=\$${mode}_flood_h"
        printf '%s: flood - quiet = %d KiB (time %%M), %d KiB (launcher VmHWM)\n' "$mode" \
                $((fl - qt)) $((fh - qh))
done
