#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attack suite: the syscall surface (security-model.md: seccomp baseline,
# no capabilities, no new user namespace). Raw syscalls through ctypes, so
# each result is the kernel's answer; x86_64 numbers.
. "$ACS_SRCDIR/tests/security/sec-lib.sh"

if [ "$(uname -m)" != x86_64 ]; then
        skip "syscall numbers below are x86_64"
        tap_plan
        exit 0
fi

pyrun "
CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWPID = 0x10000000, 0x20000, 0x40000000, 0x20000000
res('unshare_user', sc(272, CLONE_NEWUSER))
res('unshare_mnt', sc(272, CLONE_NEWNS))
res('unshare_net', sc(272, CLONE_NEWNET))
def clone(flags):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(56), ctypes.c_long(flags | 17), ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0))
    if r == 0:
        os._exit(0)
    if r > 0:
        os.waitpid(r, 0)
        return 'OK'
    return errno.errorcode.get(ctypes.get_errno(), '?')
res('clone_user', clone(CLONE_NEWUSER))
res('clone_pid', clone(CLONE_NEWPID))
res('clone_user_hi', clone(CLONE_NEWUSER | (1 << 32)))
args = (ctypes.c_uint64 * 11)(CLONE_NEWUSER, 0, 0, 0, 17)
res('clone3', sc(435, ctypes.byref(args), 88))
fd = os.open('/proc/self/ns/user', os.O_RDONLY)
res('setns', sc(308, fd, 0))
res('mount', sc(165, b'none', b'/workspace', b'tmpfs', 0, None))
res('umount2', sc(166, b'/workspace', 2))
res('pivot_root', sc(155, b'/workspace', b'/workspace'))
res('chroot', sc(161, b'/workspace'))
res('fsopen', sc(430, b'tmpfs', 0))
res('open_tree', sc(428, -100, b'/usr', 1))
res('mount_setattr', sc(442, -100, b'/usr', 0, None, 0))
res('ptrace_attach_1', sc(101, 16, 1, 0, 0))
res('ptrace_traceme', sc(101, 0, 0, 0, 0))
tryf('proc1_mem', lambda: open('/proc/1/mem', 'r+b').close())
buf = ctypes.create_string_buffer(16)
iov = (ctypes.c_uint64 * 2)(ctypes.addressof(buf), 16)
res('process_vm_readv', sc(310, 1, ctypes.byref(iov), 1, ctypes.byref(iov), 1, 0))
res('keyctl', sc(250, 0, -3, 1))
res('add_key', sc(248, b'user', b'acs', b'secret', 6, -2))
res('request_key', sc(249, b'user', b'acs', None, 0))
params = ctypes.create_string_buffer(120)
res('io_uring_setup', sc(425, 4, params))
res('userfaultfd', sc(323, 0))
attr = ctypes.create_string_buffer(128)
res('bpf', sc(321, 0, attr, 72))
pattr = ctypes.create_string_buffer(128)
ctypes.memmove(pattr, (ctypes.c_uint32 * 2)(1, 128), 8)
res('perf_event_open', sc(298, pattr, 0, -1, -1, 0))
res('kexec_load', sc(246, 0, 0, None, 0xdead0000))  # invalid flags: never unloads anything
res('open_by_handle_at', sc(304, -100, None, 0))
res('init_module', sc(175, None, 0, b''))
res('personality_linux32', sc(135, 8))
res('personality_norandom', sc(135, 0x0040000))
res('personality_norandom_hi', sc(135, (1 << 32) | 0x0040000))
res('personality_query', sc(135, 0xffffffff))
res('iopl', sc(172, 0))
res('swapon', sc(167, b'/nonexistent-acs-swap', 0))
res('reboot', sc(169, 0, 0, 0, None))  # bad magic: EINVAL even with CAP_SYS_BOOT
res('syslog', sc(103, 3, None, 0))
hn = os.uname().nodename.encode()
res('sethostname', sc(170, hn, len(hn)))  # the same name: no change either way
print('END')
"
reached "syscall probes"
for k in unshare_user unshare_mnt unshare_net clone_user clone_pid clone_user_hi setns mount umount2 \
        pivot_root chroot fsopen open_tree mount_setattr ptrace_attach_1 ptrace_traceme \
        process_vm_readv keyctl add_key request_key io_uring_setup userfaultfd bpf \
        perf_event_open kexec_load open_by_handle_at init_module personality_linux32 \
        personality_norandom personality_norandom_hi iopl swapon reboot syslog sethostname; do
        expect_field $k EPERM "$k fails with EPERM"
done
expect_field clone3 ENOSYS "clone3 fails with ENOSYS (glibc falls back to clone)"
expect_field personality_query OK "control: personality(0xffffffff) query works"
expect_not_field proc1_mem OK "/proc/1/mem cannot be opened for writing"

