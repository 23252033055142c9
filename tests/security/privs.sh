#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attack suite: identity and privileges (security-model.md: user namespace,
# uid mapped to an unprivileged host uid when run by root, no capabilities
# in any set, no_new_privs, seccomp, clean environment, own pid and uts
# namespaces).
. "$ACS_SRCDIR/tests/security/sec-lib.sh"

myuid=$(id -u)

# --- capabilities, no_new_privs, seccomp mode ----------------------------
pyrun "
st = dict(l.split(':', 1) for l in open('/proc/self/status').read().splitlines() if ':' in l)
for k in ('CapInh', 'CapEff', 'CapPrm', 'CapBnd', 'CapAmb', 'NoNewPrivs', 'Seccomp', 'Uid', 'Gid'):
    res(k, ' '.join(st.get(k, '?').split()))
res('uid_map', ' '.join(open('/proc/self/uid_map').read().split()))
def host_id(inner, path):
    for l in open(path).read().splitlines():
        i, o, n = map(int, l.split())
        if i <= inner < i + n:
            return o + inner - i
    return 'UNMAPPED'
def maps_host_zero(path):
    return any(int(o) == 0 or (int(o) < 1 and int(o) + int(n) > 0) for _, o, n in (l.split() for l in open(path).read().splitlines()))
res('host_uid', host_id(os.getuid(), '/proc/self/uid_map'))
res('host_gid', host_id(os.getgid(), '/proc/self/gid_map'))
res('host_root_mapped', maps_host_zero('/proc/self/uid_map') or maps_host_zero('/proc/self/gid_map'))
res('hostname', __import__('socket').gethostname())
res('uname_node', os.uname().nodename)
print('END')
"
reached "status probe"
for k in CapInh CapEff CapPrm CapBnd CapAmb; do
        expect_field $k 0000000000000000 "$k is empty"
done
expect_field NoNewPrivs 1 "NoNewPrivs is 1"
expect_field Seccomp 2 "Seccomp is 2 (filter mode)"
expect_field hostname sandbox "hostname is sandbox"
expect_field uname_node sandbox "uname nodename is sandbox"
# the sandbox's own uid and gid on the host, from its uid_map/gid_map
outside=$(field host_uid)
diag "uid_map: $(field uid_map); Uid: $(field Uid); host uid $outside, gid $(field host_gid)"
if is_root; then
        case $outside in '' | 0 | UNMAPPED) fail "run by root: the sandbox runs as an unprivileged host uid (got '$outside')" ;;
        *) ok "run by root: the sandbox runs as host uid $outside, not 0" ;; esac
        case $(field host_gid) in '' | 0 | UNMAPPED) fail "run by root: the sandbox's gid is not host gid 0 (got '$(field host_gid)')" ;;
        *) ok "run by root: the sandbox's gid is host gid $(field host_gid), not 0" ;; esac
else
        is "$outside" "$myuid" "run by uid $myuid: the sandbox runs as the caller's own uid"
fi
# host root must not be reachable through the maps at all
expect_field host_root_mapped False "host uid/gid 0 is not mapped into the sandbox"

# --- files written through a writable bind land owned by an unprivileged uid
mkdir -p "$TMP/rw"
chmod 0777 "$TMP/rw"
pyrun "
open('/rw/owned-$MARK', 'w').write('x')
os.chmod('/rw/owned-$MARK', 0o4755)
print('END')
" --bind "$TMP/rw" /rw
reached "write through --bind"
if [ -e "$TMP/rw/owned-$MARK" ]; then
        owner=$(stat -c %u "$TMP/rw/owned-$MARK")
        mode=$(stat -c %a "$TMP/rw/owned-$MARK")
        if is_root; then
                if [ "$owner" != 0 ]; then ok "run by root: a file written by the sandbox is owned by uid $owner, not root"; else fail "run by root: a file written by the sandbox is owned by root"; fi
        else
                is "$owner" "$myuid" "a file written by the sandbox is owned by the caller"
        fi
        if [ "$owner" = 0 ] && [ $((0$mode & 04000)) -ne 0 ]; then fail "sandbox created a setuid-root file on the host"; else ok "no setuid-root file on the host (owner $owner mode $mode)"; fi
else
        fail "the --bind write did not reach the host (cannot check the owner)"
        diag "rc=$RC $(printf %s "$ERR" | tail -n 3)"
        skip "setuid-root check"
fi

