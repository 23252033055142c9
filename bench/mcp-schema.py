#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What validating one execute_python result costs a client that checks
structuredContent against the tool's outputSchema the way the official
Python MCP SDK (1.x) does: jsonschema.validate(instance, schema) on every
call, which checks the schema and builds a validator each time.

It asks `acs-launch mcp` for tools/list and one execute_python result, then
times validate() of that result against the advertised outputSchema and
against the full doc/report.schema.json ("$schema"/"$id" dropped, as the
server used to advertise it). Prints medians in ms.
  bench/mcp-schema.py [N]   (env: ACS_BUILDDIR, ACS_SRCDIR, ACS_PROFILE_PATH)
"""
import json
import os
import statistics
import subprocess
import sys
import time

import jsonschema

here = os.path.dirname(os.path.abspath(__file__))
srcdir = os.environ.get("ACS_SRCDIR", os.path.dirname(here))
builddir = os.environ.get("ACS_BUILDDIR", os.getcwd())
os.environ.setdefault("ACS_PROFILE_PATH", os.path.join(srcdir, "profiles"))
n = int(sys.argv[1]) if len(sys.argv) > 1 else 50

msgs = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}}},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
     "params": {"name": "execute_python", "arguments": {"code": "open('out.txt','w').write('x')\nprint(1)"}}},
]
# stdin stays open until the call's reply: EOF ends the server's calls
proc = subprocess.Popen([os.path.join(builddir, "acs-launch"), "mcp"], stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE, text=True)
proc.stdin.write("".join(json.dumps(m) + "\n" for m in msgs))
proc.stdin.flush()
replies = {}
while 3 not in replies:
    r = json.loads(proc.stdout.readline())
    replies[r.get("id")] = r
proc.stdin.close()
proc.wait()
tools = {t["name"]: t for t in replies[2]["result"]["tools"]}
advertised = tools["execute_python"]["outputSchema"]
report = replies[3]["result"]["structuredContent"]
with open(os.path.join(srcdir, "doc/report.schema.json"), encoding="utf-8") as f:
    full = json.load(f)
full.pop("$schema", None)
full.pop("$id", None)


def bench(schema):
    jsonschema.validate(report, schema)  # it must hold, and warm up
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        jsonschema.validate(report, schema)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), min(times)


size = lambda s: len(json.dumps(s, separators=(",", ":")))
for name, schema in (("advertised outputSchema", advertised), ("full report.schema.json", full)):
    med, lo = bench(schema)
    print(f"{name:26} {size(schema):6} bytes  validate: median {med:7.3f} ms  min {lo:7.3f} ms  (n={n})")
