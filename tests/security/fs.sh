#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attack suite: the filesystem view (security-model.md, layer 2: minimal
# root, read-only /usr, fresh /proc, minimal /dev, no /sys, private /tmp).
. "$ACS_SRCDIR/tests/security/sec-lib.sh"

echo "host-secret-$MARK" >"$TMP/host-marker"
chmod 0644 "$TMP/host-marker"
echo "host-secret-$MARK" >"/dev/shm/acs-marker-$MARK" 2>/dev/null && chmod 0644 "/dev/shm/acs-marker-$MARK"
trap 'rm -rf "$TMP"; rm -f "/dev/shm/acs-marker-$MARK"' EXIT

pyrun "
def rd(p):
    with open(p, 'rb') as f:
        return 'READ:' + f.read(40).decode('latin-1').replace('\n', ' ')
tryf('shadow', lambda: rd('/etc/shadow'))
tryf('gshadow', lambda: rd('/etc/gshadow'))
tryf('root_ls', lambda: 'LIST:' + ','.join(os.listdir('/root')) if os.listdir('/root') else 'EMPTY')
tryf('home_ls', lambda: 'LIST:' + ','.join(os.listdir('/home')) if os.listdir('/home') else 'EMPTY')
tryf('hostmarker', lambda: rd('$TMP/host-marker'))
tryf('hostmarker_dir', lambda: 'LIST:' + ','.join(os.listdir('$TMP')))
tryf('shm_ls', lambda: 'LIST:' + ','.join(os.listdir('/dev/shm')) if os.listdir('/dev/shm') else 'EMPTY')
tryf('tmp_ls', lambda: 'LIST:' + ','.join(os.listdir('/tmp')) if os.listdir('/tmp') else 'EMPTY')
res('sys_kernel', os.path.exists('/sys/kernel') or os.path.exists('/sys/fs/cgroup') or os.path.exists('/sys/firmware'))
def wr(p):
    # create a new file, never truncate an existing one
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    os.close(fd)
    os.unlink(p)
def wopen(p):
    # open for writing only: the permission check happens here; nothing is written
    os.close(os.open(p, os.O_WRONLY))
tryf('usr_write', lambda: wr('/usr/acs-$MARK'))
tryf('usr_bin_write', lambda: wopen('/usr/bin/python3'))
tryf('etc_write', lambda: wr('/etc/acs-$MARK'))
tryf('root_dir_write', lambda: wr('/acs-$MARK'))
tryf('procsys_hostname', lambda: wopen('/proc/sys/kernel/hostname'))
tryf('procsys_vm', lambda: wopen('/proc/sys/vm/drop_caches'))
tryf('sysrq', lambda: wopen('/proc/sysrq-trigger'))
tryf('kcore', lambda: rd('/proc/kcore'))
tryf('kmsg', lambda: rd('/proc/kmsg'))
import stat
bad = []
for d, dirs, files in os.walk('/dev'):
    if d.startswith('/dev/pts'):
        continue
    for n in dirs + files:
        p = os.path.join(d, n)
        st = os.lstat(p)
        if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
            if p not in ('/dev/null', '/dev/zero', '/dev/full', '/dev/random', '/dev/urandom', '/dev/ptmx'):
                bad.append(p)
res('dev_extra', ','.join(bad) or 'NONE')
res('dev_devices', ','.join(sorted(n for n in os.listdir('/dev') if stat.S_ISCHR(os.lstat('/dev/' + n).st_mode))))
tryf('dev_tmp_write', lambda: open('/tmp/acs-inside-$MARK', 'w').write('x'))
tryf('workspace_write', lambda: open('/workspace/acs-inside', 'w').write('x'))
print('END')
"
reached "filesystem probes"
case $(field shadow) in READ:*) fail "/etc/shadow content leaked" ;; *) ok "/etc/shadow content not leaked" ;; esac
case $(field gshadow) in READ:*) fail "/etc/gshadow is readable" ;; *) ok "/etc/gshadow is not readable" ;; esac
case $(field root_ls) in LIST:*) fail "/root is visible: $(field root_ls)" ;; "") fail "/root probe did not run" ;; *) ok "/root is absent or empty ($(field root_ls))" ;; esac
case $(field home_ls) in LIST:*) fail "/home is visible: $(field home_ls)" ;; "") fail "/home probe did not run" ;; *) ok "/home is absent or empty ($(field home_ls))" ;; esac
case $(field hostmarker) in READ:*) fail "a host /tmp file is readable inside" ;; "") fail "/tmp marker probe did not run" ;; *) ok "host /tmp marker file is not visible ($(field hostmarker))" ;; esac
case $(field hostmarker_dir) in LIST:*) fail "the host's /tmp test dir is listable inside" ;; *) ok "the host's /tmp test dir is not there" ;; esac
lacks "$(field tmp_ls)" "acs-test." "/tmp inside is not the host's /tmp"
lacks "$(field shm_ls)" "$MARK" "/dev/shm inside is not the host's /dev/shm"
expect_field sys_kernel False "/sys is absent"
for k in usr_write usr_bin_write etc_write root_dir_write; do
        expect_not_field $k OK "write refused: $k"
done
for k in procsys_hostname procsys_vm sysrq; do
        expect_not_field $k OK "write to /proc refused: $k"
done
for k in kcore kmsg; do
        case $(field $k) in READ:*) fail "$k readable" ;; "") fail "$k probe did not run" ;; *) ok "$k not readable ($(field $k))" ;; esac
done
expect_field dev_extra NONE "/dev has no device nodes beyond null zero full random urandom (and ptmx)"
diag "devices in /dev: $(field dev_devices)"
for n in null zero full random urandom; do
        contains ",$(field dev_devices)," ",$n," "/dev/$n is present"
