# SPDX-License-Identifier: LGPL-2.1-or-later
# Helpers for the diff tests: real overlays built with unshare (no sandbox),
# the diff-tool test driver, tree manifests. Source after tests/lib.sh.

MANIFEST=$ACS_SRCDIR/tests/integration/diff-manifest.py
DIFF_TOOL=
for _t in "$ACS_BUILDDIR/tests/unit/diff-tool" "$ACS_SRCDIR/tests/unit/diff-tool"; do
        [ -x "$_t" ] && DIFF_TOOL=$_t && break
done

# Can this user build an overlay with userxattr here? (needs unprivileged
# user namespaces and user xattrs on $TMP)
overlay_works() {
        [ -n "$DIFF_TOOL" ] || return 1
        mkdir -p "$TMP/.probe/l" "$TMP/.probe/u" "$TMP/.probe/w" "$TMP/.probe/m"
        unshare -Urm sh -c 'mount -t overlay overlay -o userxattr,lowerdir="$1/l",upperdir="$1/u",workdir="$1/w" "$1/m"' \
                sh "$TMP/.probe" 2>/dev/null
}

# case_begin NAME: fresh layers in $C; populate "$C/lower" next.
case_begin() {
        C=$TMP/$1
        rm -rf "$C"
        mkdir -p "$C/lower" "$C/upper" "$C/work" "$C/merged"
}

# in_overlay SCRIPT: run SCRIPT (sh) in the merged view, as the sandbox would,
# then record the merged view's manifests ($C/merged.git, $C/merged.full).
in_overlay() {
        python3 "$MANIFEST" full "$C/lower" >"$C/lower.before"
        unshare -Urm sh -c '
                mount -t overlay overlay -o userxattr,lowerdir="$1/lower",upperdir="$1/upper",workdir="$1/work" "$1/merged" || exit 99
                cd "$1/merged" || exit 99
                ( eval "$2" ) || echo "in_overlay: script failed" >&2
                cd /
                python3 "$3" git "$1/merged" >"$1/merged.git"
                python3 "$3" full "$1/merged" >"$1/merged.full"' sh "$C" "$1" "$MANIFEST"
}

# collect [OPTS]: changes JSON in $C/changes.json, patch in $C/changes.patch
collect() {
        "$DIFF_TOOL" collect "$C/upper" "$C/lower" --patch "$C/changes.patch" "$@" >"$C/changes.json"
        python3 "$MANIFEST" flatten "$C/changes.json" >"$C/changes.flat"
}

# field LIST PATH FIELD: a field of one entry ("absent" when no such entry,
# "null" when the entry lacks the field); a newline in PATH is written \n
field() {
        L=$1 P=$2 F=$3 awk -F '	' '
                $1 == ENVIRON["L"] && $2 == ENVIRON["P"] { seen = 1; if ($3 == ENVIRON["F"]) { print $4; found = 1 } }
                END { if (!seen) print "absent"; else if (!found) print "null" }' "$C/changes.flat"
}
count() { awk -F '	' -v l="$1" '$1 == l && $3 == "path"' "$C/changes.flat" | wc -l | tr -d ' '; }

# git_apply_matches DESC: git apply of the patch onto a copy of the lower
# layer gives the merged view (what git can express)
git_apply_matches() {
        rm -rf "$C/gitapplied"
        cp -a "$C/lower" "$C/gitapplied"
        if ! (cd "$C/gitapplied" && git apply --whitespace=nowarn "$C/changes.patch") 2>"$C/git.err"; then
                fail "$1: git apply failed"
                diag "$(cat "$C/git.err")"
                return
        fi
        python3 "$MANIFEST" git "$C/gitapplied" >"$C/gitapplied.git"
        if cmp -s "$C/gitapplied.git" "$C/merged.git"; then ok "$1: git apply reproduces the merged view"; else
                fail "$1: git apply reproduces the merged view"
                diag "$(diff "$C/gitapplied.git" "$C/merged.git")"
        fi
}

# acs_apply_matches DESC: acs_apply_changes onto a copy of the lower layer
# gives the merged view (dirs too), but for what apply never writes: special
# files, symlinks leading out, modes wider than the host's or the defaults
# (diff-manifest.py expect)
acs_apply_matches() {
        _desc=$1
        shift
        rm -rf "$C/host"
        cp -a "$C/lower" "$C/host"
        "$DIFF_TOOL" apply "$C/upper" "$C/host" "$@" >"$C/apply.json" 2>"$C/apply.err"
        python3 "$MANIFEST" full "$C/host" >"$C/host.full"
        python3 "$MANIFEST" expect "$C/lower.before" "$C/merged.full" "$(umask)" >"$C/merged.expect"
        if cmp -s "$C/host.full" "$C/merged.expect"; then ok "$_desc: apply reproduces the merged view"; else
                fail "$_desc: apply reproduces the merged view"
                diag "$(diff "$C/host.full" "$C/merged.expect"; cat "$C/apply.err")"
        fi
}

# host_untouched DESC: the lower layer is exactly as before the run
host_untouched() {
        python3 "$MANIFEST" full "$C/lower" >"$C/lower.after"
        if cmp -s "$C/lower.before" "$C/lower.after"; then ok "$1: host workspace untouched"; else
                fail "$1: host workspace untouched"
                diag "$(diff "$C/lower.before" "$C/lower.after")"
        fi
}
