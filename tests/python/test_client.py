# SPDX-License-Identifier: LGPL-2.1-or-later
"""Tests of the Python client against the real acs-launch ($ACS_LAUNCH).

Every test runs real sandboxes; nothing is mocked.  TAP on stdout.
"""

import asyncio
import contextlib
import io
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import check, eq, main, raises, test  # noqa: E402

import acs_launch  # noqa: E402
from acs_launch import (ApplyError, AsyncLauncher, CodeSandbox, Launcher, LauncherError,  # noqa: E402
                        LauncherNotFound, ProfileNotFound, Result, Sandbox, SandboxConfig,
                        SandboxEngine, ASTSecurityScanner, Status, Verdict, read_kept)
from acs_launch.session import ServeClient  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ACS = os.environ["ACS_LAUNCH"]
TMP = tempfile.mkdtemp(prefix="acs-pytest.")
os.chmod(TMP, 0o755)


def tmpdir(name: str) -> str:
    d = os.path.join(TMP, name)
    os.mkdir(d, 0o755)
    return d


def run_seed(name: str) -> "tuple[str, dict]":
    """Execute a seed example file; return what it printed and its globals."""
    path = os.path.join(HERE, "seeds", name)
    g: dict = {"__name__": "__main__"}
    out = io.StringIO()
    with open(path) as f, contextlib.redirect_stdout(out):
        exec(compile(f.read(), path, "exec"), g)
    return out.getvalue(), g


# --- the seed documents' examples -------------------------------------------

@test
def seed_codesandbox() -> None:
    """seed 000: CodeSandbox(SandboxConfig(...)) runs the factorials and refuses import os"""
    out, g = run_seed("seed_000_codesandbox.py")
    check("Output: Calculated factorials: [1, 1, 2, 6, 24, 120, 720, 5040, 40320, 362880]\n" in out, out)
    check("Security Verdict: FORBIDDEN_IMPORT_DETECTED: os\n" in out, out)
    eq(g["exec_result"].status, Status.EXITED, "safe run")
    eq(g["blocked_result"].status, Status.REJECTED, "malicious run")
    eq(g["blocked_result"].report["limits"]["timeout_s"], 5, "timeout_seconds=5.0 reached the launcher")


@test
def seed_engine() -> None:
    """seed 002: SandboxEngine: stdout, diff.added_files, execution_time_ms, is_safe, stderr"""
    out, g = run_seed("seed_002_engine.py")
    r, bad = g["result"], g["bad_result"]
    eq(r.stdout, "Calculated: 12.0\n", "stdout")
    eq(r.diff.added_files, ["result.txt"], "added_files")
    eq(r.diff.modified_files, [], "modified_files")
    eq(r.diff.deleted_files, [], "deleted_files")
    check(isinstance(r.execution_time_ms, float) and r.execution_time_ms > 0, "execution_time_ms")
    eq(r.report["limits"]["timeout_s"], 3, "timeout=3.0 reached the launcher")
    eq(bad.is_safe, False, "is_safe")
    check(bad.stderr.startswith("SecurityViolationError: ") and "'os'" in bad.stderr, bad.stderr)
    check(out.startswith("Calculated: 12.0\n\n['result.txt']\n"), out)
    check("\nFalse\nSecurityViolationError: " in out, out)


@test
def seed_quickstart() -> None:
    """seed 003: EphemeralASTSandbox.execute(code)"""
    out, g = run_seed("seed_003_quickstart.py")
    check(out.startswith("Executed in ") and
          "ms. Output: Calculated roots: [0.0, 1.0, 1.4142135623730951]\n" in out, out)