# --- a new user namespace through the tools --------------------------------
shrun 'unshare -U true 2>/dev/null && echo LEAK-unshare-U; unshare -Ur id 2>/dev/null && echo LEAK-unshare-Ur;
mount -t tmpfs none /workspace 2>/dev/null && echo LEAK-mount; umount -l /workspace 2>/dev/null && echo LEAK-umount;
nsenter -t 1 -U true 2>/dev/null && echo LEAK-nsenter; echo END'
reached "exec: namespace tools"
lacks "$OUT" "LEAK-" "exec: unshare -U, mount, umount, nsenter all fail"

# --- ABI tricks kill the process -------------------------------------------
pyrun "
print('BEFORE', flush=True)
sc(0x40000000 | 39)
print('AFTER-x32', flush=True)
print('END')
"
contains "$OUT" BEFORE "x32: the program started"
lacks "$OUT" AFTER-x32 "x32: the process did not survive an x32 syscall"
is "$RC" 159 "x32: killed by SIGSYS (exit status 128+31)"

pyrun "
import mmap
code = bytes.fromhex('b814000000cd80c3')  # mov eax, 20 (i386 getpid); int 0x80; ret
m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
m.write(code)
f = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(m)))
print('BEFORE', flush=True)
print('AFTER-i386', f(), flush=True)
print('END')
"
contains "$OUT" BEFORE "i386: the program started"
lacks "$OUT" AFTER-i386 "i386: the process did not survive an int 0x80 syscall"
case $RC in
159) ok "i386: killed by SIGSYS" ;;
139) ok "i386: killed (SIGSEGV: this kernel has i386 emulation off; the filter is tested in test-filter)" ;;
*) fail "i386: killed by a signal (rc=$RC)" ;;
esac

# --- TIOCSTI on a real terminal (CVE-2017-5226) ----------------------------
cat >"$TMP/tiocsti.py" <<'EOF'
import ctypes, errno, fcntl, os, termios
libc = ctypes.CDLL(None, use_errno=True)
print("isatty=%s" % os.isatty(0), flush=True)
for name, cmd in (("tiocsti", termios.TIOCSTI), ("tiocsti_hi", termios.TIOCSTI | (1 << 32))):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(16), ctypes.c_long(0), ctypes.c_ulong(cmd), ctypes.c_char_p(b"x"))
    print("%s=%s" % (name, "OK" if r >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")), flush=True)
try:
    fcntl.ioctl(0, termios.TIOCSTI, b"x")
    print("tiocsti_fcntl=OK")
except OSError as e:
    print("tiocsti_fcntl=%s" % errno.errorcode.get(e.errno, "?"))
print("END")
EOF
chmod 0644 "$TMP/tiocsti.py"
if command -v script >/dev/null 2>&1; then
        OUT=$(script -qec "'$ACS' --profile unsafe-python -- '$TMP/tiocsti.py'" /dev/null </dev/null 2>&1 | tr -d '\r')
        RC=$?
        ERR=
        reached "TIOCSTI probe under a pty"
        if [ "$(field isatty)" = True ]; then
                ok "control: stdin inside is a terminal"
        else
                skip "stdin inside is not a terminal (the launcher did not pass the pty)"
        fi
        expect_field tiocsti EPERM "ioctl(0, TIOCSTI) fails with EPERM"
        expect_field tiocsti_hi EPERM "ioctl(0, TIOCSTI | 1<<32) fails with EPERM"
        expect_field tiocsti_fcntl EPERM "fcntl.ioctl(0, TIOCSTI) fails with EPERM"
else
        skip "script(1) not installed"
fi

# --- memfd + exec: whatever is executed is still confined ------------------
# (without a memory limit: under one, and without a memory cgroup, memfd_create
# is denied -- tests/security/memory.sh)
cat >"$TMP/memfd.py" <<'PYEOF'
import os
sh = '/usr/bin/dash' if os.path.exists('/usr/bin/dash') else '/usr/bin/sh'
fd = os.memfd_create('acs', 0)
os.write(fd, open(sh, 'rb').read())
pid = os.fork()
if pid == 0:
    os.execv('/proc/self/fd/%d' % fd, ['sh', '-c',
             'grep -E "^(Seccomp|NoNewPrivs|CapEff):" /proc/self/status | tr -d " \\t" | tr : =;'
             'cat /etc/shadow >/dev/null 2>&1 && echo SHADOW=READ; echo MEMFD=RAN'])
os.waitpid(pid, 0)
print('END')
PYEOF
chmod 0644 "$TMP/memfd.py"
run_acs --profile unsafe-python --memory 0 -- "$TMP/memfd.py"
reached "memfd exec probe"
expect_field MEMFD RAN "control: a binary exec'd from a memfd runs"
expect_field Seccomp 2 "memfd-exec'd binary still has the seccomp filter"
expect_field NoNewPrivs 1 "memfd-exec'd binary still has no_new_privs"
expect_field CapEff 0000000000000000 "memfd-exec'd binary has no capabilities"
lacks "$OUT" "SHADOW=READ" "memfd-exec'd binary cannot read /etc/shadow"

tap_plan
