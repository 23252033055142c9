# SPDX-License-Identifier: LGPL-2.1-or-later
"""The pool of ready sandboxes and acs-launch serve (issue 14, item 8), as TAP.

Usage: pool.py ACS TMPDIR. Runs as root and as nobody (tests/both-users.sh).
Each check names what it asserts; every isolation check has a positive
control (the probing call ran and printed its marker), so a pool that
fails to run code cannot pass.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time

ACS, TMP = sys.argv[1], sys.argv[2]
N = 0
FAILED = 0


def ok(cond, desc, diag=None):
    global N, FAILED
    N += 1
    if cond:
        print(f"ok {N} - {desc}")
    else:
        FAILED += 1
        print(f"not ok {N} - {desc}")
        if diag is not None:
            for line in str(diag)[:3000].splitlines():
                print("# " + line)
    sys.stdout.flush()


# A profile that scans (the pool needs the in-sandbox scan) but lets the
# probes import os: the default's sandbox with [scan] mode = warn.
PROFILE = os.path.join(TMP, "pool-probe.ini")
with open(PROFILE, "w") as f:
    f.write("[profile]\ndescription = pool probes\ninherit = default\n\n[scan]\nmode = warn\n")


def children(pid):
    """Every descendant of pid, from /proc (the host's view)."""
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                st = f.read()
        except OSError:
            continue
        ppid = int(st[st.rindex(")") + 2:].split()[1])
        kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for c in kids.get(p, []):
            out.append(c)
            todo.append(c)
    return out


def status(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return dict(l.rstrip("\n").split(":\t", 1) for l in f if ":\t" in l)
    except OSError:
        return None


def in_sandbox(pid):
    """A process in another pid namespace than ours: a sandbox's."""
    try:
        return os.readlink(f"/proc/{pid}/ns/pid") != os.readlink("/proc/self/ns/pid")
    except OSError:
        return False


def sandboxed(pid):
    return [p for p in children(pid) if in_sandbox(p)]


def wait_for(pred, secs=20.0):
    end = time.time() + secs
    while time.time() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.05)
    return pred()


class Client:
    def __init__(self, rfile, wfile):
        self.r, self.w, self.n = rfile, wfile, 0

    def req(self, method, params):
        self.n += 1
        self.w.write((json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params}) + "\n").encode())
        self.w.flush()
        while True:
            line = self.r.readline()
            if not line:
                return None
            m = json.loads(line)
            if m.get("id") == self.n:
                return m

    def init(self):
        return self.req("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                       "clientInfo": {"name": "pool-test", "version": "1"}})

    def py(self, code, **args):
        m = self.req("tools/call", {"name": "execute_python", "arguments": {"code": code, **args}})
        return (m or {}).get("result", {}).get("structuredContent") or {}


def start_mcp(*extra):
    p = subprocess.Popen([ACS, "mcp", "--profile", PROFILE, *extra], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=open(os.path.join(TMP, "mcp.err"), "ab"))
    c = Client(p.stdout, p.stdin)
    c.init()
    return p, c


def out(rep):
    return (rep.get("stdout") or {}).get("text", "")


def pool_ready(pid, n):
    """n pooled interpreters waiting: sandboxed python processes under pid."""
    return wait_for(lambda: len([p for p in sandboxed(pid) if "python" in (status(p) or {}).get("Name", "")]) >= n)


# ---- 1. every pooled process is confined before any code arrives ----------
p, c = start_mcp("--pool", "2")
ok(pool_ready(p.pid, 2), "two pooled interpreters wait before any call")
procs = sandboxed(p.pid)
bad = [(q, (status(q) or {}).get("Name"), (status(q) or {}).get("Seccomp"), (status(q) or {}).get("NoNewPrivs"))
       for q in procs if status(q) and (status(q).get("Seccomp") != "2" or status(q).get("NoNewPrivs") != "1")]
ok(len(procs) >= 4 and not bad, "every pooled process, pid 1 included, has Seccomp 2 and NoNewPrivs 1",
   f"processes {procs}; not confined: {bad}")
caps = [q for q in procs if status(q) and status(q).get("CapEff") != "0000000000000000"]
ok(not caps, "no pooled process has an effective capability", caps)
ok(all(os.readlink(f"/proc/{q}/ns/net") != os.readlink("/proc/self/ns/net") for q in procs if status(q)),
   "pooled processes are in their own network namespace")

# ---- 2. a call sees nothing of the previous call --------------------------
waiting = [q for q in sandboxed(p.pid) if "python" in (status(q) or {}).get("Name", "")]
r1 = c.py("import os\nsecret_global = 'G-1'\nopen('/workspace/left.txt','w').write('F-1')\n"
          "open('/tmp/left.txt','w').write('T-1')\nprint('WROTE')")
ok(out(r1) == "WROTE\n", "call 1 ran in a pooled sandbox and wrote its files", r1)
ok(any(not status(q) for q in waiting), "call 1 was served by one of the interpreters that waited", waiting)
r2 = c.py("import os\nprint('G', 'secret_global' in globals())\nprint('W', os.path.exists('/workspace/left.txt'))\n"
          "print('T', os.path.exists('/tmp/left.txt'))\nprint('END')")
ok(out(r2).endswith("END\n"), "call 2 ran", r2)
ok("G False" in out(r2), "call 2 does not see call 1's globals", out(r2))
ok("W False" in out(r2), "call 2 does not see call 1's workspace files", out(r2))
ok("T False" in out(r2), "call 2 does not see call 1's /tmp", out(r2))
ok([a.get("path") for a in (r1.get("files") or {}).get("added", [])] == ["left.txt"],
   "call 1's report lists its own file as a cold run does", r1.get("files"))

# ---- 3. a timeout counts from the hand-over; the pool is refilled ----------
time.sleep(0.3)
r = c.py("import time\ntime.sleep(30)", timeout=1)
ok(r.get("status") == "timeout" and r.get("exit_code") == 124, "a pooled call that runs too long times out", r)
r = c.py("print('after-timeout')")
ok(out(r) == "after-timeout\n", "the next call runs after a timed-out one", r)

# ---- 4. a crashed pooled sandbox is replaced ------------------------------
ok(pool_ready(p.pid, 2), "the pool is refilled to two after the calls")
victims = [q for q in sandboxed(p.pid) if "python" in (status(q) or {}).get("Name", "")]
for q in victims:
    try:
        os.kill(q, signal.SIGKILL)
    except OSError:
        pass
ok(wait_for(lambda: not any(status(q) for q in victims)), "the killed pooled interpreters are gone")
ok(pool_ready(p.pid, 2) and not set(victims) & set(sandboxed(p.pid)),
   "new pooled sandboxes replace the killed ones", (victims, sandboxed(p.pid)))
r = c.py("print('after-crash')")
ok(out(r) == "after-crash\n" and r.get("status") == "exited", "a call after the crash runs normally", r)

# ---- 5. nothing is left after EOF, SIGTERM, SIGKILL ------------------------
def tmp_dirs():
    # as sec-lib.sh's acs_tmp_dirs; acs-pytest.* are tests/python's, which make check may run alongside
    return sorted(d for d in os.listdir("/tmp") if d.startswith(("acs-", ".acs-"))
                  and not d.startswith(("acs-test.", "acs-stage.", "acs-bench-", "acs-pytest.")))


def host_mounts():
    with open("/proc/self/mountinfo") as f:
        return sorted(l for l in f if any(w in l for w in ("acs", "workspace", "overlay")))


dirs_before, mounts_before = tmp_dirs(), host_mounts()
def leftovers(pids):
    return [q for q in pids if status(q)]


def fds(pid):
    return sorted(os.listdir(f"/proc/{pid}/fd"))


pool_ready(p.pid, 2)
time.sleep(0.5)
fd_before = len(fds(p.pid))
for i in range(3):
    c.py("print(1)")
pool_ready(p.pid, 2)
ok(wait_for(lambda: len(fds(p.pid)) <= fd_before, 5), "the server holds no more fds after calls than before",
   (fd_before, fds(p.pid)))

tree = children(p.pid)
p.stdin.close()
p.wait(timeout=30)
ok(p.returncode == 0, "mcp exits 0 at EOF with a pool")
ok(wait_for(lambda: not leftovers(tree), 10), "EOF: no pooled process is left", leftovers(tree))

for how in (signal.SIGTERM, signal.SIGKILL):
    p, c = start_mcp("--pool", "2")
    pool_ready(p.pid, 2)
    tree = children(p.pid)
    os.kill(p.pid, how)
    p.wait(timeout=30)
    ok(wait_for(lambda: not leftovers(tree), 10), f"{how.name} to mcp: no pooled process is left", leftovers(tree))

ok(wait_for(lambda: set(tmp_dirs()) <= set(dirs_before), 5), "no temporary directory is left",
   set(tmp_dirs()) - set(dirs_before))
ok(host_mounts() == mounts_before, "no mount is left in the caller's namespace",
   set(host_mounts()) - set(mounts_before))

# ---- 5b. a profile without the scan keeps no pool and still runs ----------
p = subprocess.Popen([ACS, "mcp", "--profile", "unsafe-python", "--pool", "2"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=open(os.path.join(TMP, "mcp.err"), "ab"))
c = Client(p.stdout, p.stdin)
c.init()
time.sleep(1)
ok(not sandboxed(p.pid), "a server whose profile does not scan keeps no pooled sandbox", sandboxed(p.pid))
r = c.py("import os\nprint('cold-' + os.name)")
ok(out(r) == "cold-posix\n", "... and runs its calls cold", r)
p.stdin.close()
p.wait(timeout=30)

# ---- 5c. per-profile pools ----------------------------------------------
r = subprocess.run([ACS, "mcp", "--profile", PROFILE, "--pool-profile", "pure-math"], stdin=subprocess.DEVNULL,
                   capture_output=True, text=True, timeout=30)
ok(r.returncode == 125 and "--pool-profile pure-math" in r.stderr and "--allow-profile" in r.stderr,
   "--pool-profile of a profile clients may not use: exit 125, naming the option", (r.returncode, r.stderr))
p, c = start_mcp("--pool", "1", "--allow-profile", "pure-math", "--pool-profile", "pure-math")
ok(pool_ready(p.pid, 2), "one pooled interpreter for the server's profile and one for pure-math")
waiting = [q for q in sandboxed(p.pid) if "python" in (status(q) or {}).get("Name", "")]
r = c.py("print(6 * 7)", profile="pure-math")
ok(out(r) == "42\n" and r.get("profile") == "pure-math", "a pure-math call runs under pure-math", r)
ok(len([q for q in waiting if not status(q)]) == 1, "... served by one of the waiting interpreters", waiting)
r = c.py("import math\nprint('default-pool')")
ok(out(r) == "default-pool\n" and r.get("profile") == "pool-probe", "a call with the server's profile runs under it", r)
p.stdin.close()
p.wait(timeout=30)

# ---- 5d. sessions ----------------------------------------------------------
p, c = start_mcp("--pool", "0", "--max-sessions", "2", "--session-idle", "2", "--max-tokens", "200")
r = c.py("x = 41\nopen('/workspace/s.txt', 'w').write('S')\nopen('/tmp/s.txt', 'w').write('T')\nprint('one')",
         session="A")
ok(out(r) == "one\n", "session A: call 1 runs", r)
ok([f.get("path") for f in (r.get("files") or {}).get("added", [])] == ["s.txt"], "session A: call 1 reports its file", r.get("files"))
r = c.py("print(x + 1, open('/workspace/s.txt').read(), open('/tmp/s.txt').read())", session="A")
ok(out(r) == "42 S T\n", "session A: call 2 sees call 1's globals, workspace and /tmp", r)
sess = [q for q in sandboxed(p.pid) if status(q)]
bad = [q for q in sess if status(q).get("Seccomp") != "2" or status(q).get("NoNewPrivs") != "1"]
ok(sess and not bad, "every process of a session has Seccomp 2 and NoNewPrivs 1", (sess, bad))
r = c.py("import os\nprint('x' in dir(), os.path.exists('/workspace/s.txt'), os.path.exists('/tmp/s.txt'), 'B')",
         session="B")
ok(out(r) == "False False False B\n", "session B sees none of session A's globals, workspace or /tmp", r)
r = c.py("print('x' in dir())")
ok(out(r) == "False\n", "a call without a session sees none of session A", r)
m = c.req("tools/call", {"name": "execute_python", "arguments": {"code": "print(1)", "session": "C"}})
ok(m.get("result", {}).get("isError") is True and "max-sessions" in json.dumps(m),
   "a third session is refused by --max-sessions 2 (a tool error)", m)
r = c.py("for i in range(20000): print('line', i)", session="A")
ok((r.get("stdout") or {}).get("truncated") is True and r.get("status") == "exited",
   "a session call's output is clipped to the budget", r.get("stdout"))
r = c.py("print(x)", session="A")
ok(out(r) == "41\n", "the session lives on after a clipped call", r)
before = set(sandboxed(p.pid))
m = c.req("tools/call", {"name": "close_session", "arguments": {"session": "A"}})
ok((m or {}).get("result", {}).get("structuredContent", {}).get("closed") is True, "close_session answers", m)
ok(wait_for(lambda: len(before - set(sandboxed(p.pid))) >= 2, 10), "close_session ends the session's sandbox",
   (before, sandboxed(p.pid)))
r = c.py("print('x' in dir())", session="A")
ok(out(r) == "False\n", "the same id after close_session is a new, empty session", r)
time.sleep(3.5)
c.py("print(1)")  # the server ends idle sessions as it runs
ok(wait_for(lambda: not [q for q in sandboxed(p.pid) if "python" in (status(q) or {}).get("Name", "")], 10),
   "--session-idle 2: idle sessions are ended", sandboxed(p.pid))
r = c.py("x = 1\nwhile True: pass", session="T", timeout=1)
ok(r.get("status") == "timeout", "a session call that runs too long times out", r)
m = c.req("tools/call", {"name": "execute_python", "arguments": {"code": "print(x)", "session": "T"}})
ok(m.get("result", {}).get("isError") is True and "ended" in json.dumps(m), "... and its session has ended", m)
c.py("y = 2", session="L")
tree = children(p.pid)
p.stdin.close()
p.wait(timeout=30)
ok(wait_for(lambda: not leftovers(tree), 10), "EOF with a session open: no process is left", leftovers(tree))

# ---- 6. serve: socket mode 0600, same protocol, dies with everything -------
sock = os.path.join(TMP, "serve.sock")
sp = subprocess.Popen([ACS, "serve", "--socket", sock, "--profile", PROFILE, "--pool", "1"],
                      stderr=open(os.path.join(TMP, "serve.err"), "ab"))
ok(wait_for(lambda: os.path.exists(sock)), "serve creates its socket")
st = os.stat(sock)
ok(oct(st.st_mode & 0o777) == "0o600" and st.st_uid == os.geteuid(), "the socket is mode 0600, ours",
   oct(st.st_mode))
ok(pool_ready(sp.pid, 1), "serve has a pooled sandbox ready before any client")
procs = sandboxed(sp.pid)
bad = [q for q in procs if status(q) and (status(q).get("Seccomp") != "2" or status(q).get("NoNewPrivs") != "1")]
ok(procs and not bad, "serve's pooled processes have Seccomp 2 and NoNewPrivs 1", bad)


def sock_client():
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    cl = Client(s.makefile("rb"), s.makefile("wb"))
    cl.init()
    return s, cl


s1, c1 = sock_client()
r = c1.py("x = 41\nprint('first')")
ok(out(r) == "first\n", "serve runs a call over the socket", r)
r = c1.py("print('x' in globals())")
ok(out(r) == "False\n", "serve: without a session, the next call does not see the previous one's globals", r)
s2, c2 = sock_client()
r = c2.py("print('second-client')")
ok(out(r) == "second-client\n", "a second client is served on its own connection", r)
r = c1.py("z = 'conn-1'\nprint(z)", session="same-id")
ok(out(r) == "conn-1\n", "serve: a session on connection 1", r)
r = c2.py("print('z' in dir())", session="same-id")
ok(out(r) == "False\n", "serve: the same session id on connection 2 is another session", r)
s1.close()
s2.close()
ok(pool_ready(sp.pid, 1), "serve keeps a pooled sandbox for the next client")
tree = children(sp.pid)
os.kill(sp.pid, signal.SIGTERM)
sp.wait(timeout=30)
ok(sp.returncode == 0 and not os.path.exists(sock), "SIGTERM: serve exits 0 and removes its socket")
ok(wait_for(lambda: not leftovers(tree), 10), "SIGTERM to serve: no process is left", leftovers(tree))

sp = subprocess.Popen([ACS, "serve", "--socket", sock, "--profile", PROFILE, "--pool", "1"],
                      stderr=open(os.path.join(TMP, "serve.err"), "ab"))
pool_ready(sp.pid, 1)
s3, c3 = sock_client()
c3.py("print(1)")
tree = children(sp.pid)
os.kill(sp.pid, signal.SIGKILL)
sp.wait(timeout=30)
ok(wait_for(lambda: not leftovers(tree), 10), "SIGKILL to serve: no process is left", leftovers(tree))
s3.close()

print(f"1..{N}")
sys.exit(1 if FAILED else 0)
