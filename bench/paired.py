#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Paired start-up comparison: every round runs each command once, in a fresh
shuffled order; each command's time is compared with REF's in the same round,
so drift between rounds (other tenants, the previous run's kworker cleanup)
cancels. Prints medians, the ratio to the command named bare, and the median
of the paired differences with a bootstrap 95 % interval.

  bench/paired.py ROUNDS REF NAME=COMMAND... (one NAME must be bare)

e.g. two trees' launchers against bare python, as an ordinary user:
  bench/paired.py 1000 old 'bare=/usr/bin/python3 -I -S hello.py' \\
      'old=../old/acs-launch --profile unsafe-python -q -- hello.py' \\
      'new=./acs-launch --profile unsafe-python -q -- hello.py'
Commands are split on blanks and spawned directly (stdout to /dev/null);
leading VAR=VALUE words are added to that command's environment, e.g.
  'fork=ACS_NO_FAST_CLONE=1 ./acs-launch --profile unsafe-python -q -- hello.py'"""
import os
import random
import statistics as st
import sys
import time

WARMUP = 3


def main():
    if len(sys.argv) < 5 or not sys.argv[1].isdigit():
        sys.exit(__doc__)
    rounds, ref = int(sys.argv[1]), sys.argv[2]
    cmds = dict(a.split("=", 1) for a in sys.argv[3:])
    if "bare" not in cmds or ref not in cmds:
        sys.exit("paired.py: name one command bare and one REF")
    argv, envs = {}, {}
    for n, c in cmds.items():
        words, env = c.split(), dict(os.environ)
        while words and "=" in words[0] and not words[0].startswith("/"):
            k, v = words.pop(0).split("=", 1)
            env[k] = v
        argv[n], envs[n] = words, env
    out = os.open(os.devnull, os.O_WRONLY)
    actions = [(os.POSIX_SPAWN_DUP2, out, 1)]
    times = {n: [] for n in cmds}
    for i in range(rounds + WARMUP):
        order = list(cmds)
        random.shuffle(order)
        row = {}
        for n in order:
            t = time.perf_counter()
            pid = os.posix_spawn(argv[n][0], argv[n], envs[n], file_actions=actions)
            _, status = os.waitpid(pid, 0)
            row[n] = (time.perf_counter() - t) * 1e3
            if status:
                sys.exit(f"paired.py: {n} failed (wait status {status})")
        if i >= WARMUP:
            for n in cmds:
                times[n].append(row[n])
    bare, base = st.median(times["bare"]), st.median(times[ref])
    for n, v in times.items():
        m = st.median(v)
        d = [x - y for x, y in zip(v, times[ref])]
        boot = sorted(st.median(random.choices(d, k=len(d))) for _ in range(1000))
        print(f"{n:12s} median {m:7.2f} ms  {m / bare:5.3f}x bare  {m - bare:+6.2f} ms over bare  |  "
              f"paired vs {ref}: {st.median(d):+6.3f} ms [{boot[25]:+.3f}, {boot[974]:+.3f}] "
              f"{100 * st.median(d) / base:+5.2f} %")


if __name__ == "__main__":
    main()
