#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attack suite: kept layers (--keep DIR, `acs-launch apply DIR`). --keep
# creates its directory itself (0700); apply refuses a directory that is not
# the caller's or that others can write at any level, applies exactly what was
# kept (every file and the patch against the manifest's hashes, the manifest
# against the patch) or nothing, and never waits on a FIFO.
. "$ACS_SRCDIR/tests/security/sec-lib.sh"

# $TMP stays 0755: a kept layer below a directory others can write is refused
WS=$TMP/ws
mkdir -p "$WS"
echo a >"$WS/a.txt"
chmod -R a+rwX "$WS"
is_root && chown -R 65534:65534 "$WS"
# P: a private parent for the keep directories (others may not write it)
P=$TMP/private
mkdir -m 0700 "$P"

RUN_CODE="
open('/workspace/a.txt', 'a').write('more\n')
open('/workspace/one.txt', 'w').write('one\n')
open('/workspace/two.txt', 'w').write('two\n')
print('END')
"
# keep_run DIR: a run whose upper layer is kept in DIR
keep_run() {
        "$ACS" --profile unsafe-python -w "$WS" --keep "$1" -q -c "$RUN_CODE" >"$TMP/keep.out" 2>"$TMP/keep.err" </dev/null
}
# keep_apply DIR WS: acs-launch apply; sets RC, ERR
keep_apply() {
        timeout 20 "$ACS" apply "$1" --workspace "$2" >"$TMP/apply.out" 2>"$TMP/apply.err" </dev/null
        RC=$?
        ERR=$(cat "$TMP/apply.err")
}
# Host copies of the workspace made before the runs (a copy made after a run
# would be newer than the run's start: a conflict). fresh_ws N: use copy N.
for n in 0 1 2 3 4 5 6 7 8 9 10 11 12; do cp -a "$WS" "$TMP/h$n"; done
_h=0
fresh_ws() { rm -rf "$TMP/host" && mv "$TMP/h$_h" "$TMP/host" && _h=$((_h + 1)); }

# --- control: a kept layer applies ----------------------------------------------
keep_run "$P/k0"
RC=$?
OUT=$(cat "$TMP/keep.out")
ERR=$(cat "$TMP/keep.err")
reached "--keep control run"
is "$(stat -c %a "$P/k0")" 700 "--keep creates its directory with mode 0700"
is "$(stat -c %a "$P/k0/acs-keep.json" "$P/k0/changes.patch" "$P/k0/tree" | tr '\n' ' ')" "600 600 700 " \
        "--keep: manifest and patch 0600, tree/ 0700 (acs-launch(1), KEPT LAYERS)"
fresh_ws
keep_apply "$P/k0" "$TMP/host"
is "$RC" 0 "control: an untouched kept layer applies"
is "$(cat "$TMP/host/two.txt" 2>/dev/null)" two "control: its files reach the workspace"

# --- --keep refuses a directory it did not create ------------------------------------
mkdir -m 0777 "$TMP/pre"
keep_run "$TMP/pre"
is "$?" 125 "--keep refuses an existing (empty, 0777) directory"
contains "$(cat "$TMP/keep.err")" "$TMP/pre" "--keep: the refusal names the directory"
check "--keep wrote nothing into a directory it did not create" test ! -e "$TMP/pre/acs-keep.json"
if is_root; then
        mkdir -m 1777 "$TMP/shared"
        setpriv --reuid=65534 --regid=65534 --clear-groups mkdir -m 0777 "$TMP/shared/other"
        keep_run "$TMP/shared/other"
        is "$?" 125 "run by root: --keep refuses a directory another user created"
        check "run by root: nothing kept in the other user's directory" test ! -e "$TMP/shared/other/acs-keep.json"
fi
ln -s "$P" "$TMP/klink"
keep_run "$TMP/klink"
is "$?" 125 "--keep refuses a symlink"
contains "$(cat "$TMP/keep.err")" "cannot create $TMP/klink: it exists" "--keep: the refusal names the symlink"

# --- a refused --keep costs no run: checked before the sandbox exists ----------------
"$ACS" --keep "$TMP/pre" -c 'print("RAN")' >"$TMP/keep.out" 2>"$TMP/keep.err" </dev/null
is "$?" 125 "--keep to an existing directory: refused"
is "$(cat "$TMP/keep.out")" "" "--keep to an existing directory: refused before the program ran"
"$ACS" --keep "$TMP/no/such/k" -c 'print("RAN")' >"$TMP/keep.out" 2>"$TMP/keep.err" </dev/null
is "$?" 125 "--keep below a missing directory: refused"
is "$(cat "$TMP/keep.out")" "" "--keep below a missing directory: refused before the program ran"
contains "$(cat "$TMP/keep.err")" "its directory $TMP/no/such" "--keep below a missing directory: the message names it"

