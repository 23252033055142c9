// SPDX-License-Identifier: LGPL-2.1-or-later
// Warm mode (issue 14) through the official MCP SDK client: the same calls
// against `acs-launch mcp` with its pool, `mcp --pool 0` (every call cold)
// and `acs-launch serve` over its unix socket must give the same reports.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ACS, test, until, sleep } from './lib.mjs';
import { unixSocketTransport } from './transport.mjs';

// What a report says about the run, without its timings.
function essence(r) {
  const s = r?.structuredContent ?? {};
  return {
    isError: !!r?.isError,
    status: s.status,
    exit_code: s.exit_code,
    signal: s.signal,
    stdout: s.stdout?.text,
    stderr: s.stderr?.text,
    verdict: s.scan?.verdict,
    rules: (s.scan?.findings ?? []).map((f) => `${f.rule}:${f.line}:${f.col}`),
    added: (s.files?.added ?? []).map((f) => `${f.path ?? f}:${f.size}`),
    limits: JSON.stringify(s.limits),
    confinement: JSON.stringify(s.confinement),
  };
}

const CASES = [
  ['exit 0 with output', { code: 'print("hello")\nimport sys\nprint("err", file=sys.stderr)' }],
  ['exit status 3', { code: 'print("before")\nraise SystemExit(3)' }],
  ['uncaught exception', { code: 'x = 1\n1 / x - 1 / 0' }],
  ['refused by the scan', { code: 'import os\nos.system("true")' }],
  ['timeout', { code: 'while True:\n    pass', timeout: 1 }],
  ['a file written to the workspace', { code: 'open("/workspace/out.txt", "w").write("data")\nprint("wrote")' }],
  ['syntax error', { code: 'def f(:\n  pass' }],
  ['files never closed, a last line without newline',
    { code: 'f = open("/workspace/open.txt", "w")\nf.write("x" * 5000)\nclass C: pass\nc = C()\nc.c = c\nc.f = open("/workspace/b.bin", "wb")\nc.f.write(b"y" * 3)\ndel c\nprint("end", end="")' }],
  ['sys.argv and orig_argv as python3 -c sets them', { code: 'import sys\nprint(sys.argv, sys.orig_argv[-1] == sys.argv[0] or sys.orig_argv[-1][:6])' }],
];

export function register(sdk) {
  const { Client, StdioClientTransport } = sdk;

  test('sdk pool: pooled, cold and serve reports agree', async (t) => {
    const UnixSocketTransport = unixSocketTransport(await import(
      pathToFileURL(join(sdk.dir, '@modelcontextprotocol/sdk/dist/esm/shared/stdio.js')).href));
    const stdio = async (args) => {
      const c = new Client({ name: 'acs-pool-test', version: '1' });
      await c.connect(new StdioClientTransport({ command: ACS, args, env: { ...process.env }, stderr: 'inherit' }));
      return c;
    };
    const dir = mkdtempSync(join(tmpdir(), 'acs-test.pool.'));
    const sock = join(dir, 'serve.sock');
    const server = spawn(ACS, ['serve', '--socket', sock, '--pool', '2'], { stdio: ['ignore', 'inherit', 'inherit'] });
    const exited = new Promise((res) => server.on('exit', (code, signal) => res({ code, signal })));
    try {
      t.ok(await until(() => existsSync(sock)), 'serve listens on its socket');
      const pooled = await stdio(['mcp', '--pool', '2']);
      const cold = await stdio(['mcp', '--pool', '0']);
      const served = new Client({ name: 'acs-pool-test', version: '1' });
      await served.connect(new UnixSocketTransport(sock));
      t.is(served.getServerVersion()?.name, 'acs-launch', 'serve answers initialize over the socket');
      await sleep(300);
      for (const [name, args] of CASES) {
        const want = essence(await cold.callTool({ name: 'execute_python', arguments: args }));
        const got = essence(await pooled.callTool({ name: 'execute_python', arguments: args }));
        const sgot = essence(await served.callTool({ name: 'execute_python', arguments: args }));
        t.ok(want.status !== undefined, `${name}: the cold run reports`, want);
        t.is(JSON.stringify(got), JSON.stringify(want), `${name}: the pooled report is the cold one`);
        t.is(JSON.stringify(sgot), JSON.stringify(want), `${name}: serve's report is the cold one`);
      }
      // sessions: globals and files persist, every call is still scanned, close_session ends it
      const list = await served.listTools();
      t.ok(list.tools.some((x) => x.name === 'close_session') &&
        list.tools.find((x) => x.name === 'execute_python')?.inputSchema?.properties?.session,
        'tools/list offers "session" and close_session');
      for (const c of [pooled, served]) {
        const sp = (code) => c.callTool({ name: 'execute_python', arguments: { code, session: 'sdk-1' } });
        await sp('x = 41\nopen("/workspace/k.txt", "w").write("k")');
        let r = await sp('print(x + 1, open("/workspace/k.txt").read())');
        t.is(r.structuredContent?.stdout?.text, '42 k\n', 'a session keeps globals and files (x = 41; print(x + 1))');
        r = await sp('import os');
        t.is(r.structuredContent?.status, 'rejected', 'a session call is scanned like any other');
        r = await sp('print(x)');
        t.is(r.structuredContent?.stdout?.text, '41\n', 'the session goes on after a refusal');
        r = await c.callTool({ name: 'close_session', arguments: { session: 'sdk-1' } });
        t.is(r.structuredContent?.closed, true, 'close_session');
        r = await sp('print(x)');
        t.ok(/NameError/.test(r.structuredContent?.stderr?.text ?? ''), 'after close_session the id starts afresh', r);
      }
      for (const c of [pooled, cold, served]) await c.close();
    } finally {
      server.kill('SIGTERM');
      const e = await exited;
      t.ok(e.code === 0 && !existsSync(sock), 'serve exits 0 at SIGTERM and removes its socket', e);
      rmSync(dir, { recursive: true, force: true });
    }
  }, { timeout: 240000 });
}
