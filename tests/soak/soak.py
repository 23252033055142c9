# SPDX-License-Identifier: LGPL-2.1-or-later
"""The soak's driver (run by tests/soak/soak.sh, once per user): RUNS mixed
runs of acs-launch, then checks that nothing was left behind and that the
launcher's memory did not grow.

The mix, drawn from a fixed seed so a failure can be replayed:
  exec      `exec -- sh -c ...` under the shell profile: exit 0, its output,
            and the number of fds the program inherits (must never change)
  python    `-c` under the default profile: exit 0, its output
  timeout   a sleeper with --timeout 0.1: exit 124
  refused   `-c 'import os'` under the default profile: exit 126
  sigterm   a sleeper, SIGTERM to the launcher after 0-120 ms (sometimes
            after the sandbox is seen running, to sample the launcher's fds
            and RSS mid-run): the launcher must end, promptly
  sigkill   the same with SIGKILL
  mcp       one call to a long-lived `acs-launch mcp`: execute_command,
            execute_python, or a sleeper cancelled with
            notifications/cancelled after 0-100 ms (no response allowed)

What counts as left behind, checked at the end (and the fd/RSS figures
along the way):
  process   this driver is a child subreaper: whatever a launcher leaves
            (pid 1 of a sandbox, a helper) is reparented to it and must be
            dead by the deadline; no process anywhere may carry a run's
            marker in its command line
  mount     no mount in this mount namespace that was not there before
  cgroup    no acs-run-* cgroup left in the delegated cgroup (when given)
  fd        the MCP server holds as many fds after 10N calls as after N;
            the program always sees the same count; the launcher's count
            while its program runs does not grow over the soak
  temp      nothing new in the private /tmp, /var/tmp, /dev/shm (soak.sh
            gives the driver a mount namespace of its own with empty ones)
  RSS       the MCP server's RSS after 10N calls is within SOAK_RSS_SLACK
            KiB of its RSS after N; the per-run peak RSS (VmHWM polled) of each
            kind in the last tenth of the runs is within 10% (+ slack) of
            the first tenth's
"""
import argparse
import ctypes
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time

PR_SET_CHILD_SUBREAPER = 36
KINDS = ("exec", "python", "timeout", "refused", "sigterm", "sigkill", "mcp")
WEIGHTS = (26, 10, 10, 10, 12, 12, 20)