@test
def seed_scanner_and_command() -> None:
    """seed API: ASTSecurityScanner, execute_command, inspect_code_security, allow_unsafe_ast, result.report"""
    s = ASTSecurityScanner()
    bad = s.scan("import subprocess\nsubprocess.run(['id'])")
    eq(bad.is_safe, False, "subprocess refused")
    eq(bad.security_rejection_reason, "FORBIDDEN_IMPORT_DETECTED: subprocess", "reason")
    eq(bad.findings[0].line, 1, "finding line")
    check(s.is_safe("import math\nprint(math.pi)"), "math passes")
    eq(ASTSecurityScanner(profile="pure-math").is_safe("import csv"), False, "pure-math refuses csv")
    e = SandboxEngine()
    c = e.execute_command("echo out; echo data > f.txt; echo err >&2", timeout=5)
    eq((c.stdout, c.stderr, c.diff.added_files), ("out\n", "err\n", ["f.txt"]), "execute_command")
    eq(c.report["profile"], "shell", "execute_command runs under the shell profile")
    u = e.execute_python("import os\nprint(os.path.basename('/a/b'))", allow_unsafe_ast=True)
    eq((u.status, u.stdout, u.report["scan"]["verdict"]), (Status.EXITED, "b\n", "skipped"), "allow_unsafe_ast")
    eq(e.inspect_code_security("eval('1')").findings[0].rule, "denied-builtin", "inspect_code_security")
    eq(u.report["schema"], "acs-report/1", "result.report is the JSON report")
    raises(ValueError, lambda: CodeSandbox(config=SandboxConfig(allow_network=True)), "allow_network=True")


@test
def seed_sandbox_e2b() -> None:
    """E2B-style Sandbox().run_code(): files persist between calls (fallback session)"""
    with Sandbox() as sbx:
        sbx.run_code("open('state.txt', 'w').write('7')")
        r = sbx.run_code("print(int(open('state.txt').read()) * 6)")
        eq(r.stdout, "42\n", "second call reads the first call's file")


# --- the native API -----------------------------------------------------------

@test
def native_statuses() -> None:
    """native: exit status and report status as enum; program failures are results, not exceptions"""
    L = Launcher()
    r = L.run("print(6 * 7)")
    eq((r.stdout, r.status, r.exit_code, r.ok, r.verdict), ("42\n", Status.EXITED, 0, True, Verdict.PASS), "ok run")
    r = L.run("raise SystemExit(3)")
    eq((r.status, r.exit_code, r.ok), (Status.EXITED, 3, False), "exit 3")
    r = L.run("1/0")
    check(r.exit_code == 1 and "ZeroDivisionError" in r.stderr, r.stderr)
    r = L.run("while True:\n    pass", timeout=0.5)
    eq((r.status, r.exit_code), (Status.TIMEOUT, 124), "timeout")
    r = L.run("import os", profile="default")
    eq((r.status, r.exit_code, r.is_safe), (Status.REJECTED, 126, False), "rejected")
    r = L.exec(["/nonexistent-command"])
    eq((r.status, r.exit_code), (Status.ERROR, 127), "command not found is a result (127)")


@test
def native_findings() -> None:
    """native: findings as objects (rule, name, line, col, message)"""
    r = Launcher().run("x = 1\nimport socket\n")
    f = r.findings[0]
    eq((f.rule, f.name, f.line, f.col, f.code), ("forbidden-import", "socket", 2, 0, "FORBIDDEN_IMPORT_DETECTED"),
       "finding")
    check("socket" in f.message, f.message)
    c = Launcher().check("x = 2\neval('1')\n")
    eq((c.verdict, c.findings[0].rule, c.findings[0].name, c.findings[0].line), (Verdict.REJECT, "denied-builtin", "eval", 2),
       "check")
    p = os.path.join(tmpdir("check"), "ok.py")
    with open(p, "w") as fh:
        fh.write("import math\n")
    eq(Launcher().check(path=p).verdict, Verdict.PASS, "check a file")


@test
def native_profiles() -> None:
    """native: profiles listed, one shown, one used"""
    L = Launcher()
    names = [p.name for p in L.profiles()]
    check({"default", "pure-math", "shell", "unsafe-python"} <= set(names), names)
    eq(L.profile("pure-math")["name"], "pure-math", "profiles --show")
    r = Launcher(profile="pure-math").run("import csv")
    eq((r.status, r.report["profile"]), (Status.REJECTED, "pure-math"), "profile default of a Launcher")
    eq(L.run("import csv", profile="default").status, Status.EXITED, "overridden per call")


