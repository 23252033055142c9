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

tap_plan
