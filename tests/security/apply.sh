#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attack suite: the workspace (security-model.md: overlay with the host
# directory as a lower layer that is never written; --apply writes back only
# inside DIR, no escape through symlinks or .., no special files, atomic
# replacement, conflicts reported not overwritten).
. "$ACS_SRCDIR/tests/security/sec-lib.sh"

WS=$TMP/ws
mkdir -p "$WS/sub"
echo keep >"$WS/keep.txt"
echo old >"$WS/modify.txt"
echo bye >"$WS/delete.txt"
echo inner >"$WS/sub/inner.txt"
chmod -R a+rwX "$WS"
chmod 0777 "$TMP"
# Run by root, the sandbox takes the workspace owner's uid: give it the
# workspace, as a user would. (A root-owned workspace is tested below.)
if is_root; then
        chown -R 65534:65534 "$WS"
fi
fingerprint() { (cd "$1" && find . -printf '%p %y %m %s %l\n' | sort && find . -type f -exec md5sum {} + | sort); }
fingerprint "$WS" >"$TMP/ws.before"

# --- without --apply nothing reaches the host directory ----------------------
pyrun "
tryf('new', lambda: open('/workspace/new.txt', 'w').write('new'))
tryf('modify', lambda: open('/workspace/modify.txt', 'w').write('changed'))
tryf('delete', lambda: os.unlink('/workspace/delete.txt'))
tryf('rename', lambda: os.rename('/workspace/sub', '/workspace/sub2'))
tryf('chmod', lambda: os.chmod('/workspace/keep.txt', 0o777))
tryf('symlink', lambda: os.symlink('/etc/passwd', '/workspace/link'))
tryf('fifo', lambda: os.mkfifo('/workspace/fifo'))
print('END')
" -w "$WS"
reached "workspace writes without --apply"
diag "directory rename inside: $(field rename) (overlayfs without redirect_dir answers EXDEV)"
for k in new modify delete chmod symlink fifo; do
        expect_field $k "$(case $k in new) echo 3 ;; modify) echo 7 ;; *) echo OK ;; esac)" "control: inside, $k in /workspace works"
done
if is_root; then
        # A root-owned workspace is shown through an idmapped lower layer in
        # which uid/gid 0 are the sandbox's (acs-launch(1), THE WORKSPACE):
        # its files can be changed inside, never on the host.
        RWS=$TMP/rootws
        mkdir -p "$RWS"
        echo root >"$RWS/rootowned.txt"
        chmod 0644 "$RWS/rootowned.txt"
        fingerprint "$RWS" >"$TMP/rws.before"
        pyrun "
tryf('rootowned', lambda: open('/workspace/rootowned.txt', 'a').write('x'))
print('END')
" -w "$RWS"
        expect_field rootowned 1 "run by root: a root-owned workspace's files can be modified inside, as acs-launch(1) says"
        fingerprint "$RWS" >"$TMP/rws.after"
        if cmp -s "$TMP/rws.before" "$TMP/rws.after"; then ok "run by root: the root-owned workspace is unchanged on the host"; else
                fail "run by root: the root-owned workspace is unchanged on the host"
        fi
fi
fingerprint "$WS" >"$TMP/ws.after"
if cmp -s "$TMP/ws.before" "$TMP/ws.after"; then ok "without --apply the host directory is unchanged"; else
        fail "without --apply the host directory is unchanged"
        diag "$(diff "$TMP/ws.before" "$TMP/ws.after" | head -n 10)"
fi