@test
def native_limits() -> None:
    """native: limits (memory, max_tokens, processes) reach the report"""
    L = Launcher()
    r = L.run("print('x' * 100000)", max_tokens=50)
    s = r.stdout_stream
    check(s.truncated and len(r.stdout) < 1000 and s.bytes == 100001, s)
    r = L.run("print(1)", memory="64M", processes=8, cpu=2, timeout=3)
    lim = r.report["limits"]
    eq((lim["memory"], lim["processes"], lim["cpu_s"], lim["timeout_s"]), (64 << 20, 8, 2, 3), "limits")
    r = L.run("b = bytearray(200 << 20)", memory="32M")
    check(r.status in (Status.MEMORY, Status.EXITED) and r.exit_code != 0, (r.status, r.exit_code, r.stderr))


@test
def native_stdin() -> None:
    """native: stdin is piped to the program; without it the program reads nothing"""
    L = Launcher()
    eq(L.run("print(open(0).read().upper())", stdin="hello\n").stdout, "HELLO\n\n", "stdin text")
    eq(L.run("print(len(open(0, 'rb').read()))", stdin=b"\x00\x01").stdout, "2\n", "stdin bytes")
    eq(L.run("print(repr(open(0).read()))").stdout, "''\n", "no stdin: /dev/null")


@test
def native_files_in_out() -> None:
    """native: files in (fresh workspace) and files out (through a temporary --keep layer)"""
    before = set(os.listdir(tempfile.gettempdir()))
    r = Launcher().run("open('out/res.csv', 'w').write(open('in.csv').read().upper())\n"
                       "open('in.csv', 'a').write('c,d\\n')",
                       files={"in.csv": "a,b\n", "out/.keep": b""}, outputs=True)
    eq(r.status, Status.EXITED, r.stderr)
    eq(r.output_files, {"in.csv": b"a,b\nc,d\n", "out/res.csv": b"A,B\n"}, "output_files")
    eq((r.diff.added_files, r.diff.modified_files), (["out/res.csv"], ["in.csv"]), "diff")
    leftovers = [d for d in set(os.listdir(tempfile.gettempdir())) - before if d.startswith("acs-py.")]
    eq(leftovers, [], "temporary workspace and keep layer removed")
    raises(ValueError, lambda: Launcher().run("1", files={"../x": "y"}), "files outside the workspace")


@test
def native_workspace_apply() -> None:
    """native: workspace without apply leaves the host alone; apply=True writes back; patch=True"""
    ws = tmpdir("ws")
    with open(os.path.join(ws, "a.txt"), "w") as fh:
        fh.write("a\n")
    os.chmod(os.path.join(ws, "a.txt"), 0o666)  # writable by the user the run maps to
    code = "open('a.txt', 'a').write('more\\n'); open('b.txt', 'w').write('new')"
    r = Launcher().run(code, workspace=ws, patch=True)
    eq(sorted(os.listdir(ws)), ["a.txt"], "no apply: host unchanged")
    check(r.diff.patch and "diff --git a/b.txt b/b.txt" in r.diff.patch, r.diff.patch)
    pf = os.path.join(TMP, "out.patch")
    r = Launcher().run(code, workspace=ws, patch=pf)
    with open(pf) as fh:
        eq(fh.read(), r.diff.patch, "patch=PATH writes the report's patch")
    r = Launcher().run(code, workspace=ws, apply=True)
    eq((r.status, r.apply["done"]), (Status.EXITED, 2), "applied")
    with open(os.path.join(ws, "a.txt")) as fh:
        eq(fh.read(), "a\nmore\n", "modified file written back")
    with open(os.path.join(ws, "b.txt")) as fh:
        eq(fh.read(), "new", "added file written back")