# --- setuid binaries do not gain anything --------------------------------
pyrun "
import stat, subprocess, time
me = os.getuid()
seen, elevated, ran = 0, [], []
# only binaries that change nothing when started without arguments and killed
for p in ('/usr/bin/su', '/usr/bin/mount', '/usr/bin/umount', '/usr/bin/newgrp', '/usr/bin/sudo'):
    try:
        if not os.stat(p).st_mode & stat.S_ISUID:
            continue
    except OSError:
        continue
    try:
        pr = subprocess.Popen([p], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError as e:
        ran.append(p + ':' + errno.errorcode.get(e.errno, '?'))
        continue
    ran.append(p)
    end = time.time() + 0.5
    while pr.poll() is None and time.time() < end:
        try:
            for l in open('/proc/%d/status' % pr.pid):
                if l.startswith('Uid:'):
                    seen += 1
                    if any(int(x) != me for x in l.split()[1:]):
                        elevated.append(p + ' ' + ' '.join(l.split()[1:]))
        except OSError:
            pass
    pr.kill(); pr.wait()
res('suid_ran', ','.join(ran) or 'NONE')
res('suid_seen', seen)
res('suid_elevated', ';'.join(elevated) or 'NONE')
r = subprocess.run(['/usr/bin/mount', '-t', 'tmpfs', 'none', '/workspace'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) if os.path.exists('/usr/bin/mount') else None
res('suid_mount', 'absent' if r is None else r.returncode)
print('END')
"
reached "setuid probe"
diag "setuid binaries run: $(field suid_ran); status samples: $(field suid_seen)"
expect_field suid_elevated NONE "setuid binaries run with the caller's uid in every field"
expect_not_field suid_mount 0 "setuid mount cannot mount"

# --- the launcher's environment does not leak in --------------------------
export ACS_CANARY="canary-$MARK"
pyrun "
env = open('/proc/self/environ', 'rb').read()
res('canary_self', b'canary-' in env)
res('canary_os', any('canary-' in v for v in os.environ.values()))
try:
    res('canary_init', b'canary-' in open('/proc/1/environ', 'rb').read())
except OSError as e:
    res('canary_init', 'False')
print('END')
"
reached "environment probe"
expect_field canary_self False "environment canary not in /proc/self/environ"
expect_field canary_os False "environment canary not in os.environ"
expect_field canary_init False "environment canary not in init's environ"
shrun 'env; cat /proc/1/environ 2>/dev/null | tr "\0" "\n"; echo END'
reached "exec: environment probe"
lacks "$OUT" "canary-$MARK" "exec: environment canary not visible"
unset ACS_CANARY

# --- IPC and cgroup namespaces; host pids unreachable ---------------------------
shmid=$(ipcmk -M 4096 2>/dev/null | awk '{print $NF}')
pyrun "
try:
    res('sysv_shm', len(open('/proc/sysvipc/shm').read().splitlines()) - 1)
except OSError as e:
    res('sysv_shm', errno.errorcode.get(e.errno, '?'))
res('cgroup', ';'.join(l.split(':', 2)[2] for l in open('/proc/self/cgroup').read().splitlines()))
tryf('kill_host_pid', lambda: os.kill($$, 0))
print('END')
"
[ -n "$shmid" ] && ipcrm -m "$shmid" 2>/dev/null
reached "ipc/cgroup probe"
if [ -n "$shmid" ]; then
        case $(field sysv_shm) in 0 | ENOENT | EACCES) ok "the host's SysV shared memory is not visible ($(field sysv_shm))" ;;
        *) fail "the host's SysV shared memory is not visible (got $(field sysv_shm) segments)" ;; esac
else
        skip "ipcmk not available"
fi
cg=$(field cgroup)
case ";$cg;" in *";/;"*) ok "cgroup namespace: /proc/self/cgroup is rooted at / ($cg)" ;;
*) fail "cgroup namespace: /proc/self/cgroup is rooted at / (got '$cg')" ;; esac
expect_not_field kill_host_pid OK "the host test shell's pid ($$) cannot be signalled"

# --- the pid namespace shows only the sandbox ----------------------------
pyrun "
pids = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())
res('npids', len(pids))
res('pid1', 1 in pids)
res('mypid', os.getpid())
cmds = []
for p in pids:
    try:
        cmds.append(open('/proc/%d/cmdline' % p, 'rb').read().replace(b'\0', b' ').decode())
    except OSError:
        pass
# the test script running this on the host (names split so that this
# probe's own command line does not match)
host = ('security/' + 'privs.sh', 'both-' + 'users.sh', 'tap-' + 'driver')
res('host_visible', any(h in c for c in cmds for h in host))
res('init_cmdline', cmds[0][:60].replace(chr(10), ' ') if cmds else '')
tryf('kill_1', lambda: os.kill(1, 0))
print('END')
"
reached "pid namespace probe"
n=$(field npids)
if [ -n "$n" ] && [ "$n" -le 8 ]; then ok "only a few pids visible in /proc ($n)"; else fail "only a few pids visible in /proc (got '$n')"; fi
expect_field pid1 True "the sandbox has its own pid 1"
diag "/proc/1/cmdline inside: $(field init_cmdline)"
expect_field host_visible False "no host process is visible inside"
pid=$(field mypid)
if [ -n "$pid" ] && [ "$pid" -le 10 ]; then ok "the program's pid is small ($pid): a new pid namespace"; else fail "the program's pid is small (got '$pid')"; fi

tap_plan
