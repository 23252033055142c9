#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attack suite: memory a run can pin outside its address space is bounded
# (security-model.md). RLIMIT_AS counts mappings only: pages of a memfd, a
# SysV segment or message queue, or a tmpfs file stay in host RAM after the
# program unmapped (or never mapped) them. Under `memory = 256M` the first
# round let one process hold 1 GiB this way for as long as the run lasted.
# Each probe tries to pin 1 GiB and reports what it really got.
. "$ACS_SRCDIR/tests/security/sec-lib.sh"

LIMIT=268435456 # 256M, the default profile's memory
WS=134217728    # 128M, the default profile's workspace_size (/tmp, /dev/shm share it)

cat >"$TMP/pin.py" <<'PYEOF'
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
MB = 1 << 20
CHUNK = 64 * MB
GOAL = 1024 * MB
one_mb = b"\x5a" * MB

def ename(e):
    return errno.errorcode.get(e, str(e))

def fill(fd, size):
    done = 0
    try:
        while done < size:
            done += os.write(fd, one_mb)
    except OSError:
        pass
    return done

def memfd():
    total, err, fds = 0, "OK", []
    while total < GOAL:
        try:
            fd = os.memfd_create("pin")
        except OSError as e:
            return total, ename(e.errno)
        fds.append(fd)
        w = fill(fd, CHUNK)
        total += w
        if w < CHUNK:
            return total, "SHORT"
    return total, err

def sysv_shm():
    libc.shmget.restype = ctypes.c_int
    libc.shmat.restype = ctypes.c_void_p
    libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    libc.shmdt.argtypes = [ctypes.c_void_p]
    total = 0
    while total < GOAL:
        i = libc.shmget(0, ctypes.c_size_t(CHUNK), 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
        if i < 0:
            return total, ename(ctypes.get_errno())
        a = libc.shmat(i, None, 0)
        if a is None or a == ctypes.c_void_p(-1).value:
            return total, ename(ctypes.get_errno())
        ctypes.memset(a, 0x5A, CHUNK)  # resident now; detached, it stays (no IPC_RMID)
        libc.shmdt(a)
        total += CHUNK
    return total, "OK"

def sysv_msg():
    class Msg(ctypes.Structure):
        _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 8192)]
    m = Msg(1, b"\x5a" * 8192)
    total = 0
    while total < GOAL:
        q = libc.msgget(0, 0o1600)
        if q < 0:
            return total, ename(ctypes.get_errno())
        while True:  # IPC_NOWAIT: until this queue is full
            if libc.msgsnd(q, ctypes.byref(m), ctypes.c_size_t(8192), 0o4000) < 0:
                break
            total += 8192
    return total, "OK"

def tmpfs(path):
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    except OSError as e:
        return 0, ename(e.errno)
    total = 0
    while total < GOAL:
        w = fill(fd, CHUNK)
        total += w
        if w < CHUNK:
            # RLIMIT_FSIZE (64M) or the tmpfs is full: go on with the next file
            fd = os.open(path + str(total), os.O_WRONLY | os.O_CREAT, 0o600)
            if fill(fd, MB) == 0:
                break
            total += MB
    return total, "OK"

what = sys.argv[1]
got, err = {"memfd": memfd, "shm": sysv_shm, "msg": sysv_msg,
            "devshm": lambda: tmpfs("/dev/shm/pin"), "tmp": lambda: tmpfs("/tmp/pin")}[what]()
print("PINNED=%d" % got)
print("ERR=%s" % err)
print("END", flush=True)
PYEOF
chmod 0644 "$TMP/pin.py"

# probe KIND BOUND DESC: the program pins no more than BOUND bytes
probe() {
        run_acs --profile unsafe-python --timeout 30 --json -- "$TMP/pin.py" "$1"
        _text=$(printf '%s' "$OUT" | json_get stdout.text)
        OUT=$_text
        reached "$1 probe"
        _p=$(field PINNED)
        if [ -n "$_p" ] && [ "$_p" -le "$2" ]; then ok "$3 ($(( _p >> 20 )) MiB, $(field ERR))"; else
                fail "$3"
                diag "pinned '$_p' bytes (bound $2), $(field ERR); rc=$RC"
        fi
}

probe memfd $LIMIT "memfd: no more than the memory limit stays pinned"
MEMFD_ENF=$(run_acs --profile unsafe-python --json -c 'pass'; printf '%s' "$OUT" | json_get limits.enforced.memfd)
case $MEMFD_ENF in
denied) ok "the report says how memfd is bounded: denied (no memory cgroup)" ;;
cgroup2) ok "the report says how memfd is bounded: cgroup2" ;;
*) fail "the report says how memfd is bounded"; diag "limits.enforced.memfd: '$MEMFD_ENF'" ;;
esac

probe shm $LIMIT "SysV shared memory: no more than the memory limit stays pinned"
probe msg $LIMIT "SysV message queues: no more than the memory limit stays pinned"
SYSV_ENF=$(run_acs --profile unsafe-python --json -c 'pass'; printf '%s' "$OUT" | json_get limits.enforced.sysv_ipc)
if is_root; then want="ipc-limits cgroup2"; else want="denied cgroup2"; fi
case " $want " in
*" $SYSV_ENF "*) ok "the report says how SysV IPC is bounded: $SYSV_ENF" ;;
*) fail "the report says how SysV IPC is bounded"; diag "limits.enforced.sysv_ipc: '$SYSV_ENF', want one of: $want" ;;
esac

probe devshm $WS "POSIX shared memory (/dev/shm): no more than workspace_size"
probe tmp $WS "/tmp: no more than workspace_size"

# without a memory limit nothing is denied (a trusted run may use memfd)
run_acs --profile unsafe-python --memory 0 -c 'import os; os.memfd_create("x"); print("MEMFD=OK"); print("END")'
reached "memfd without a memory limit"
expect_field MEMFD OK "without a memory limit, memfd_create works"

tap_plan