@test
def native_apply_conflict() -> None:
    """native: a failed --apply raises ApplyError carrying the run's result"""
    ws = tmpdir("ws-conflict")
    p = os.path.join(ws, "a.txt")
    with open(p, "w") as fh:
        fh.write("host\n")
    os.chmod(p, 0o666)

    def host_edit() -> None:
        with open(p, "a") as fh:
            fh.write("host edit during the run\n")

    t = threading.Timer(1.0, host_edit)
    t.start()
    e = raises(ApplyError, lambda: Launcher().run(
        "import time\ntime.sleep(2.5)\nopen('a.txt', 'w').write('sandbox')\nprint('ran')",
        workspace=ws, apply=True, timeout=10), "conflict")
    t.join()
    assert isinstance(e, ApplyError)
    eq((e.result.stdout, e.exit_code), ("ran\n", 125), "the program's output survives")
    eq(e.result.apply["conflicts"], 1, "one conflict")
    with open(p) as fh:
        eq(fh.read(), "host\nhost edit during the run\n", "host edit kept")


@test
def native_keep_apply() -> None:
    """native: keep=DIR, read_kept, then Launcher.apply(DIR, workspace)"""
    ws, base = tmpdir("ws-keep"), tmpdir("kept")
    kept = os.path.join(base, "layer")
    r = Launcher().run("open('k.txt', 'w').write('kept')", workspace=ws, keep=kept)
    eq(r.diff.added_files, ["k.txt"], "diff")
    eq(read_kept(kept), {"k.txt": b"kept"}, "read_kept")
    eq(os.listdir(ws), [], "nothing applied yet")
    a = Launcher().apply(kept, ws)
    eq((a.ok, a.counts["done"]), (True, 1), "apply")
    with open(os.path.join(ws, "k.txt")) as fh:
        eq(fh.read(), "kept", "written")
    raises(LauncherError, lambda: Launcher().apply(os.path.join(base, "nope"), ws), "missing layer")


@test
def native_exec_script_env() -> None:
    """native: exec (argv and shell line), script with args, env, chdir"""
    L = Launcher()
    eq(L.exec(["echo", "a  b"]).stdout, "a  b\n", "argv: no shell")
    eq(L.exec("echo $((6*7))").stdout, "42\n", "string: /bin/sh -c")
    d = tmpdir("script")
    s = os.path.join(d, "s.py")
    with open(s, "w") as fh:
        fh.write("import sys\nprint(sys.argv[1:])\n")
    os.chmod(s, 0o644)
    eq(L.run(script=s, args=["x", "--y"], profile="unsafe-python").stdout, "['x', '--y']\n", "script args")
    r = L.exec("echo $FOO; pwd", env={"FOO": "bar"}, chdir="/tmp")
    eq(r.stdout, "bar\n/tmp\n", "env and chdir")


@test
def native_errors() -> None:
    """errors: acs-launch missing (path, $ACS_LAUNCH, PATH), unknown profile, bad option value"""
    e = raises(LauncherNotFound, lambda: Launcher("/nonexistent/acs-launch"), "explicit path")
    check("/nonexistent/acs-launch" in str(e), str(e))
    old = dict(os.environ)
    try:
        os.environ["ACS_LAUNCH"] = "/nonexistent/acs"
        e = raises(LauncherNotFound, Launcher, "$ACS_LAUNCH")
        check("$ACS_LAUNCH" in str(e), str(e))
        del os.environ["ACS_LAUNCH"]
        os.environ["PATH"] = TMP
        e = raises(LauncherNotFound, SandboxEngine, "not on PATH")
        check("PATH" in str(e), str(e))
        os.environ["PATH"] = os.path.dirname(ACS) + ":" + old.get("PATH", "")
        eq(Launcher().path, os.path.join(os.path.dirname(ACS), "acs-launch"), "found on PATH")
    finally:
        os.environ.clear()
        os.environ.update(old)
    for what, fn in (("run", lambda: Launcher().run("1", profile="no-such-profile")),
                     ("check", lambda: Launcher(profile="no-such-profile").check("1")),
                     ("seed", lambda: CodeSandbox(config=SandboxConfig(profile="no-such-profile"))
                      .execute_python("1"))):
        e = raises(ProfileNotFound, fn, what)
        check("no-such-profile" in str(e) and e.exit_code == 125, str(e))
    e = raises(LauncherError, lambda: Launcher().run("1", memory="12Q"), "bad --memory")
    check("--memory" in str(e) and "12Q" in str(e) and e.report and e.report["status"] == "error", str(e))


