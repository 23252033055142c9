#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Applying a run's changes: protected globs, conflicts, escapes through
# symlinks and "..", kept layers (--keep DIR, `acs-launch apply DIR`).
. "$ACS_SRCDIR/tests/lib.sh"
. "$ACS_SRCDIR/tests/integration/diff-lib.sh"

if ! overlay_works; then
        skip "no unprivileged overlayfs with userxattr here (or diff-tool not built)"
        tap_plan
        exit 0
fi

fresh_host() { rm -rf "$C/host" && cp -a "$C/lower" "$C/host"; }
apply_to_host() { "$DIFF_TOOL" apply "$C/upper" "$C/lower" --into "$C/host" "$@" >"$C/apply.json" 2>"$C/apply.err"; }
jnum() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$C/apply.json" "$1"; }

# --- protected globs --------------------------------------------------------
case_begin protect
mkdir -p "$C/lower/.git/hooks" "$C/lower/sub" "$C/lower/conf"
echo orig >"$C/lower/.bashrc"
echo K=v >"$C/lower/conf/.env"
in_overlay 'echo evil > .git/hooks/pre-commit; echo K=v > .env; echo K=v > sub/.env; echo x >> .bashrc; echo fine > ok.txt; mkdir secret; echo s > secret/inner; rm -rf conf'
set -- --protect '.git/hooks/**' --protect '**/.env' --protect .bashrc --protect secret
collect "$@"
is "$(field added .git/hooks/pre-commit protected)" true "protect: new hook flagged"
is "$(field added sub/.env protected)" true "protect: **/.env flags sub/.env"
is "$(field modified .bashrc protected)" true "protect: modified file flagged"
is "$(field added secret/inner protected)" true "protect: a protected directory protects its content"
is "$(field added ok.txt protected)" null "protect: other files not flagged"
is "$(field deleted conf/.env protected)/$(field deleted conf protected)" true/true "protect: a removed directory holding a protected file is protected"
contains "$("$DIFF_TOOL" short "$C/upper" "$C/lower" "$@")" "A  .env (protected)" "protect: short status flags it"
fresh_host
apply_to_host "$@"
is "$(jnum protected)/$(jnum done)" "8/1" "protect: eight protected entries not applied, one applied"
check "protect: protected file in a removed directory kept" test -f "$C/host/conf/.env"
check "protect: hook not written" test ! -e "$C/host/.git/hooks/pre-commit"
check "protect: .env not written" test ! -e "$C/host/.env"
is "$(cat "$C/host/.bashrc")" orig "protect: .bashrc unchanged"
is "$(cat "$C/host/ok.txt")" fine "protect: unprotected file applied"

# --- conflicts ---------------------------------------------------------------
case_begin conflict
echo orig >"$C/lower/a.txt"
echo orig >"$C/lower/b.txt"
echo orig >"$C/lower/same.txt"
mkdir "$C/lower/dir"
in_overlay 'echo sandbox > a.txt; rm b.txt; echo sandbox > c.txt; echo sandbox > same.txt; rmdir dir'
collect
fresh_host
echo "host edit" >"$C/host/a.txt"
echo "host edit" >"$C/host/b.txt"
echo "host made" >"$C/host/c.txt"
echo "new" >"$C/host/dir/new"
apply_to_host
is "$(jnum conflicts)" 4 "conflict: four host changes detected"
is "$(cat "$C/host/a.txt")" "host edit" "conflict: modified file not overwritten"
is "$(cat "$C/host/b.txt")" "host edit" "conflict: changed file not deleted"
is "$(cat "$C/host/c.txt")" "host made" "conflict: file created on the host kept"
check "conflict: non-empty directory not removed" test -f "$C/host/dir/new"
is "$(cat "$C/host/same.txt")" sandbox "conflict: unchanged host file applied"
contains "$(cat "$C/apply.err")" "conflict: M a.txt" "conflict: reported by path"
# ctime after the run started, same content: still a conflict; an addition
# into a directory that changed after the run started too (the host may have
# deleted what it re-creates)
fresh_host
apply_to_host --run-start $(($(date +%s) - 3600))
is "$(jnum conflicts)" 4 "conflict: host files changed after the run start (ctime)"
contains "$(cat "$C/apply.err")" "conflict: A c.txt: its directory changed" "conflict: an addition into a changed directory"
is "$(cat "$C/host/a.txt")" orig "conflict: ctime conflict not overwritten"
fresh_host
apply_to_host --dry-run
is "$(jnum done)" 5 "dry run: everything would apply"
is "$(cat "$C/host/a.txt")" orig "dry run: nothing written"

# --- escapes -------------------------------------------------------------------
case_begin escape
mkdir -p "$C/lower/sub" "$TMP/outside"
echo orig >"$C/lower/sub/f"
in_overlay 'echo sandbox > sub/f; echo new > sub/new; ln -s /etc/passwd pw'
collect
fresh_host
rm -rf "$C/host/sub"
ln -s "$TMP/outside" "$C/host/sub"
apply_to_host
is "$(jnum unsafe)" 2 "escape: paths through a host symlink refused"
is "$(ls "$TMP/outside" | wc -l | tr -d ' ')" 0 "escape: nothing written outside the workspace"
check "escape: a symlink leading out is not written back" test ! -L "$C/host/pw"
contains "$(cat "$C/apply.err")" "skipped: A pw: an absolute symlink target leaves the workspace" "escape: it is reported skipped"