# --- --apply: symlinks planted in the host directory are not followed ---------
echo orig >"$TMP/victim"
mkdir -p "$TMP/victimdir"
chmod 0666 "$TMP/victim"
chmod 0777 "$TMP/victimdir"
ln -s "$TMP/victim" "$WS/flink"
ln -s "$TMP/victimdir" "$WS/dlink"
md5_passwd=$(md5sum /etc/passwd)
pyrun "
# replace the planted symlinks by a file and a directory with content
os.unlink('/workspace/flink')
open('/workspace/flink', 'w').write('pwned-$MARK')
os.unlink('/workspace/dlink')
os.mkdir('/workspace/dlink')
open('/workspace/dlink/evil', 'w').write('pwned-$MARK')
# a symlink to a host file, then writes through it (inside: read-only or absent)
os.symlink('/etc/passwd', '/workspace/plink')
tryf('write_through_link', lambda: open('/workspace/plink', 'a').write('pwned::0:0::/:/bin/sh'))
os.symlink('$TMP/victim', '/workspace/vlink')
tryf('write_through_vlink', lambda: open('/workspace/vlink', 'w').write('pwned-$MARK'))
# special files and modes
os.mkfifo('/workspace/fifo')
import shutil
shutil.copy('/usr/bin/id', '/workspace/suid')
os.chmod('/workspace/suid', 0o6755)
open('/workspace/sgid_dir_file', 'w').write('x')
os.chmod('/workspace/sgid_dir_file', 0o2777)
print('END')
" -w "$WS" --apply
reached "symlink attacks with --apply"
diag "apply exit status $RC; stderr: $(printf %s "$ERR" | tail -n 3)"
is "$(cat "$TMP/victim")" orig "--apply does not write through a host symlink (file)"
test -e "$TMP/victimdir/evil" && fail "--apply does not write through a host symlink (directory)" ||
        ok "--apply does not write through a host symlink (directory)"
is "$(md5sum /etc/passwd)" "$md5_passwd" "/etc/passwd unchanged"
if [ -p "$WS/fifo" ]; then fail "--apply created a FIFO on the host"; else ok "--apply creates no FIFO on the host"; fi
if [ -e "$WS/suid" ]; then
        owner=$(stat -c %u "$WS/suid")
        mode=$(stat -c %a "$WS/suid")
        if [ "$owner" = 0 ] && [ $((0$mode & 06000)) -ne 0 ]; then fail "--apply created a setuid/setgid root file (mode $mode)"; else ok "no setuid/setgid root file from --apply (owner $owner, mode $mode)"; fi
else
        ok "no setuid/setgid root file from --apply (not applied)"
fi
if [ -e "$WS/sgid_dir_file" ]; then
        owner=$(stat -c %u "$WS/sgid_dir_file")
        mode=$(stat -c %a "$WS/sgid_dir_file")
        if [ "$owner" = 0 ] && [ $((0$mode & 06000)) -ne 0 ]; then fail "--apply kept a setgid bit on a root file (mode $mode)"; else ok "no setgid root file from --apply (owner $owner, mode $mode)"; fi
else
        ok "no setgid root file from --apply (not applied)"
fi
if is_root; then
        found=$(find "$WS" -user 0 -perm /6000 2>/dev/null)
        is "$found" "" "run by root: no setuid/setgid root-owned file anywhere in DIR"
fi
# Files that --apply creates belong to the sandbox's host uid (the caller;
# run by root, the workspace owner 65534 here), never to root.
want_owner=$(id -u)
is_root && want_owner=65534
for f in flink dlink/evil suid; do
        if [ -e "$WS/$f" ]; then
                is "$(stat -c %u "$WS/$f")" "$want_owner" "--apply: $f is owned by uid $want_owner, not root"
        else
                fail "--apply: $f was applied (control)"
        fi
done

# --- a git hook through --apply (default profile protects .git) --------------
mkdir -p "$WS/.git/hooks"
chmod -R a+rwX "$WS/.git"
pyrun "
os.makedirs('/workspace/.git/hooks', exist_ok=True)
open('/workspace/.git/hooks/post-checkout', 'w').write('#!/bin/sh\necho pwned\n')
os.chmod('/workspace/.git/hooks/post-checkout', 0o755)
print('END')
" -w "$WS" --apply
test -e "$WS/.git/hooks/post-checkout" && fail "a git hook written inside does not reach the host through --apply (protect = .git)" ||
        ok "a git hook written inside does not reach the host through --apply (protect = .git)"

