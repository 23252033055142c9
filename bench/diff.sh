#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Workspace diff cost: acs_diff_collect on an overlay upper layer vs
# `git status` on the same tree, in the same run.
#   bench/diff.sh [BUILDDIR]
# Builds a workspace of FILES files (default 10000: 100 dirs x 100), lets a
# "sandbox" (unshare + overlayfs with userxattr, as the engine mounts it)
# change CHANGES of them (default 10: 4 modified, 3 added, 2 deleted, 1 chmod),
# then times:
#   - the diff in process (diff-tool bench: median of 200 collects; the first
#     one also pays first-use page faults),
#   - the diff with the patch (made in process),
#   - the whole diff-tool process (hyperfine), for scale,
#   - `git status --porcelain` on a git checkout of the same tree with the
#     same changes (hyperfine).
# Then repeats with 10x the tree and 10x the changes, to show what the cost
# follows. Goal: <= 5 ms for 10 changes in 10,000 files, flat in tree size.
set -eu
B=${1:-$(cd "$(dirname "$0")/.." && pwd)}
TOOL=$B/tests/unit/diff-tool
[ -x "$TOOL" ] || { echo "build first: make tests/unit/diff-tool" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "needs hyperfine" >&2; exit 1; }
W=$(mktemp -d /tmp/acs-bench-diff.XXXXXX)
# overlayfs leaves work/work with mode 000: make it removable first
trap 'chmod -R u+rwx "$W" 2>/dev/null; rm -rf "$W"' EXIT

make_tree() { # DIR NDIRS NFILES
        python3 - "$@" <<'PY'
import os, sys
top, nd, nf = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for d in range(nd):
    p = os.path.join(top, "dir%03d" % d)
    os.makedirs(p)
    for f in range(nf):
        with open(os.path.join(p, "file%03d.txt" % f), "w") as fh:
            fh.write("line %d %d\n" % (d, f) * 20)
PY
}

# changes N: a shell script making N changes (N multiple of 10) in the cwd
changes() {
        i=0
        while [ "$i" -lt "$(($1 / 10))" ]; do
                d=$(printf dir%03d "$i")
                echo "echo more >> $d/file000.txt; echo more >> $d/file001.txt; echo more >> $d/file002.txt;"
                echo "echo more >> $d/file003.txt; echo new > $d/new0.txt; echo new > $d/new1.txt; mkdir $d/newdir;"
                echo "rm $d/file004.txt $d/file005.txt; chmod 755 $d/file006.txt;"
                i=$((i + 1))
        done
}

run_case() { # NAME NDIRS NFILES NCHANGES
        C=$W/$1
        mkdir -p "$C/lower" "$C/upper" "$C/work" "$C/merged" "$C/git"
        make_tree "$C/lower" "$2" "$3"
        cp -a "$C/lower/." "$C/git/"
        script=$(changes "$4")
        (cd "$C/git" && git init -q && git add -A && git -c user.name=b -c user.email=b@b commit -qm base && eval "$script" && git status --porcelain >/dev/null)
        unshare -Urm sh -c 'mount -t overlay overlay -o userxattr,lowerdir="$1/lower",upperdir="$1/upper",workdir="$1/work" "$1/merged" && cd "$1/merged" && eval "$2"' sh "$C" "$script"
        files=$(($2 * $3))
        echo "== $files files, $4 changes =="
        printf '  diff in process:            '; "$TOOL" bench "$C/upper" "$C/lower" 200
        printf '  diff + patch in process:    '; "$TOOL" bench "$C/upper" "$C/lower" 50 --patch
        hyperfine -N -w 5 -r 50 --style none --export-json "$C/h.json" \
                "$TOOL collect $C/upper $C/lower" "git -C $C/git status --porcelain" >/dev/null 2>&1
        python3 - "$C/h.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    name = "diff-tool process (exec+hash)" if "diff-tool" in r["command"] else "git status --porcelain"
    print("  %-28s median %.3f ms (mean %.3f +- %.3f)" % (name + ":", r["median"] * 1e3, r["mean"] * 1e3, r["stddev"] * 1e3))
PY
}

run_case small 100 100 10
run_case bigtree 1000 100 10
run_case manychanges 100 100 100