# --- ownership: run by root, applied entries take the workspace owner's ids -----
case_begin owner
echo a >"$C/lower/a.txt"
in_overlay 'echo b > a.txt; echo n > new.txt; mkdir nd; ln -s a.txt ln'
collect
fresh_host
if [ "$(id -u)" -eq 0 ]; then
        chown -R nobody:nogroup "$C/host"
        apply_to_host
        is "$(stat -c %U:%G "$C/host/a.txt" "$C/host/new.txt" "$C/host/nd" | sort -u | tr '\n' ' ')" \
                "nobody:nogroup " "owner: root applies as the workspace owner"
        is "$(stat -c %U "$C/host/ln")" nobody "owner: symlink owner too"
else
        apply_to_host
        is "$(stat -c %u "$C/host/new.txt")" "$(id -u)" "owner: unprivileged apply writes as the user"
        is "$(stat -c %u "$C/host/ln")" "$(id -u)" "owner: symlink owner too"
fi

# --- kept layers ------------------------------------------------------------------
case_begin keep
mkdir -p "$C/lower/tree/sub"
echo 1 >"$C/lower/tree/sub/one"
echo a >"$C/lower/a.txt"
echo gone >"$C/lower/gone.txt"
in_overlay 'echo b >> a.txt; rm gone.txt; rm -rf tree; echo new > new.txt; chmod 750 new.txt; ln -s a.txt link; mkdir -p d/e; mkfifo fifo'
# host copies made before the run's start (a copy made later is a conflict)
for n in 1 2 3; do cp -a "$C/lower" "$C/host$n"; done
sleep 1
"$DIFF_TOOL" keep "$C/upper" "$C/lower" "$C/kept" --run-start "$(date +%s)" || fail "keep: diff-tool keep failed"
check "keep: manifest written" test -f "$C/kept/acs-keep.json"
check "keep: patch written" test -f "$C/kept/changes.patch"
check "keep: files kept" test -f "$C/kept/tree/new.txt"
check "keep: no FIFO kept" test ! -e "$C/kept/tree/fifo"
check "keep: no whiteout kept" test ! -e "$C/kept/tree/gone.txt"
"$DIFF_TOOL" keep-apply "$C/kept" "$C/host1" --json >"$C/keep-apply.json" 2>"$C/keep-apply.err"
is "$?" 0 "keep: apply DIR --workspace W succeeds"
contains "$(cat "$C/keep-apply.json")" '"schema":"acs-apply/1"' "keep: --json result"
python3 "$MANIFEST" full "$C/host1" >"$C/host.full"
python3 "$MANIFEST" expect "$C/lower.before" "$C/merged.full" "$(umask)" >"$C/merged.expect"
if cmp -s "$C/host.full" "$C/merged.expect"; then ok "keep: applied kept layer reproduces the merged view"; else
        fail "keep: applied kept layer reproduces the merged view"
        diag "$(diff "$C/host.full" "$C/merged.expect"; cat "$C/keep-apply.err")"
fi
rm -rf "$C/gitapplied" && cp -a "$C/lower" "$C/gitapplied"
check "keep: kept patch applies with git apply" sh -c 'cd "$1" && git apply "$2"' sh "$C/gitapplied" "$C/kept/changes.patch"
# a second apply finds everything already done
"$DIFF_TOOL" keep-apply "$C/kept" "$C/host1" >/dev/null 2>&1
is "$?" 0 "keep: applying twice is harmless"
# tampered content is refused, the whole layer
cp -a "$C/kept" "$C/kept-t"
echo tampered >"$C/kept-t/tree/new.txt"
"$DIFF_TOOL" keep-apply "$C/kept-t" "$C/host2" >/dev/null 2>"$C/tamper.err"
is "$?" 125 "keep: a tampered kept file refuses the layer"
contains "$(cat "$C/tamper.err")" "tree/new.txt changed after the run" "keep: tampering reported"
check "keep: tampered file not written" test ! -e "$C/host2/new.txt"
check "keep: nor anything else" test ! -e "$C/host2/link"
# ".." and absolute paths in an edited manifest are refused
cp -a "$C/kept" "$C/kept-u"
python3 - "$C/kept-u/acs-keep.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for e in m["files"]["added"]:
    if e["path"] == "new.txt":
        e["path"] = "../escaped.txt"
    if e["path"] == "link":
        e["path"] = "/tmp/abs-link"
json.dump(m, open(sys.argv[1], "w"))
PY
"$DIFF_TOOL" keep-apply "$C/kept-u" "$C/host3" --json >"$C/esc.json" 2>"$C/esc.err"
is "$?" 125 "keep: unsafe paths refuse the layer"
contains "$(cat "$C/esc.err")" "unsafe path" "keep: the unsafe path is named"
check "keep: nothing escaped" test ! -e "$C/escaped.txt" -a ! -e /tmp/abs-link
check "keep: nothing applied" test ! -e "$C/host3/link"
"$DIFF_TOOL" keep-apply "$TMP/no-such-dir" "$C/host3" 2>"$C/missing.err"
is "$?" 125 "keep: a missing kept layer is a usage error (125)"
contains "$(cat "$C/missing.err")" "cannot open $TMP/no-such-dir: No such file" "keep: the missing directory is named"

tap_plan