# --- a file changed on the host during the run is a conflict -----------------
echo v1 >"$WS/shared.txt"
chmod 0666 "$WS/shared.txt"
is_root && chown 65534:65534 "$WS/shared.txt"
: >"$TMP/conflict.out"
"$ACS" --profile unsafe-python -w "$WS" --apply -c "
import time
print('START', flush=True)
time.sleep(1.5)
open('/workspace/shared.txt', 'w').write('sandbox')
print('WROTE', flush=True)
" >"$TMP/conflict.out" 2>"$TMP/conflict.err" </dev/null &
bg=$!
i=0
while ! grep -q START "$TMP/conflict.out" && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
echo host-change >"$WS/shared.txt.tmp" && mv "$WS/shared.txt.tmp" "$WS/shared.txt"
is_root && chown 65534:65534 "$WS/shared.txt"
wait "$bg"
diag "conflict run: exit $?; $(tail -n 2 "$TMP/conflict.err")"
if grep -q WROTE "$TMP/conflict.out"; then ok "conflict: control: the sandbox wrote its version"; else fail "conflict: control: the sandbox wrote its version"; fi
is "$(cat "$WS/shared.txt")" host-change "a file changed on the host during the run is not overwritten"

# --- a file deleted on the host during the run is a conflict, not re-created --
echo v1 >"$WS/gone.txt"
chmod 0666 "$WS/gone.txt"
is_root && chown 65534:65534 "$WS/gone.txt"
"$ACS" --profile unsafe-python -w "$WS" --apply -c "
import time
print('START', flush=True)
time.sleep(1.5)
open('/workspace/gone.txt', 'w').write('sandbox')
print('WROTE', flush=True)
" >"$TMP/del.out" 2>"$TMP/del.err" </dev/null &
bg=$!
i=0
while ! grep -q START "$TMP/del.out" && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
rm -f "$WS/gone.txt"
wait "$bg"
diag "deletion run: exit $?; $(tail -n 2 "$TMP/del.err")"
if grep -q WROTE "$TMP/del.out"; then ok "host deletion: control: the sandbox wrote its version"; else fail "host deletion: control: the sandbox wrote its version"; fi
check "a file deleted on the host during the run is not re-created by --apply" test ! -e "$WS/gone.txt"
contains "$(cat "$TMP/del.err")" "conflict: A gone.txt" "a host deletion during the run is reported as a conflict"

# --- apply never widens permissions ------------------------------------------------
# MWS: a workspace of the caller's own (run by root: a root-owned one, shown
# through the idmapped lower layer, so that the program can chmod its files)
MWS=$TMP/modews
mkdir -p "$MWS/d" "$MWS/sd"
printf '#!/bin/sh\necho hi\n' >"$MWS/script.sh"
chmod 0700 "$MWS/script.sh"
echo data >"$MWS/plain.txt"
chmod 0640 "$MWS/plain.txt"
chmod 0755 "$MWS/d"
chmod 0750 "$MWS/sd"
chmod 0755 "$MWS"
pyrun "
open('/workspace/script.sh', 'a').write('echo more\n')
tryf('chmod_script', lambda: os.chmod('/workspace/script.sh', 0o777))
tryf('chmod_plain', lambda: os.chmod('/workspace/plain.txt', 0o4755))
tryf('chmod_dir', lambda: os.chmod('/workspace/d', 0o1777))
tryf('chmod_sd', lambda: os.chmod('/workspace/sd', 0o2775))
open('/workspace/new.txt', 'w').write('n')
os.chmod('/workspace/new.txt', 0o6666)
open('/workspace/newx', 'w').write('x')
os.chmod('/workspace/newx', 0o755)
os.mkdir('/workspace/newdir')
os.chmod('/workspace/newdir', 0o3777)
open('/workspace/newdir/f', 'w').write('f')
os.chmod('/workspace/newdir/f', 0o666)
print('END')
" -w "$MWS" --apply
reached "mode changes with --apply"
diag "apply: $(printf %s "$ERR" | tail -n 8)"
expect_field chmod_script OK "control: the program could chmod the script"
is "$(cat "$MWS/script.sh" | tail -n 1)" "echo more" "modes: control: the script's new content was applied"
is "$(stat -c %a "$MWS/script.sh")" 700 "modes: a 0700 script made 0777 inside stays 0700"
is "$(stat -c %a "$MWS/plain.txt")" 740 "modes: 0640 made 4755 inside: only the owner's x bit comes back (0740)"
is "$(stat -c %a "$MWS/d")" 755 "modes: a directory made 1777 inside keeps its host mode"
is "$(stat -c %a "$MWS/sd")" 750 "modes: a directory made 2775 inside keeps its host mode"
is "$(stat -c %a "$MWS/new.txt")" 644 "modes: a new 6666 file is 0644 (umask 022)"
is "$(stat -c %a "$MWS/newx")" 755 "modes: a new executable file is 0755"
is "$(stat -c %a "$MWS/newdir")" 755 "modes: a new 3777 directory is 0755"
is "$(stat -c %a "$MWS/newdir/f")" 644 "modes: a new 0666 file is 0644"
found=$(find "$MWS" -perm /7022 -printf '%p %m\n')
is "$found" "" "modes: no setuid, setgid, sticky, group- or other-writable entry after --apply"
contains "$ERR" "P  plain.txt" "modes: a mode-only change has its own letter in the summary"
# the host's umask filters new entries
MWS2=$TMP/modews2
mkdir -p "$MWS2"
chmod 0755 "$MWS2"
(
        umask 077
        "$ACS" --profile unsafe-python -w "$MWS2" --apply --json -c "
import os
open('/workspace/u.txt', 'w').write('u')
open('/workspace/ux', 'w').write('x')
os.chmod('/workspace/ux', 0o775)
os.mkdir('/workspace/ud')
os.chmod('/workspace/ud', 0o777)
" >"$TMP/umask.json" 2>"$TMP/umask.err" </dev/null
)
is "$(stat -c %a "$MWS2/u.txt" "$MWS2/ux" "$MWS2/ud" 2>&1 | tr '\n' ' ')" "600 700 700 " "modes: umask 077 on the host: new entries 0600 / 0700"
is "$(json_get .files.modified <"$TMP/umask.json")" "[]" "modes: control: nothing modified in the umask run"

