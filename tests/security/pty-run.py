# SPDX-License-Identifier: LGPL-2.1-or-later
# Run a command as a shell would in a terminal: a new pseudo-terminal is its
# controlling terminal and its stdin, stdout and stderr (one open file
# description, shared with this harness, as a login shell shares its tty with
# the commands it starts). Print, as JSON, what the "user" would see: every
# byte that reached the terminal, the terminal's settings before and after,
# the file status flags of the shared description, the typeahead that is
# still waiting for the shell afterwards, and whether the terminal can still
# be opened and still shows output.
#
#   pty-run.py [--stdin FILE] [--type TEXT] [--type-later SEC TEXT]
#              [--term-after SEC] -- COMMAND [ARG...]
#
# --stdin FILE       the command's stdin is FILE instead of the terminal
# --type TEXT        typed before the command starts (typeahead for the shell)
# --type-later S T   typed S seconds after the start (input for the command)
# --term-after S     SIGTERM to the command after S seconds
import fcntl
import json
import os
import select
import signal
import struct
import sys
import termios
import time

WINSIZE = (24, 80, 0, 0)


def state(fd):
    a = termios.tcgetattr(fd)
    ws = struct.unpack("HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8))
    cc = [c if isinstance(c, int) else c[0] for c in a[6]]
    return {"iflag": a[0], "oflag": a[1], "cflag": a[2], "lflag": a[3],
            "ispeed": a[4], "ospeed": a[5], "cc": cc, "winsize": list(ws),
            "fl": fcntl.fcntl(fd, fcntl.F_GETFL)}


def main(argv):
    stdin_file, typed, later, term_after = None, None, None, None
    while argv and argv[0] != "--":
        o = argv.pop(0)
        if o == "--stdin":
            stdin_file = argv.pop(0)
        elif o == "--type":
            typed = argv.pop(0)
        elif o == "--type-later":
            later = (float(argv.pop(0)), argv.pop(0))
        elif o == "--term-after":
            term_after = float(argv.pop(0))
        else:
            sys.exit("pty-run.py: unknown option " + o)
    cmd = argv[1:]

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", *WINSIZE))
    # a cooked terminal with echo, as a shell leaves it for the commands it runs
    a = termios.tcgetattr(slave)
    a[3] |= termios.ICANON | termios.ECHO | termios.ISIG
    termios.tcsetattr(slave, termios.TCSANOW, a)
    if typed is not None:
        os.write(master, typed.encode())
    before = state(slave)

    pid = os.fork()
    if pid == 0:
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        if stdin_file is not None:
            os.dup2(os.open(stdin_file, os.O_RDONLY), 0)
        else:
            os.dup2(slave, 0)
        os.dup2(slave, 1)
        os.dup2(slave, 2)
        os.close(master)
        try:
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)

    out = b""
    t0 = time.monotonic()
    status = None
    while True:
        now = time.monotonic() - t0
        if later is not None and now >= later[0]:
            os.write(master, later[1].encode())
            later = None
        if term_after is not None and now >= term_after:
            os.kill(pid, signal.SIGTERM)
            term_after = None
        if now > 60:
            os.kill(pid, signal.SIGKILL)
        r, _, _ = select.select([master], [], [], 0.05)
        if r:
            try:
                out += os.read(master, 65536)
            except OSError:
                pass
        if status is None:
            p, st = os.waitpid(pid, os.WNOHANG)
            if p == pid:
                status = st
                t_end = time.monotonic()
        # after the command ended, drain what is still in flight
        elif not r and time.monotonic() - t_end > 0.2:
            break

    after = state(slave)
    # can the terminal still be opened (TIOCEXCL), does output still flow (tcflow)?
    try:
        os.close(os.open(os.ttyname(slave), os.O_RDWR | os.O_NOCTTY))
        reopen = True
    except OSError:
        reopen = False
    fcntl.fcntl(slave, fcntl.F_SETFL, after["fl"] | os.O_NONBLOCK)
    try:
        os.write(slave, b"flow-probe")
    except OSError:
        pass
    got = b""
    while b"flow-probe" not in got and select.select([master], [], [], 1.0)[0]:
        got += os.read(master, 4096)
    flow = b"flow-probe" in got
    # what the shell would read next (the terminal is cooked: whole lines)
    left = b""
    try:
        left = os.read(slave, 4096)
    except BlockingIOError:
        pass
    rc = os.waitstatus_to_exitcode(status)
    json.dump({"rc": rc, "out": out.decode("latin-1"), "before": before, "after": after,
               "left": left.decode("latin-1"), "reopen": reopen, "flow": flow}, sys.stdout)


main(sys.argv[1:])
