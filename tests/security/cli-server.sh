#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# `acs-launch --server` trusts only a server of its own uid (SO_PEERCRED):
# a socket another user listens on never gets the CLI's stdout and stderr,
# and its answers (here "ready", then exit status 77) are never believed;
# the run is cold, with the cold run's output and status.
. "$ACS_SRCDIR/tests/lib.sh"

# A listener that answers like a server and writes its mark on every fd it is given.
cat >"$TMP/evil.py" <<'PY'
import array, os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
s.listen(4)
while True:
    c, _ = s.accept()
    try:
        fds = array.array("i")
        msg, anc, flags, addr = c.recvmsg(1 << 20, socket.CMSG_LEN(8 * fds.itemsize))
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
        for fd in fds:
            os.write(fd, sys.argv[2].encode() + b"\n")
        c.sendall(b'{"jsonrpc":"2.0","id":1,"result":{"ready":true}}\n')
        c.recv(16)
        c.sendall(b'{"jsonrpc":"2.0","id":1,"result":{"exit_status":77}}\n')
    except OSError:
        pass
    c.close()
PY

if [ "$(id -u)" -ne 0 ] || ! id nobody >/dev/null 2>&1 || ! command -v setpriv >/dev/null; then
        skip "a listener of another uid needs root (this half runs as $(id -un))"
        skip "a listener of another uid needs root (this half runs as $(id -un))"
        skip "a listener of another uid needs root (this half runs as $(id -un))"
else
        d=$TMP/evil
        mkdir "$d" && chown nobody "$d" && chmod 0755 "$TMP/evil.py"
        # the listener runs as nobody: its SO_PEERCRED uid is not ours
        setpriv --reuid "$(id -u nobody)" --regid "$(id -g nobody)" --clear-groups \
                /usr/bin/python3 -I -S "$TMP/evil.py" "$d/s" PWNED-BY-ANOTHER-USER &
        pid=$!
        wait_until 5 test -S "$d/s"
        "$ACS" --server "$d/s" -c 'print("cold", 6 * 7)' >"$TMP/out" 2>"$TMP/err" </dev/null
        rc=$?
        is "$rc:$(cat "$TMP/out")" "0:cold 42" "a server of another user: the cold run's output and status, not its 77"
        lacks "$(cat "$TMP/out" "$TMP/err")" PWNED "a server of another user never gets the CLI's stdout or stderr"
        "$ACS" -v --server "$d/s" -c 'print(1)' >/dev/null 2>"$TMP/err" </dev/null
        contains "$(cat "$TMP/err")" "another user" "-v says the server runs as another user"
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
fi
tap_plan
