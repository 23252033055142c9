# SPDX-License-Identifier: LGPL-2.1-or-later
"""The CLI through a running server (issue 14), in one run: the wall time of
  - bare `python3 -I -S -c 'print(1)'`,
  - `acs-launch --server S -c 'print(1)'` against a running `acs-launch serve --socket S`,
  - `acs-launch --no-server -c 'print(1)'` (a cold sandbox),
each started the same way (posix_spawn from this process, stdin /dev/null,
stdout and stderr to a pipe that is read to the end), interleaved in a
shuffled order every round so that drift on a shared machine hits them alike.
Prints the medians in ms, the ratios to bare python and the ms over it.
  python3 bench/cli-server.py [N [PAUSE_MS [SERVE_OPTION...]]]   (env: ACS_BUILDDIR, ACS_PROFILE_PATH, PYTHON3)
PAUSE_MS (default 0) is slept after each round, like the think time between
an agent's calls: the server's next connection process readies its pool then.
"""
import os, random, shutil, statistics, subprocess, sys, tempfile, time

here = os.path.dirname(os.path.abspath(__file__))
src = os.path.dirname(here)
build = os.path.abspath(os.environ.get("ACS_BUILDDIR", src))
acs = os.path.join(build, "acs-launch")
python = os.environ.get("PYTHON3", "/usr/bin/python3")
os.environ.setdefault("ACS_PROFILE_PATH", os.path.join(src, "profiles"))
n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
pause = float(sys.argv[2]) / 1000 if len(sys.argv) > 2 else 0.0

tmp = tempfile.mkdtemp(prefix="acs-bench-")
sock = os.path.join(tmp, "s")
serve_args = sys.argv[3:]  # e.g. --pool 1
server = subprocess.Popen([acs, "serve", "--socket", sock, *serve_args], stdin=subprocess.DEVNULL)
try:
    for _ in range(200):
        if os.path.exists(sock):
            break
        time.sleep(0.05)
    cmds = {
        "bare python3 -I -S": [python, "-I", "-S", "-c", "print(1)"],
        "acs-launch --server": [acs, "--server", sock, "-c", "print(1)"],
        "acs-launch (cold)": [acs, "--no-server", "-c", "print(1)"],
    }

    def once(argv):
        t = time.perf_counter()
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True)
        dt = (time.perf_counter() - t) * 1000
        if r.returncode != 0 or r.stdout != b"1\n":
            sys.exit(f"{argv[0]}: status {r.returncode}, stdout {r.stdout!r}, stderr {r.stderr[:300]!r}")
        return dt

    # the CLI must really go through the server, not fall back
    v = subprocess.run([acs, "-v", "--server", sock, "-c", "print(1)"], stdin=subprocess.DEVNULL,
                       capture_output=True)
    if b"ready sandbox" not in v.stderr:
        sys.exit("the CLI did not run through the server: " + v.stderr.decode(errors="replace")[:400])
    times = {k: [] for k in cmds}
    order = list(cmds)
    for i in range(n + 3):
        random.shuffle(order)
        for k in order:
            dt = once(cmds[k])
            if i >= 3:
                times[k].append(dt)
        if pause:
            time.sleep(pause)
    bare = statistics.median(times["bare python3 -I -S"])
    print(f"{n} rounds, pause {pause * 1000:g} ms, uid {os.getuid()}, serve {' '.join(serve_args) or '(defaults)'}")
    for k in cmds:
        m = statistics.median(times[k])
        print(f"{k:22} median {m:7.2f} ms  {m / bare:5.2f}x bare  {m - bare:+7.2f} ms over bare")
finally:
    server.terminate()
    server.wait()
    shutil.rmtree(tmp, ignore_errors=True)
