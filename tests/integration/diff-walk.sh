#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The diff's bounded walk (diff.h, "Bounds") on real overlays: directories
# bigger than the 4 MiB name budget are read in several sorted batches, a
# parent's batch evicted for a big child is read again, and a walk deeper than
# the 16 open directories re-opens its ancestors - on both layers - and still
# lists every change once, parents first, names sorted bytewise, exactly as an
# independent walk of the merged view says.
. "$ACS_SRCDIR/tests/lib.sh"
. "$ACS_SRCDIR/tests/integration/diff-lib.sh"

# the system's python, not a shim on PATH (pyenv's costs seconds per start)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

if ! overlay_works; then
        skip "no unprivileged overlayfs with userxattr here (or diff-tool not built)"
        tap_plan
        exit 0
fi

# expected LIST ROOT [SUBDIR]: the paths a pre-order walk of ROOT/SUBDIR gives
# (parents first, names sorted bytewise), relative to ROOT
cat >"$TMP/expect.py" <<'EOF'
import os, sys
root, sub = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2]) if len(sys.argv) > 2 else b""
def walk(rel):
    for name in sorted(os.listdir(os.path.join(root, rel) if rel else root)):
        p = rel + b"/" + name if rel else name
        print(os.fsdecode(p))
        if os.path.isdir(os.path.join(root, p)) and not os.path.islink(os.path.join(root, p)):
            walk(p)
if sub:
    print(os.fsdecode(sub))
    walk(sub)
else:
    walk(b"")
EOF
# listed LIST: the paths of one list of $C/changes.json, in report order
listed() {
        "$PY" -c 'import json, sys
for e in json.load(open(sys.argv[1]))[sys.argv[2]]: print(e["path"])' "$C/changes.json" "$1"
}
same_list() { # DESC GOT-FILE WANT-FILE
        if cmp -s "$2" "$3"; then ok "$1 ($(wc -l <"$3" | tr -d ' ') entries)"; else
                fail "$1"
                diag "$(diff "$2" "$3" | head -n 8)"
        fi
}

# The walk holds at most 4 MiB of names; with --name-budget 32768 a directory
# of 1,500 100-byte names (~190 KB) takes many batches, as 40,000 would.
BUDGET="--name-budget 32768"
quick_collect() { "$DIFF_TOOL" collect "$C/upper" "$C/lower" $BUDGET >"$C/changes.json"; }
# in_overlay without the manifests (the lists are checked against a walk here)
overlay_run() {
        unshare -Urm sh -c '
                mount -t overlay overlay -o userxattr,lowerdir="$1/lower",upperdir="$1/upper",workdir="$1/work" "$1/merged" || exit 99
                cd "$1/merged" && eval "$2"' sh "$C" "$1" || fail "overlay_run: the script failed"
}

# --- a directory bigger than the name budget: added and deleted ---------------
case_begin wide
"$PY" -c '
import os, sys
d = sys.argv[1] + "/old"
os.mkdir(d)
for i in range(1500):
    open("%s/%s%06d" % (d, "o" * 94, (i * 7919) % 1500), "w").close()' "$C/lower"
overlay_run 'rm -rf old; mkdir new; /usr/bin/python3 -c "
import os
for i in range(1500):
    open(\"new/%s%06d\" % (\"n\" * 94, (i * 104729) % 1500), \"w\").close()"'
quick_collect
listed added >"$TMP/got.added"
"$PY" "$TMP/expect.py" "$C/upper" new >"$TMP/want.added"
same_list "a directory bigger than the name budget: every added name once, sorted" "$TMP/got.added" "$TMP/want.added"
listed deleted >"$TMP/got.deleted"
"$PY" "$TMP/expect.py" "$C/lower" old >"$TMP/want.deleted"
same_list "a removed directory bigger than the name budget: every deletion once, sorted" "$TMP/got.deleted" "$TMP/want.deleted"

# --- a big child inside a big parent: the parent's batch is read again ----------
case_begin evict
overlay_run 'mkdir p && /usr/bin/python3 -c "
import os
for i in range(400):
    open(\"p/a%s%06d\" % (\"x\" * 93, i), \"w\").close()
    open(\"p/z%s%06d\" % (\"x\" * 93, i), \"w\").close()
for m in (\"m1\", \"m2\"):
    os.mkdir(\"p/\" + m)
    for i in range(600):
        open(\"p/%s/%s%06d\" % (m, \"y\" * 94, i), \"w\").close()"'
quick_collect
listed added >"$TMP/got.added"
"$PY" "$TMP/expect.py" "$C/upper" p >"$TMP/want.added"
same_list "a big parent around big children: the walk resumes the parent where it left" "$TMP/got.added" "$TMP/want.added"

# --- 60 levels, a file before and after each subdirectory: ancestors re-opened --
case_begin deep
"$PY" -c '
import os, sys
d = sys.argv[1] + "/t"
for i in range(60):
    os.makedirs(d + "/m")
    for n in ("a", "z"):
        open(d + "/" + n, "w").write("lower %d\n" % i)
    d += "/m"' "$C/lower"
in_overlay '/usr/bin/python3 -c "
import os
d = \"t\"
for i in range(60):
    open(d + \"/a\", \"a\").write(\"more\\n\")
    open(d + \"/b\", \"w\").write(\"new\\n\")
    os.unlink(d + \"/z\")
    d += \"/m\"
d = \"t\" + \"/m\" * 40
os.system(\"rm -rf \" + d)
os.makedirs(d + \"/again\")"'
collect
listed modified >"$TMP/got.modified"
"$PY" "$TMP/expect.py" "$C/lower" t | grep '/a$\|^t/a$' | awk -F/ 'NF <= 41' >"$TMP/want.modified"
same_list "60 levels deep: every modified file once, in walk order" "$TMP/got.modified" "$TMP/want.modified"
listed added >"$TMP/got.added"
"$PY" "$TMP/expect.py" "$C/upper" t | grep -v '/a$\|^t/a$\|^t$' | while read -r p; do
        [ -e "$C/lower/$p" ] || printf '%s\n' "$p"
done >"$TMP/want.added"
same_list "60 levels deep: every added entry once, in walk order" "$TMP/got.added" "$TMP/want.added"
listed deleted >"$TMP/got.deleted"
# deleted: z at levels 0..39, then the whole removed subtree below level 40
"$PY" "$TMP/expect.py" "$C/lower" t | "$PY" -c '
import sys
for p in sys.stdin.read().split("\n")[:-1]:
    depth = p.count("/m")
    if p.endswith("/z") and depth < 40: print(p)
    elif depth >= 40 and p != "t" + "/m" * 40 and not p.startswith("t" + "/m" * 40 + "/again"):
        print(p)' >"$TMP/want.deleted"
same_list "60 levels deep: deletions below a removed level, on the lower layer too" "$TMP/got.deleted" "$TMP/want.deleted"
is "$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1])).get("truncated", False))' "$C/changes.json")" False \
        "60 levels deep: nothing left out"
git_apply_matches deep
acs_apply_matches deep

tap_plan