# --- symlinks come back only when they stay inside the workspace ------------------
echo "echo host" >"$TMP/rc"
echo log >"$WS/out.log"
chmod 0666 "$WS/out.log"
mkdir -p "$WS/lk"
chmod 0777 "$WS/lk"
is_root && chown -R 65534:65534 "$WS/out.log" "$WS/lk"
pyrun "
os.unlink('/workspace/out.log')
os.symlink('$TMP/rc', '/workspace/out.log')
os.symlink('../../escape', '/workspace/lk/up2')
os.symlink('../x/../../escape', '/workspace/lk/dotdot')
os.symlink('/workspace/keep.txt', '/workspace/lk/abs')
os.symlink('../keep.txt', '/workspace/lk/inside')
os.symlink('sub/inner.txt', '/workspace/lk2')
print('END')
" -w "$WS" --apply --json
reached "symlinks with --apply"
check "symlinks: a file turned into a symlink out of the workspace is not written back" test ! -L "$WS/out.log"
is "$(cat "$WS/out.log")" log "symlinks: the host file stays as it was"
check "symlinks: '../..' out of the workspace is not written back" test ! -L "$WS/lk/up2"
check "symlinks: a '..' after a name is not written back" test ! -L "$WS/lk/dotdot"
check "symlinks: an absolute target is not written back" test ! -L "$WS/lk/abs"
is "$(readlink "$WS/lk/inside")" ../keep.txt "symlinks: control: a symlink inside the workspace is written back"
is "$(readlink "$WS/lk2")" sub/inner.txt "symlinks: control: a relative symlink at the top is written back"
skipped=$(printf %s "$OUT" | json_get .apply.items | python3 -c 'import json,sys; print(" ".join(sorted(e["path"] for e in json.load(sys.stdin) if e["status"] == "skipped")))')
is "$skipped" "lk/abs lk/dotdot lk/up2 out.log" "symlinks: the outward ones are reported as skipped"
contains "$(printf %s "$OUT" | json_get .apply.items)" "leaves the workspace" "symlinks: with a reason"
is "$(cat "$TMP/rc")" "echo host" "symlinks: the outside target is untouched"

tap_plan