done
expect_field dev_tmp_write 1 "control: /tmp inside is writable"
expect_field workspace_write 1 "control: /workspace is writable"
test -e "/tmp/acs-inside-$MARK" && fail "a write to /tmp inside reached the host's /tmp" || ok "a write to /tmp inside stays inside"

# --- /workspace with no host workspace: the upper directory itself, bound ----
# (mounts.c: bare_workspace, not an overlay of an empty directory) nosuid and
# nodev as the overlay was; read-only with workspace = readonly
WSPROBE="
mi = [l.split() for l in open('/proc/self/mountinfo').read().splitlines()]
ws = [m for m in mi if m[4] == '/workspace']
res('ws_opts', ','.join(o for o in ws[-1][5].split(',') if o in ('ro', 'rw', 'nosuid', 'nodev')) if ws else 'NONE')
tryf('ws_create', lambda: open('/workspace/made-$MARK', 'w').write('x'))
print('END')
"
pyrun "$WSPROBE"
reached "/workspace with no host workspace"
expect_field ws_opts rw,nosuid,nodev "no host workspace: /workspace is mounted rw, nosuid, nodev"
expect_field ws_create 1 "no host workspace: /workspace is writable"
printf '[profile]\ninherit = unsafe-python\n[filesystem]\nworkspace = readonly\n' >"$TMP/ro-ws.ini"
chmod 0644 "$TMP/ro-ws.ini"
run_acs --profile "$TMP/ro-ws.ini" -c "$PRELUDE$WSPROBE"
reached "/workspace, readonly, with no host workspace"
expect_field ws_opts ro,nosuid,nodev "workspace = readonly, no host workspace: /workspace is mounted ro, nosuid, nodev"
expect_field ws_create EROFS "workspace = readonly, no host workspace: nothing can be created in /workspace"

# --- --ro-bind is read-only; the old root is detached ------------------------
# the host root file system's device (read-only binds are overlays of their own)
HOSTDEV=$(awk '$5 == "/" { print $3; exit }' /proc/self/mountinfo)
mkdir -p "$TMP/ro"
echo ro-orig >"$TMP/ro/file"
chmod -R a+rwX "$TMP/ro"
pyrun "
tryf('ro_write', lambda: open('/ro/file', 'w').write('x'))
tryf('ro_create', lambda: open('/ro/new-$MARK', 'w').write('x'))
tryf('ro_read', lambda: open('/ro/file').read().strip())
mi = [l.split() for l in open('/proc/self/mountinfo').read().splitlines()]
dev = '$HOSTDEV'  # the host root file system's major:minor
# a mount of the host root filesystem's own root would be the old root
res('host_root_mounts', ','.join(m[4] for m in mi if m[2] == dev and m[3] == '/') or 'NONE')
res('nmounts', len(mi))
print('END')
" --ro-bind "$TMP/ro" /ro
reached "--ro-bind and mount table probe"
expect_field ro_read ro-orig "control: --ro-bind content is readable"
expect_not_field ro_write 7 "--ro-bind: an existing file cannot be written"
expect_not_field ro_create 1 "--ro-bind: no file can be created"
is "$(cat "$TMP/ro/file")" ro-orig "--ro-bind: the host file is unchanged"
test -e "$TMP/ro/new-$MARK" && fail "--ro-bind: nothing created on the host" || ok "--ro-bind: nothing created on the host"
expect_field host_root_mounts NONE "no mount exposes the host root filesystem's root (old root detached)"
diag "mounts inside: $(field nmounts)"

# --- disk use is bounded (workspace_size, the tmpfs bound) --------------------
# 40 MiB files (below the file_size rlimit) until the first error: the total
# must stop near the profile's 128M, with ENOSPC, not fill the host.
pyrun "
for d in ('/workspace', '/tmp', '/dev/shm'):
    total, err = 0, 'NONE'
    chunk = b'x' * (1 << 20)
    try:
        for i in range(12):
            with open('%s/fill%d' % (d, i), 'wb') as f:
                for j in range(40):
                    f.write(chunk)
                    f.flush()
                    total += 1
    except OSError as e:
        err = errno.errorcode.get(e.errno, str(e.errno))
    res('fill_' + d.strip('/').replace('/', '_'), '%s:%d' % (err, total))
    for i in range(12):
        try:
            os.unlink('%s/fill%d' % (d, i))
        except OSError:
            pass
print('END')
"
reached "disk fill probe"
for k in fill_workspace fill_tmp fill_dev_shm; do
        v=$(field $k)
        mib=${v#*:}
        case $v in
        ENOSPC:* | EFBIG:* | EDQUOT:*)
                if [ "$mib" -le 300 ]; then ok "$k: writing stops at ${mib} MiB (${v%%:*})"; else fail "$k: writing stops near the bound (got $mib MiB)"; fi ;;
        *) fail "$k: writing 480 MiB must fail (got '$v')" ;;
        esac
done

# the same through exec + a shell (the shell profile)
shrun "cat /etc/shadow 2>/dev/null && echo SHADOW-LEAK; ls /root 2>/dev/null | head -n 3; (set -C; : >/usr/acs-$MARK) 2>/dev/null && rm -f /usr/acs-$MARK && echo USR-WRITABLE; ls /sys 2>/dev/null | head -n 3; echo END"
reached "exec: filesystem probes"
lacks "$OUT" "SHADOW-LEAK" "exec: /etc/shadow not readable"
lacks "$OUT" "USR-WRITABLE" "exec: /usr is read-only"

tap_plan