class Soak:
    def __init__(self, a):
        self.a = a
        self.acs = a.acs
        self.label = a.label
        self.tag = f"soakmark{os.getpid()}x"
        self.rng = random.Random(a.seed)
        self.lock = threading.Lock()  # spawning vs reaping orphans
        self.known = set()
        self.orphans = 0
        self.failures = []
        self.counts = {k: 0 for k in KINDS}
        self.peaks = {k: [] for k in KINDS}  # (index, ru_maxrss KiB)
        self.launcher_fds = []  # (index, fds of the launcher while its program runs)
        self.launcher_hwm = []
        self.program_fds = set()
        self.work = a.work
        self.n_out = 0

    # ---- bookkeeping ---------------------------------------------------
    def fail(self, what, always=None):
        if always or (always is None and len(self.failures) < 20):
            print(f"# [{self.label}] FAIL: {what}", flush=True)
        self.failures.append(what)

    def spawn(self, argv, **kw):
        with self.lock:
            p = subprocess.Popen(argv, **kw)
            self.known.add(p.pid)
        return p

    @staticmethod
    def hwm(pid):
        """VmHWM (peak RSS, KiB) of a live process; 0 once it is gone."""
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return 0

    def wait(self, p, deadline_s=30.0):
        """Wait for the launcher with a deadline, polling its peak RSS as it
        runs (not wait4's ru_maxrss: a child forked from this big Python
        process starts with its RSS on record). Returns (status, KiB)."""
        end = time.monotonic() + deadline_s
        peak = 0
        while True:
            peak = max(peak, self.hwm(p.pid))
            pid, st = os.waitpid(p.pid, os.WNOHANG)
            if pid == p.pid:
                break
            if time.monotonic() > end:
                self.fail(f"launcher {p.pid} ({p.args[1:4]}) did not end within {deadline_s} s")
                os.kill(p.pid, signal.SIGKILL)
                pid, st = os.waitpid(p.pid, 0)
                break
            time.sleep(0.002)
        p.returncode = os.waitstatus_to_exitcode(st)
        with self.lock:
            self.known.discard(p.pid)
        return p.returncode, peak

    def reap_orphans(self):
        """Reap whatever was reparented to us (not a launcher we wait for)."""
        with self.lock:
            while True:
                try:
                    info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
                except ChildProcessError:
                    return
                if info is None or info.si_pid in self.known:
                    return
                os.waitpid(info.si_pid, 0)
                self.orphans += 1

    def children(self):
        """Our live (non-zombie) children that are not launchers in flight."""
        me = str(os.getpid())
        out = []
        for d in os.listdir("/proc"):
            if not d.isdigit() or int(d) in self.known:
                continue
            try:
                with open(f"/proc/{d}/stat") as f:
                    s = f.read()
            except OSError:
                continue
            fields = s[s.rindex(")") + 2:].split()
            if fields[1] == me and fields[0] != "Z":
                out.append(int(d))
        return out

    def marked(self, programs_only=False, run=None):
        """Processes anywhere whose command line carries this driver's marker
        (launchers in flight aside; programs_only: the sandboxed shells only,
        not a launcher's clone that has not exec'd yet; run: of that run
        only, not a previous run's sandbox still being torn down)."""
        hits = []
        needle = self.tag.encode() if run is None else f"{self.tag}{run}\0".encode()
        for d in os.listdir("/proc"):
            if not d.isdigit() or int(d) in self.known:
                continue
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    if needle not in f.read():
                        continue
                if programs_only:
                    with open(f"/proc/{d}/comm") as f:
                        if f.read().strip() != "sh":
                            continue
                hits.append(int(d))
            except OSError:
                pass
        return hits

    # ---- one CLI run ---------------------------------------------------
    def out_files(self):
        self.n_out += 1
        return (open(os.path.join(self.work, "o"), "w+b"), open(os.path.join(self.work, "e"), "w+b"))

    def cli(self, i, kind, args, want_rc, want_out=None):
        o, e = self.out_files()
        with o, e:
            p = self.spawn([self.acs] + args, stdin=subprocess.DEVNULL, stdout=o, stderr=e)
            rc, rss = self.wait(p)
            o.seek(0)
            e.seek(0)
            out, err = o.read().decode(errors="replace"), e.read().decode(errors="replace")
        self.peaks[kind].append((i, rss))
        if rc != want_rc:
            self.fail(f"run {i} ({kind}): exit {rc}, want {want_rc}; stderr: {err[:300]!r}")
        return out

    def sleeper(self, i):
        # the marker ends the command line of the program's shell
        return ["exec", "--profile", "shell", "-q", "--", "/bin/sh", "-c", f"sleep 30; : {self.tag}{i}"]

    def run_exec(self, i):
        out = self.cli(i, "exec", ["exec", "--profile", "shell", "-q", "--", "/bin/sh", "-c",
                                   "echo ok; ls /proc/self/fd | wc -l"], 0)
        lines = out.split()
        if len(lines) != 2 or lines[0] != "ok":
            self.fail(f"run {i} (exec): output {out[:200]!r}")
        else:
            self.program_fds.add(lines[1])

    def run_python(self, i):
        out = self.cli(i, "python", ["-q", "-c", f"print({i} * 7)"], 0)
        if out.strip() != str(i * 7):
            self.fail(f"run {i} (python): output {out[:200]!r}")

    def run_timeout(self, i):
        self.cli(i, "timeout", self.sleeper(i)[:1] + ["--timeout", "0.1"] + self.sleeper(i)[1:], 124)

    def run_refused(self, i):
        self.cli(i, "refused", ["-q", "-c", "import os\nos.system('true')"], 126)

    def run_signal(self, i, kind):
        sig = signal.SIGTERM if kind == "sigterm" else signal.SIGKILL
        o, e = self.out_files()
        with o, e:
            p = self.spawn([self.acs] + self.sleeper(i), stdin=subprocess.DEVNULL, stdout=o, stderr=e)
            if self.rng.random() < 0.3:
                # wait until the program runs: a mid-run sample of the launcher
                end = time.monotonic() + 10
                while time.monotonic() < end and not self.marked(True, i):
                    time.sleep(0.005)
                try:
                    # (an unprivileged launcher is not dumpable: its /proc/PID/fd is root's)
                    if os.access(f"/proc/{p.pid}/fd", os.R_OK):
                        self.launcher_fds.append((i, len(os.listdir(f"/proc/{p.pid}/fd"))))
                    self.launcher_hwm.append((i, self.hwm(p.pid)))
                except OSError as ex:
                    self.fail(f"run {i} ({kind}): cannot sample the launcher mid-run: {ex}")
            else:
                time.sleep(self.rng.random() * 0.12)
            os.kill(p.pid, sig)  # not Popen.send_signal: it polls (reaps) first
            rc, rss = self.wait(p, 10.0)
        self.peaks[kind].append((i, rss))
        want = (-signal.SIGKILL,) if sig == signal.SIGKILL else (-signal.SIGTERM, 143, 125)
        if rc not in want:
            self.fail(f"run {i} ({kind}): exit {rc}, want one of {want}")

    # ---- the MCP server --------------------------------------------------
    def mcp_start(self):
        self.mcp = self.spawn([self.acs, "mcp", "--allow-profile", "unsafe-python"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.responses = {}
        self.cv = threading.Condition()
        self.reader = threading.Thread(target=self.mcp_read, daemon=True)
        self.reader.start()
        self.mcp_calls = 0
        self.mcp_id = 0
        self.mcp_cancelled = []
        self.mcp_samples = {}
        r = self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                        "clientInfo": {"name": "soak", "version": "1"}})
        if "result" not in r:
            self.fail(f"mcp initialize: {r}")
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def mcp_read(self):
        for line in self.mcp.stdout:
            try:
                m = json.loads(line)
            except ValueError:
                self.fail(f"mcp: not JSON: {line[:200]!r}")
                continue
            with self.cv:
                self.responses[m.get("id")] = m
                self.cv.notify_all()

    def send(self, m):
        self.mcp.stdin.write((json.dumps(m) + "\n").encode())
        self.mcp.stdin.flush()

    def request(self, method, params, timeout=30.0):
        self.mcp_id += 1
        rid = self.mcp_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        with self.cv:
            if not self.cv.wait_for(lambda: rid in self.responses, timeout):
                self.fail(f"mcp: no response to {method} #{rid} within {timeout} s")
                return {}
            return self.responses.pop(rid)

    def mcp_sample(self):
        pid = self.mcp.pid
        with open(f"/proc/{pid}/status") as f:
            rss = next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))
        return rss, len(os.listdir(f"/proc/{pid}/fd"))

    def run_mcp(self, i):
        r = self.rng.random()
        self.mcp_calls += 1
        if r < 0.25:
            self.mcp_id += 1
            rid = self.mcp_id
            self.send({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                       "params": {"name": "execute_command",
                                  "arguments": {"command": f"sleep 30; : {self.tag}{i}", "timeout": 60}}})
            time.sleep(self.rng.random() * 0.1)
            self.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                       "params": {"requestId": rid, "reason": "soak"}})
            self.mcp_cancelled.append(rid)
        elif r < 0.6:
            m = self.request("tools/call", {"name": "execute_python",
                                            "arguments": {"code": f"print({i} + 1)", "profile": "unsafe-python"}})
            text = (m.get("result") or {}).get("structuredContent", {}).get("stdout", {}).get("text")
            if text != f"{i + 1}\n":
                self.fail(f"run {i} (mcp execute_python): {json.dumps(m)[:300]}")
        else:
            m = self.request("tools/call", {"name": "execute_command", "arguments": {"command": f"echo {i}"}})
            text = (m.get("result") or {}).get("structuredContent", {}).get("stdout", {}).get("text")
            if text != f"{i}\n":
                self.fail(f"run {i} (mcp execute_command): {json.dumps(m)[:300]}")
        # the server's RSS and fds after N and after 10N calls (N = a tenth of them)
        n = self.a.mcp_n
        if self.mcp_calls in (n, 10 * n):
            self.mcp_quiesce()
            self.mcp_samples[self.mcp_calls] = self.mcp_sample()

    def server_busy(self):
        """Has the MCP server a worker (a child) still?"""
        try:
            with open(f"/proc/{self.mcp.pid}/task/{self.mcp.pid}/children") as f:
                return bool(f.read().split())
        except OSError:
            return False

    def mcp_quiesce(self):
        """Wait until no cancelled call's sandbox or worker is alive."""
        end = time.monotonic() + 15
        while time.monotonic() < end and (self.marked() or self.server_busy()):
            time.sleep(0.01)
        self.request("ping", {})
        time.sleep(0.05)

    def mcp_stop(self):
        self.mcp_quiesce()
        with self.cv:
            late = [rid for rid in self.mcp_cancelled if rid in self.responses]
        if late:
            self.fail(f"mcp: {len(late)} cancelled calls got a response (e.g. #{late[0]})")
        self.mcp.stdin.close()
        rc, _ = self.wait(self.mcp, 30.0)
        if rc != 0:
            self.fail(f"mcp server exited {rc} on EOF")
        self.reader.join(5)

    # ---- the whole soak --------------------------------------------------
    def snapshot(self):
        with open("/proc/self/mountinfo") as f:
            mounts = {" ".join(l.split()[3:]) for l in f}
        temps = set()
        for d in self.a.temp_dirs:
            try:
                temps |= {os.path.join(d, n) for n in os.listdir(d)}
            except OSError:
                pass
        return mounts, temps

    def cgroups(self):
        if not self.a.cgroup:
            return []
        return sorted(n for n in os.listdir(self.a.cgroup) if n.startswith("acs-run-"))

    def main(self):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            sys.exit("soak: cannot become a child subreaper")
        os.chdir(self.work)  # the runs' workspace
        mounts0, temps0 = self.snapshot()
        t0 = time.monotonic()
        self.mcp_start()
        plan = self.rng.choices(KINDS, WEIGHTS, k=self.a.runs)
        self.a.mcp_n = max(1, plan.count("mcp") // 10)
        for i, kind in enumerate(plan):
            {"exec": self.run_exec, "python": self.run_python, "timeout": self.run_timeout,
             "refused": self.run_refused, "mcp": self.run_mcp}.get(
                kind, lambda i, k=kind: self.run_signal(i, k))(i)
            self.counts[kind] += 1
            if i % 50 == 0:
                self.reap_orphans()
            if i and i % 1000 == 0:
                print(f"# [{self.label}] {i} runs, {time.monotonic() - t0:.0f} s", flush=True)
        self.mcp_stop()
        # a last plain run sweeps the cgroup of a SIGKILLed launcher (cgroup.c)
        self.run_exec(len(plan))
        elapsed = time.monotonic() - t0
        self.check_leftovers(mounts0, temps0)
        self.check_growth()
        self.summary(elapsed)
        return 1 if self.failures else 0

    def check_leftovers(self, mounts0, temps0):
        end = time.monotonic() + 10
        while True:
            self.reap_orphans()
            kids, marked = self.children(), self.marked()
            mounts, temps = self.snapshot()
            cg = self.cgroups()
            if not (kids or marked or mounts - mounts0 or temps - temps0 or cg) or time.monotonic() > end:
                break
            time.sleep(0.1)

        def cmd(pid):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    return f.read().replace(b"\0", b" ").decode(errors="replace")[:120]
            except OSError:
                return "?"
        # the first 5 of each kind printed, all counted
        for n, pid in enumerate(kids):
            self.fail(f"process left behind (reparented to the driver): {pid} {cmd(pid)}", n < 5)
        for n, pid in enumerate(marked):
            self.fail(f"process of a run left behind: {pid} {cmd(pid)}", n < 5)
        for n, m in enumerate(sorted(mounts - mounts0)):
            self.fail(f"mount left behind: {m}", n < 5)
        for n, t in enumerate(sorted(temps - temps0)):
            self.fail(f"temporary file or directory left behind: {t}", n < 5)
        for n, c in enumerate(cg):
            self.fail(f"cgroup left behind: {self.a.cgroup}/{c}", n < 5)
        self.leftover_figures = (len(kids) + len(marked), len(mounts - mounts0), len(cg), len(temps - temps0))

    def check_growth(self):
        slack = self.a.rss_slack
        s = self.mcp_samples
        n = self.a.mcp_n
        if n in s and 10 * n in s:
            (r1, f1), (r2, f2) = s[n], s[10 * n]
            if r2 > r1 + slack:
                self.fail(f"MCP server RSS grew: {r1} KiB after {n} calls, {r2} KiB after {10 * n}", True)
            if f2 != f1:
                self.fail(f"MCP server fds changed: {f1} after {n} calls, {f2} after {10 * n}", True)
        elif self.counts["mcp"] >= 10:
            self.fail(f"MCP server not sampled at {n} and {10 * n} calls", True)
        # a one-shot launcher's count depends on how far its supervision has
        # got when the program is first seen (12 or 14 here); what must not
        # happen is a count that grows over the soak
        lf = self.launcher_fds
        if len(lf) >= 20:
            k = max(1, len(lf) // 10)
            first, last = max(n for _, n in lf[:k]), max(n for _, n in lf[-k:])
            if last > first:
                self.fail(f"the launcher's fds mid-run grew: at most {first} in the first tenth of the "
                          f"samples, {last} in the last", True)
        if len(self.program_fds) > 1:
            self.fail(f"the program's inherited fd count varied: {sorted(self.program_fds)}", True)
        self.growth = {}
        series = dict(self.peaks)
        series["launcher-hwm"] = self.launcher_hwm
        for kind, v in series.items():
            v = [(i, r) for i, r in v if r]  # 0: ended before the first poll
            if len(v) < 20:
                continue
            k = max(1, len(v) // 10)
            first = sorted(r for _, r in v[:k])[k // 2]
            last = sorted(r for _, r in v[-k:])[k // 2]
            self.growth[kind] = (first, last)
            if last > first * 1.10 + slack:
                self.fail(f"per-run peak RSS of {kind} runs grew: median {first} KiB in the first tenth, "
                          f"{last} KiB in the last", True)

    def summary(self, elapsed):
        L = self.label
        print(f"# [{L}] {sum(self.counts.values())} runs in {elapsed:.0f} s "
              f"({sum(self.counts.values()) / elapsed:.1f}/s): "
              + ", ".join(f"{k} {v}" for k, v in self.counts.items()), flush=True)
        print(f"# [{L}] reparented to the driver and reaped: {self.orphans}; left behind: "
              "processes %d, mounts %d, cgroups %d, temp entries %d" % self.leftover_figures)
        s = self.mcp_samples
        for n in sorted(s):
            print(f"# [{L}] MCP server after {n} calls: RSS {s[n][0]} KiB, {s[n][1]} fds")
        print(f"# [{L}] launcher fds mid-run: {sorted({n for _, n in self.launcher_fds})} "
              f"({len(self.launcher_fds)} samples); "
              f"program's fds: {sorted(self.program_fds)}")
        for kind, (a, b) in self.growth.items():
            print(f"# [{L}] peak RSS {kind}: median {a} KiB (first tenth) -> {b} KiB (last tenth)")
        print(f"{'not ok' if self.failures else 'ok'} - [{L}] soak: {len(self.failures)} failures", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--acs", required=True)
    ap.add_argument("--runs", type=int, default=10000)
    ap.add_argument("--label", default=str(os.getuid()))
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--work", required=True)
    ap.add_argument("--cgroup", default="")
    ap.add_argument("--temp-dirs", default="/tmp,/var/tmp,/dev/shm")
    ap.add_argument("--rss-slack", type=int, default=int(os.environ.get("SOAK_RSS_SLACK", "256")))
    a = ap.parse_args()
    a.temp_dirs = [d for d in a.temp_dirs.split(",") if d]
    return Soak(a).main()


if __name__ == "__main__":
    sys.exit(main())
