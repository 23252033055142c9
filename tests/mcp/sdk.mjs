// SPDX-License-Identifier: LGPL-2.1-or-later
// acs-launch mcp driven by the official MCP TypeScript SDK client.
import { execFileSync } from 'node:child_process';
import { ACS, test, diag, until, pidsNamed, uniqueMarker, sleeperCode, sleep } from './lib.mjs';

const text = (r) => (r?.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

export function register(sdk) {
  const { Client, StdioClientTransport, McpError } = sdk;
  let client, transport;

  const call = (name, args, opts) => client.callTool({ name, arguments: args }, undefined, opts);
  const py = (code, extra = {}, opts = undefined) => call('execute_python', { code, ...extra }, opts);
  async function rejects(p) {
    try {
      await p;
      return null;
    } catch (e) {
      return e;
    }
  }

  test('sdk handshake', async (t) => {
    transport = new StdioClientTransport({
      command: ACS,
      // the operator opens two more profiles than --profile (default): the tests use them
      args: ['mcp', '--allow-profile', 'pure-math', '--allow-profile', 'unsafe-python'],
      env: { ...process.env },
      stderr: 'inherit',
    });
    client = new Client({ name: 'acs-sdk-test', version: '1.0.0' });
    await client.connect(transport);
    const info = client.getServerVersion();
    t.is(info?.name, 'acs-launch', 'serverInfo.name');
    const want = execFileSync(ACS, ['--version'], { encoding: 'utf8' }).trim().split(/\s+/).pop();
    t.is(info?.version, want, 'serverInfo.version is the build version');
    t.ok(client.getServerCapabilities()?.tools, 'tools capability announced');
    t.ok(/sandbox/.test(client.getInstructions() ?? ''), 'instructions given');
    await client.ping();
    t.ok(true, 'ping answered');
  });

  test('sdk tools/list', async (t) => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((x) => [x.name, x]));
    for (const name of ['execute_python', 'execute_command', 'inspect_code_security']) {
      const tool = byName[name];
      t.ok(tool, `${name} listed`);
      t.is(tool?.inputSchema?.type, 'object', `${name} inputSchema is an object schema`);
      t.is(tool?.outputSchema?.type, 'object', `${name} outputSchema is an object schema`);
      t.ok(typeof tool?.description === 'string' && tool.description.length > 20, `${name} described`);
    }
    t.ok(byName.execute_python?.inputSchema.required?.includes('code'), 'execute_python requires code');
    t.ok('timeout' in (byName.execute_python?.inputSchema.properties ?? {}), 'execute_python takes timeout');
    t.ok('profile' in (byName.execute_python?.inputSchema.properties ?? {}), 'execute_python takes profile');
    t.ok(byName.execute_command?.inputSchema.required?.includes('command'), 'execute_command requires command');
    t.ok(byName.execute_python?.outputSchema.properties?.status, 'report schema describes status');
    t.is(JSON.stringify(byName.execute_python?.inputSchema.properties?.profile?.enum),
      '["default","pure-math","unsafe-python"]', 'execute_python offers exactly the allowed profiles');
    t.is(byName.execute_python?.inputSchema.properties?.timeout?.maximum, 60, 'and the timeout cap');
  });

  test('sdk execute_python happy path', async (t) => {
    const r = await py('print(6 * 7)');
    t.is(r.isError, false, 'isError false');
    t.is(r.structuredContent?.status, 'exited', 'status exited');
    t.is(r.structuredContent?.exit_code, 0, 'exit_code 0');
    t.is(r.structuredContent?.stdout?.text, '42\n', 'stdout in the report');
    t.ok(text(r).includes('42'), 'stdout in the text summary', text(r));
    t.is(r.structuredContent?.schema, 'acs-report/1', 'report schema version');
  });

  test('sdk execute_python with code over the 128 KiB argument limit', async (t) => {
    // execve takes at most 128 KiB per argument; larger code runs as a script
    const big = 'x = 1\n'.repeat(30000) + 'print("big", x)\n';
    t.ok(big.length > 131072, `code is ${big.length} bytes`);
    let r = await py(big, { timeout: 30 });
    t.is(r.isError, false, 'isError false', text(r));
    t.is(r.structuredContent?.stdout?.text, 'big 1\n', 'it ran, scanned and whole');
    t.is(r.structuredContent?.scan?.verdict, 'pass', 'the scan saw it');
    r = await py(big + 'import os\n', { timeout: 30 });
    t.is(r.structuredContent?.status, 'rejected', 'a forbidden import at its end is still refused');
    t.is(r.structuredContent?.scan?.findings?.[0]?.line, 30002, 'with the right line');
  });

  test('sdk execute_command with a command over the 128 KiB argument limit', async (t) => {
    const big = 'x=1\n'.repeat(40000) + 'echo "big-$x"\n';
    t.ok(big.length > 131072, `command is ${big.length} bytes`);
    const r = await call('execute_command', { command: big, timeout: 30 });
    t.is(r.isError, false, 'isError false', text(r));
    t.is(r.structuredContent?.stdout?.text, 'big-1\n', 'it ran whole, as a script file');
  });

  test('sdk execute_command happy path', async (t) => {
    const r = await call('execute_command', { command: 'echo hello-$((6*7)); echo oops >&2; exit 3' });
    t.is(r.structuredContent?.stdout?.text, 'hello-42\n', 'shell stdout');
    t.ok(r.structuredContent?.stderr?.text?.includes('oops'), 'shell stderr');
    t.is(r.structuredContent?.exit_code, 3, 'exit status passed through');
    t.is(r.isError, true, 'non-zero exit is an error');
    t.is(r.structuredContent?.profile, 'shell', 'shell profile used');
  });

  test('sdk inspect_code_security', async (t) => {
    const bad = await call('inspect_code_security', { code: 'import os\nprint(1)\n', profile: 'pure-math' });
    t.is(bad.structuredContent?.scan?.verdict, 'reject', 'import os rejected under pure-math');
    t.ok(bad.structuredContent?.scan?.findings?.some((f) => f.name === 'os' && f.line === 1), 'finding names os, line 1',
      bad.structuredContent);
    t.ok(text(bad).includes('os'), 'text names the finding');
    t.is(bad.structuredContent?.schema, 'acs-check/1', 'same shape as acs-launch check --json');
    t.is(bad.isError, false, 'a verdict is a result, not a tool error');
    const good = await call('inspect_code_security', { code: 'import math\nprint(math.pi)\n', profile: 'pure-math' });
    t.is(good.structuredContent?.scan?.verdict, 'pass', 'math passes');
    t.is(good.structuredContent?.scan?.findings?.length, 0, 'no findings');
  });

  test('sdk refusal', async (t) => {
    const r = await py('import os\nprint(os.listdir("/"))\n', { profile: 'pure-math' });
    t.is(r.isError, true, 'isError true');
    t.is(r.structuredContent?.status, 'rejected', 'status rejected');
    t.ok(r.structuredContent?.scan?.findings?.some((f) => f.name === 'os'), 'findings in the report');
    t.ok(/os/.test(text(r)) && /refus|reject/i.test(text(r)), 'text says refused and why', text(r));
  });

  test('sdk timeout', async (t) => {
    const r = await py('while True:\n    pass\n', { timeout: 1 });
    t.is(r.isError, true, 'isError true');
    t.is(r.structuredContent?.status, 'timeout', 'status timeout');
    t.ok(/time/i.test(text(r)), 'text says it timed out', text(r));
  });

  test('sdk output flood', async (t) => {
    const r = await py('for i in range(300000):\n    print("line", i)\n');
    const s = r.structuredContent?.stdout;
    t.is(r.structuredContent?.status, 'exited', 'flood runs to completion');
    t.ok(s?.truncated === true, 'stdout marked truncated', s && { ...s, text: s.text?.slice(0, 200) });
    t.ok(s?.bytes > 3000000, 'all bytes counted', s?.bytes);
    t.ok(text(r).length < 64 * 1024, 'text summary is bounded', text(r).length);
    t.ok(/truncat|clipped|omitted/i.test(text(r)), 'text says it was clipped', text(r).slice(0, 2000));
    t.ok(text(r).includes('line 0') && text(r).includes('line 299999'), 'head and tail kept');
  });

  test('sdk syntax error', async (t) => {
    const r = await py('def f(:\n    pass\n');
    t.is(r.isError, true, 'isError true');
    t.ok(/syntax/i.test(text(r) + JSON.stringify(r.structuredContent ?? {})), 'says syntax error', text(r));
  });

  test('sdk unknown tool', async (t) => {
    const e = await rejects(call('no_such_tool', {}));
    t.ok(e instanceof McpError, 'JSON-RPC error', String(e));
    t.is(e?.code, -32602, 'code -32602');
    t.ok(/Unknown tool/.test(e?.message), 'message says unknown tool');
  });

  test('sdk invalid arguments', async (t) => {
    for (const [desc, name, args] of [
      ['missing code', 'execute_python', {}],
      ['code not a string', 'execute_python', { code: 42 }],
      ['timeout not a number', 'execute_python', { code: 'print(1)', timeout: 'soon' }],
      ['negative timeout', 'execute_python', { code: 'print(1)', timeout: -1 }],
      ['unknown argument', 'execute_command', { command: 'true', workdir: '/tmp' }],
    ]) {
      // The SDK negotiates 2025-11-25: argument errors are tool errors (SEP-1303)
      const r = await call(name, args);
      t.is(r?.isError, true, `${desc}: isError`);
      t.ok(/Invalid arguments/.test(text(r)), `${desc}: the text says what is wrong`, text(r));
    }
    for (const profile of ['no-such-profile', '/etc/passwd', 'shell']) {
      const r = await py('print(1)', { profile });
      t.is(r.isError, true, `profile ${profile} (not allowed): a tool error`);
      t.ok(text(r).includes(profile) && /not allowed/.test(text(r)), '  naming the profile', text(r));
    }
    const r = await py('print(1)', { timeout: 61 });
    t.ok(r.isError === true && /max-timeout/.test(text(r)), 'a timeout over the cap is a tool error', text(r));
    await client.ping();
    t.ok(true, 'server still serving');
  });

  test('sdk 20 concurrent calls', async (t) => {
    const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => py(`print(${i} * ${i})`)));
    let right = 0;
    rs.forEach((r, i) => {
      if (r.structuredContent?.stdout?.text === `${i * i}\n`) right++;
      else diag(`call ${i}: ${JSON.stringify(r.structuredContent?.stdout)}`);
    });
    t.is(right, 20, 'each response belongs to its request');
  }, { timeout: 120000 });

  test('sdk cancellation', async (t) => {
    const marker = uniqueMarker('acsc');
    const ac = new AbortController();
    const p = rejects(py(sleeperCode(marker), { profile: 'unsafe-python', timeout: 60 }, { signal: ac.signal }));
    const seen = await until(() => pidsNamed(marker).length > 0, 20000);
    t.ok(seen, 'sandboxed program started');
    ac.abort('test cancels');
    const e = await p;
    t.ok(e, 'call rejected on abort');
    const gone = await until(() => pidsNamed(marker).length === 0, 15000);
    t.ok(gone, 'sandbox killed', pidsNamed(marker));
    await client.ping();
    t.ok(true, 'server still serving');
    const r = await py('print("after")');
    t.is(r.structuredContent?.stdout?.text, 'after\n', 'next call works');
  });

  test('sdk clean exit on EOF', async (t) => {
    const pid = transport.pid;
    await client.close();
    const gone = await until(() => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    }, 10000);
    t.ok(gone, 'server exited after the client closed stdin');
    await sleep(0);
  });
}
