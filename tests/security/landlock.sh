#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attack suite: Landlock as a further layer (security-model.md). The mount
# namespace limits the program to the root built for it, but a host file can
# still come in as an open fd -- the caller's stdin redirected from a file --
# and /proc/self/fd/0 reopens it with the program's own rights: in the first
# round `acs-launch ... < notes.txt` let the program overwrite notes.txt.
# Under Landlock nothing outside the root is opened, and writes go only to
# the places meant for them.
. "$ACS_SRCDIR/tests/security/sec-lib.sh"

ABI=$(python3 -c 'import ctypes; l = ctypes.CDLL(None); l.syscall.restype = ctypes.c_long
print(max(0, l.syscall(444, None, ctypes.c_size_t(0), 1)))')

run_acs --profile unsafe-python --json -c 'print(1)'
GOT=$(printf '%s' "$OUT" | json_get confinement.landlock)
if [ "$ABI" -gt 0 ]; then
        is "$GOT" "$ABI" "the report names the Landlock ABI applied ($ABI)"
else
        is "$GOT" null "no Landlock in this kernel: the report says null"
        tap_plan
        exit
fi

# the caller's stdin, a host file the sandbox's uid could write
printf 'original\n' >"$TMP/notes.txt"
chmod 0666 "$TMP/notes.txt"
"$ACS" --profile unsafe-python -c "$PRELUDE
tryf('reopen_write', lambda: open('/proc/self/fd/0', 'w').write('pwned'))
tryf('reopen_read', lambda: open('/proc/self/fd/0').read(3))
print('stdin=' + sys.stdin.read().strip())
print('END')" <"$TMP/notes.txt" >"$TMP/.out" 2>"$TMP/.err"
OUT=$(cat "$TMP/.out")
reached "stdin from a host file"
expect_field stdin original "control: the program reads its stdin"
expect_not_field reopen_write OK "reopening a host stdin file for writing is refused"
is "$(cat "$TMP/notes.txt")" original "the host file is unchanged"

# the places meant for writing still take writes; the rest of the root does not
mkdir -p "$TMP/ws" && chmod 0777 "$TMP/ws"
pyrun "
for n, p in (('ws', '/workspace/w'), ('tmp', '/tmp/w'), ('shm', '/dev/shm/w')):
    tryf(n, lambda: open(p, 'w').write('x'))
tryf('devnull', lambda: open('/dev/null', 'w').write('x'))
tryf('etc', lambda: open('/etc/acs-w', 'w').write('x'))
tryf('comm', lambda: open('/proc/self/comm', 'w').write('renamed'))
print('END')" -w "$TMP/ws"
reached "writable places"
expect_field ws 1 "the workspace is writable"
expect_field tmp 1 "/tmp is writable"
expect_field shm 1 "/dev/shm is writable"
expect_field devnull 1 "/dev/null is writable"
expect_not_field etc 1 "the root is not"
expect_field comm 7 "the program's own /proc files are (comm)"

tap_plan