# --- sessions ----------------------------------------------------------------

@test
def session_fallback() -> None:
    """session without serve: files persist, globals do not, the workspace is removed at close"""
    with Launcher().session() as s:
        eq(s.uses_server, False, "fallback")
        s.put_files({"n.txt": "41"})
        s.run_code("x = 1\nopen('m.txt', 'w').write(str(int(open('n.txt').read()) + 1))")
        r = s.run_code("print(open('m.txt').read())")
        eq(r.stdout, "42\n", "files persist")
        r = s.run_code("print(x)")
        check(r.exit_code == 1 and "NameError" in r.stderr, "globals do not persist in the fallback")
        eq(s.execute_command("cat m.txt").stdout, "42", "commands see the same files")
        eq(s.files(), {"m.txt": b"42", "n.txt": b"41"}, "files()")
        ws = s.workspace
    check(ws and not os.path.exists(ws), "workspace removed")


@test
def session_server_choice() -> None:
    """session: $ACS_SERVER with nothing listening falls back; an explicit server= that fails (or never answers) raises"""
    os.environ["ACS_SERVER"] = os.path.join(TMP, "no-server.sock")
    try:
        with Launcher().session() as s:
            eq(s.uses_server, False, "fallback")
    finally:
        del os.environ["ACS_SERVER"]
    raises(OSError, lambda: Launcher().session(server=os.path.join(TMP, "no-server.sock")), "explicit")
    # a socket that accepts and never answers: an error after the handshake's 10 s, not a hang
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.bind(os.path.join(TMP, "silent.sock"))
    silent.listen(1)
    t0 = time.monotonic()
    raises(OSError, lambda: Launcher().session(server=os.path.join(TMP, "silent.sock")), "silent server")
    check(time.monotonic() - t0 < 15, "bounded wait")
    silent.close()


def mcp_bridge(path: str) -> threading.Thread:
    """A unix socket at path whose one connection is `acs-launch mcp`'s stdio
    (the protocol `acs-launch serve` speaks on its socket)."""
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)

    def serve() -> None:
        conn, _ = srv.accept()
        srv.close()
        p = subprocess.Popen([ACS, "mcp"], stdin=conn.fileno(), stdout=conn.fileno())
        conn.close()
        p.wait()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    return t


@test
def serve_protocol() -> None:
    """serve client: MCP JSON-RPC over a unix socket (acs-launch mcp behind it); a session keeps its globals"""
    path = os.path.join(TMP, "mcp.sock")
    t = mcp_bridge(path)
    c = ServeClient(path)
    rep = c.call_tool("execute_python", {"code": "print(6 * 7)"})
    r = Result.from_report(rep)
    eq((r.stdout, r.status), ("42\n", Status.EXITED), "execute_python through the socket")
    c.close()
    t.join(10)
    # a session through the server keeps the interpreter's globals and the workspace (issue 14)
    path2 = os.path.join(TMP, "mcp2.sock")
    t = mcp_bridge(path2)
    s = Launcher().session(server=path2)
    eq(s.uses_server, True, "uses the server")
    s.run_code("x = 41\nopen('/workspace/kept.txt', 'w').write('k')")
    r = s.run_code("print(x + 1, open('/workspace/kept.txt').read())")
    eq(r.stdout, "42 k\n", "globals and files persist in a server session")
    s.close()
    t.join(10)


def processes_with(marker: bytes) -> "list[int]":
    pids = []
    for d in os.listdir("/proc"):
        try:
            with open(f"/proc/{d}/cmdline", "rb") as fh:
                if marker in fh.read():
                    pids.append(int(d))
        except (OSError, ValueError):
            pass
    return pids


# --- asyncio -----------------------------------------------------------------