# --- apply refuses a keep directory others can write, or another user's -------------
keep_run "$P/k1"
cp -a "$P/k1" "$P/k1copy"
chmod 0777 "$P/k1"
fresh_ws
keep_apply "$P/k1" "$TMP/host"
is "$RC" 125 "apply refuses a keep directory writable by others (0777)"
check "apply: nothing applied from a writable keep directory" test ! -e "$TMP/host/one.txt"
contains "$ERR" "$P/k1" "apply: the refusal names the directory"
mkdir -m 0777 "$TMP/open"
cp -a "$P/k1copy" "$TMP/open/k2"
fresh_ws
keep_apply "$TMP/open/k2" "$TMP/host"
is "$RC" 125 "apply refuses a keep directory whose parent others can write (0777, not sticky)"
check "apply: nothing applied below a writable parent" test ! -e "$TMP/host/one.txt"
chmod 0700 "$P/k1"
chmod 0666 "$P/k1/tree/one.txt"
fresh_ws
keep_apply "$P/k1" "$TMP/host"
is "$RC" 125 "apply refuses a kept file writable by others"
chmod 0600 "$P/k1/tree/one.txt"
if is_root; then
        cp -a "$P/k1copy" "$P/k3"
        chown -R 65534:65534 "$P/k3"
        fresh_ws
        keep_apply "$P/k3" "$TMP/host"
        is "$RC" 125 "run by root: apply refuses a keep directory that belongs to another user"
        check "run by root: nothing applied from another user's keep directory" test ! -e "$TMP/host/one.txt"
fi

# --- a tampered keep directory is not applied, not even in part ----------------------
# tamper NAME: a fresh copy of the kept layer in $P/NAME to tamper with
tamper() { rm -rf "${P:?}/$1" && cp -a "$P/k1copy" "$P/$1"; }
tamper t1
echo evil >"$P/t1/tree/one.txt"
fresh_ws
keep_apply "$P/t1" "$TMP/host"
is "$RC" 125 "tampered tree file: apply refuses"
check "tampered tree file: not even the untouched files are applied" test ! -e "$TMP/host/two.txt"
contains "$ERR" "one.txt" "tampered tree file: named"

tamper t2
echo evil >"$P/t2/tree/extra.txt"
fresh_ws
keep_apply "$P/t2" "$TMP/host"
is "$RC" 125 "a file added to tree/: apply refuses"
check "a file added to tree/: nothing applied" test ! -e "$TMP/host/two.txt" -a ! -e "$TMP/host/extra.txt"

tamper t3
sed -i 's/^+two$/+TWO/' "$P/t3/changes.patch"
fresh_ws
keep_apply "$P/t3" "$TMP/host"
is "$RC" 125 "an edited changes.patch: apply refuses"
check "an edited changes.patch: nothing applied" test ! -e "$TMP/host/two.txt"

tamper t4
# a new entry in the manifest and its file in tree/, consistent hashes: the
# patch (what a human reviews) does not show it
printf 'evil\n' >"$P/t4/tree/evil.txt"
python3 - "$P/t4/acs-keep.json" <<'PY'
import hashlib, json, sys
m = json.load(open(sys.argv[1]))
e = dict(m["files"]["added"][0])
e.update(path="evil.txt", type="file", size=5, mode="0755", sha256=hashlib.sha256(b"evil\n").hexdigest())
m["files"]["added"].append(e)
json.dump(m, open(sys.argv[1], "w"))
PY
fresh_ws
keep_apply "$P/t4" "$TMP/host"
is "$RC" 125 "a manifest entry the patch does not show: apply refuses"
check "a manifest entry the patch does not show: nothing applied" test ! -e "$TMP/host/evil.txt" -a ! -e "$TMP/host/two.txt"

tamper t5
python3 - "$P/t5/acs-keep.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["run_start"] = {"sec": 0, "nsec": 0}
json.dump(m, open(sys.argv[1], "w"))
PY
fresh_ws
# the host rewrites a.txt with the same content after the run started: only
# the ctime against run_start shows it
cp -p "$TMP/host/a.txt" "$TMP/host/a.tmp" && mv "$TMP/host/a.tmp" "$TMP/host/a.txt"
keep_apply "$P/t5" "$TMP/host"
is "$(cat "$TMP/host/a.txt")" "a" "run_start 0 in the manifest does not turn conflict detection off"
is "$RC" 125 "run_start 0 in the manifest: apply refuses"
diag "run_start 0: $ERR"

# --- a FIFO manifest is an error, not a hang ------------------------------------------
tamper t6
rm -f "$P/t6/acs-keep.json"
mkfifo -m 0600 "$P/t6/acs-keep.json"
t0=$(date +%s)
keep_apply "$P/t6" "$TMP/host"
t1=$(date +%s)
is "$RC" 125 "a FIFO as manifest: error (125)"
check "a FIFO as manifest: no hang ($((t1 - t0)) s)" test $((t1 - t0)) -lt 5
contains "$ERR" "acs-keep.json" "a FIFO as manifest: the error names the manifest"

tap_plan
