# SPDX-License-Identifier: LGPL-2.1-or-later
"""Files in and out of a session (issue 14, item 4), in one run: the round
trip of MCP write_file and read_file (base64) of SIZE random bytes against
`acs-launch mcp` over stdio, as this Python client sees it, and beside them
for scale a Python process that reads the same request line whole and
answers it with the server's own answer of that kind, byte for byte (no
sandbox, no file: pipes and JSON only). The first call of each kind is
printed apart (its buffers are new on both sides), then the medians of N
more, interleaved.
  python3 bench/files.py [N [SIZE]]   (env: ACS_BUILDDIR, ACS_PROFILE_PATH)
"""
import base64, json, os, statistics, subprocess, sys, time

here = os.path.dirname(os.path.abspath(__file__))
src = os.path.dirname(here)
build = os.path.abspath(os.environ.get("ACS_BUILDDIR", src))
acs = os.path.join(build, "acs-launch")
os.environ.setdefault("ACS_PROFILE_PATH", os.path.join(src, "profiles"))
n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
size = int(sys.argv[2]) if len(sys.argv) > 2 else 2 << 20


def start(argv):
    return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=1 << 20)


def send(p, msg):
    p.stdin.write((json.dumps(msg) + "\n").encode())
    p.stdin.flush()


def rpc(p, i, method, params):
    send(p, {"jsonrpc": "2.0", "id": i, "method": method, "params": params})
    r = json.loads(p.stdout.readline())
    if "error" in r or r.get("result", {}).get("isError"):
        sys.exit(f"bench/files.py: {method} failed: {str(r)[:300]}")
    return r


data = base64.b64encode(os.urandom(size)).decode()
server = start([acs, "mcp"])
echo = None
answers = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"acs-bench-files-{os.getpid()}")
try:
    rpc(server, 0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                  "clientInfo": {"name": "bench-files", "version": "1"}})
    send(server, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    rpc(server, 1, "tools/call", {"name": "execute_python", "arguments": {"code": "pass", "session": "b"}})
    wargs = {"path": "in.bin", "content": data, "encoding": "base64", "session": "b"}
    rargs = {"path": "in.bin", "encoding": "base64", "session": "b"}
    # for scale: a process that reads each request line whole and answers it
    # with the server's own answer of that kind, byte for byte
    first, first_ms = {}, {}
    for i, (tool, args) in enumerate((("write_file", wargs), ("read_file", rargs))):
        t = time.perf_counter()
        first[tool] = rpc(server, 2 + i, "tools/call", {"name": tool, "arguments": args})
        first_ms[tool] = (time.perf_counter() - t) * 1e3
    with open(answers, "w") as f:
        f.write(json.dumps(first["write_file"]) + "\n" + json.dumps(first["read_file"]) + "\n")
    echo = start([sys.executable, "-I", "-S", "-c",
                  "import sys\nw, r = open(sys.argv[1], 'rb').read().splitlines(True)\n"
                  "for l in sys.stdin.buffer:\n sys.stdout.buffer.write(r if b'\"read_file\"' in l else w)\n"
                  " sys.stdout.buffer.flush()", answers])
    times = {k: [] for k in ("write_file", "write_file, python echo", "read_file", "read_file, python echo")}
    k = 4
    for i in range(n):
        for name, p, tool, args in (("write_file", server, "write_file", wargs),
                                    ("write_file, python echo", echo, "write_file", wargs),
                                    ("read_file", server, "read_file", rargs),
                                    ("read_file, python echo", echo, "read_file", rargs)):
            t = time.perf_counter()
            r = rpc(p, k, "tools/call", {"name": tool, "arguments": args})
            times[name].append((time.perf_counter() - t) * 1e3)
            k += 1
            if tool == "read_file" and r["result"]["structuredContent"]["content"] != data:
                sys.exit("bench/files.py: read_file did not return the bytes written")
    print(f"files in and out of a session, {size} bytes (base64 {len(data)}), {n} rounds, uid {os.getuid()}")
    print(f"  (each kind's first call, new buffers on both sides: write_file {first_ms['write_file']:.1f} ms, "
          f"read_file {first_ms['read_file']:.1f} ms)")
    for name, t in times.items():
        print(f"  {name:24s} median {statistics.median(t):8.1f} ms")
finally:
    for p in (server, echo):
        if p:
            p.stdin.close()
            p.wait()
    if os.path.exists(answers):
        os.unlink(answers)