@test
def asyncio_variant() -> None:
    """asyncio: concurrent runs, check, profiles, keep + apply, errors, cancellation kills the run, session"""
    async def go() -> None:
        acs = AsyncLauncher(timeout=5)
        a, b = await asyncio.gather(acs.run("print(1)"), acs.run("print(2)", stdin="x"))
        eq((a.stdout, b.stdout), ("1\n", "2\n"), "gather")
        eq((await acs.exec("echo hi")).stdout, "hi\n", "exec")
        eq((await acs.check("import os")).is_safe, False, "check")
        check("pure-math" in [p.name for p in await acs.profiles()], "profiles")
        eq((await acs.profile("shell"))["name"], "shell", "profile")
        ws, base = tmpdir("aws"), tmpdir("akept")
        await acs.run("open('k.txt', 'w').write('k')", workspace=ws, keep=os.path.join(base, "l"))
        eq(((await acs.apply(os.path.join(base, "l"), ws)).ok, os.listdir(ws)), (True, ["k.txt"]), "keep + apply")
        o = await acs.run("open('o.txt', 'w').write('x')", outputs=True)
        eq(o.output_files, {"o.txt": b"x"}, "outputs")
        try:
            await acs.run("1", profile="no-such-profile")
            raise AssertionError("no ProfileNotFound")
        except ProfileNotFound:
            pass
        t0 = time.monotonic()
        try:
            await asyncio.wait_for(acs.run("import time\ntime.sleep(4.125)"), 1.0)
            raise AssertionError("not cancelled")
        except asyncio.TimeoutError:
            pass
        check(time.monotonic() - t0 < 3, "cancelled promptly")
        await asyncio.sleep(0.3)
        eq(processes_with(b"time.sleep(4.125)"), [], "nothing of the cancelled run is left")
        async with acs.session() as s:
            eq(s.uses_server, False, "async session: fallback")
            s.put_files({"a.txt": "1"})
            await s.run_code("open('b.txt', 'w').write(open('a.txt').read() + '2')")
            eq((await s.execute_command("cat b.txt")).stdout, "12", "async session: files persist")
            ws = s.workspace
        check(ws and not os.path.exists(ws), "async session workspace removed")

    asyncio.run(go())


# --- python3 -m acs_launch mcp, the seed's command lines, docs -----------------

@test
def module_mcp() -> None:
    """python3 -m acs_launch mcp runs acs-launch mcp (tools/list answers)"""
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    p = subprocess.run([sys.executable, "-m", "acs_launch", "mcp", "--max-concurrency", "2"],
                       input="".join(json.dumps(m) + "\n" for m in msgs).encode(), capture_output=True, timeout=60)
    eq(p.returncode, 0, p.stderr)
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    tools = sorted(t["name"] for t in lines[-1]["result"]["tools"])
    check({"execute_python", "execute_command", "inspect_code_security"} <= set(tools), tools)
    p = subprocess.run([sys.executable, "-m", "acs_launch", "mcp", "--bogus"], capture_output=True, timeout=60)
    check(p.returncode == 125 and b"--bogus" in p.stderr, "the launcher's own usage error and status")
    p = subprocess.run([sys.executable, "-m", "acs_launch"], capture_output=True, timeout=60)
    check(p.returncode == 125 and b"usage" in p.stderr, "no subcommand: usage, 125")


@test
def seed_command_lines() -> None:
    """the seed's command lines: run script.py, run --code ... --timeout 2.0, check FILE, benchmark, mcp"""
    d = tmpdir("cli")
    with open(os.path.join(d, "script.py"), "w") as fh:
        fh.write("print('from script')\n")
    with open(os.path.join(d, "untrusted_agent_code.py"), "w") as fh:
        fh.write("import os\nos.system('id')\n")
    for f in os.listdir(d):
        os.chmod(os.path.join(d, f), 0o644)

    def cli(*args: str) -> "subprocess.CompletedProcess[bytes]":
        return subprocess.run([ACS, *args], cwd=d, capture_output=True, stdin=subprocess.DEVNULL, timeout=60)

    eq(cli("run", "script.py").stdout, b"from script\n", "run script.py")
    p = cli("run", "--code", "import math; print(math.factorial(20))", "--timeout", "2.0")
    eq((p.returncode, p.stdout), (0, b"2432902008176640000\n"), "run --code --timeout 2.0")
    p = cli("run", "--json", "--code", "import time; time.sleep(5)", "--timeout", "0.5")
    eq((p.returncode, json.loads(p.stdout)["status"]), (124, "timeout"), "--timeout after --code is the launcher's")
    p = cli("check", "untrusted_agent_code.py")
    check(p.returncode == 126 and b"untrusted_agent_code.py:1:0: forbidden-import: import of 'os'" in p.stdout,
          p.stdout)
    p = cli("benchmark", "--help")
    check(p.returncode == 0 and b"acs-launch bench" in p.stdout, "benchmark is bench")
    p = cli("mcp", "--help")
    eq(p.returncode, 0, "mcp")


@test
def package_docs_typed() -> None:
    """the package: typed (py.typed), pydoc shows the five examples, standard library only"""
    pkg = os.path.dirname(acs_launch.__file__)
    check(os.path.isfile(os.path.join(pkg, "py.typed")), "py.typed")
    doc = acs_launch.__doc__ or ""
    for title in ("One-shot run", "Check", "Session", "Workspace with apply", "Files out"):
        check(title in doc, title)
    p = subprocess.run([sys.executable, "-m", "pydoc", "acs_launch"], capture_output=True, timeout=60)
    check(b"Files out" in p.stdout and b"SandboxEngine" in p.stdout, "pydoc")
    # only the standard library: every import of the package resolves without site-packages
    p = subprocess.run([sys.executable, "-I", "-S", "-c",
                        "import sys; sys.path.insert(0, %r); import acs_launch, acs_launch.aio, "
                        "acs_launch.__main__" % os.path.dirname(pkg)], capture_output=True, timeout=60)
    eq(p.returncode, 0, p.stderr)


DOC_OUTPUTS = [
    "Status.EXITED 0 2432902008176640000\n\nFalse FORBIDDEN_IMPORT_DETECTED: os\n",
    "False\ndenied-builtin eval 2 0\n",
    "42\n\nFalse\n",
    "['fix.txt'] 1\n",
    "{'out.csv': b'A,B\\n'}\n['out.csv']\n",
]


def doc_blocks(text: str) -> "list[str]":
    import re
    import textwrap
    return [textwrap.dedent(b) for b in re.findall(r"::\n\n((?:    .*\n|\n)+)", text)]


@test
def doc_examples() -> None:
    """docs: the five examples of pydoc acs_launch (and README's Python section) print what they say"""
    blocks = doc_blocks(acs_launch.__doc__ or "")
    eq(len(blocks), 5, "five examples")
    d = tmpdir("doc")
    os.mkdir(os.path.join(d, "repo"), 0o755)
    cwd = os.getcwd()
    os.chdir(d)
    try:
        for block, want in zip(blocks, DOC_OUTPUTS):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(block, "<acs_launch doc>", "exec"), {})
            eq(out.getvalue(), want, block.splitlines()[0])
    finally:
        os.chdir(cwd)
    with open(os.path.join(d, "repo", "fix.txt")) as fh:
        eq(fh.read(), "done", "applied into ./repo")
    readme = os.path.join(os.environ["ACS_SRCDIR"], "README.md")
    if os.path.exists(readme):  # the unprivileged run's staged tree has no README
        import re
        with open(readme) as fh:
            text = fh.read()
        sec = text[text.index("## Python"):text.index("## Speed")]
        eq([b.strip() for b in re.findall(r"```python\n(.*?)```", sec, re.S)], [b.strip() for b in blocks],
           "README shows the same examples")


if __name__ == "__main__":
    try:
        rc = main()
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", TMP], stderr=subprocess.DEVNULL)
        subprocess.run(["rm", "-rf", TMP])
    sys.exit(rc)
