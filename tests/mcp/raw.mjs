// SPDX-License-Identifier: LGPL-2.1-or-later
// acs-launch mcp driven with hand-written lines: framing, errors, lifecycle.
import { mkdtempSync, writeFileSync, readdirSync, chmodSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, RawServer, until, pidsNamed, uniqueMarker, sleeperCode, sleep } from './lib.mjs';

const err = (m) => m?.error?.code;

export function register() {
  test('raw version negotiation', async (t) => {
    for (const [asked, want] of [
      ['2025-06-18', '2025-06-18'],
      ['2025-03-26', '2025-03-26'],
      ['2024-11-05', '2024-11-05'],
      ['2025-11-25', '2025-11-25'],
      ['2099-01-01', '2025-11-25'],
    ]) {
      const s = new RawServer();
      const r = await s.initialize(asked);
      t.is(r?.result?.protocolVersion, want, `asked ${asked}, got ${want}`);
      if (asked === '2025-06-18') {
        t.is(r?.result?.serverInfo?.name, 'acs-launch', 'serverInfo.name');
        t.is(r?.result?.capabilities?.tools?.listChanged, false, 'tools capability, listChanged false');
      }
      t.is((await s.close()).code, 0, `exit 0 on EOF (${asked})`);
    }
  });

  test('raw errors', async (t) => {
    const s = new RawServer();
    await s.initialize();
    s.send('{"jsonrpc":"2.0","id":1,"method":"ping"');
    let m = await s.response(null);
    t.is(err(m), -32700, 'truncated JSON: -32700 with id null');
    s.send('this is not json');
    t.is(err(await s.response(null)), -32700, 'garbage: -32700');
    s.send('['.repeat(5000));
    t.is(err(await s.response(null)), -32700, 'deep nesting: -32700');
    s.send('{"jsonrpc":"2.0","id":2}');
    t.is(err(await s.response(2)), -32600, 'no method: -32600 with the id');
    s.send('{"jsonrpc":"1.0","id":3,"method":"ping"}');
    t.is(err(await s.response(3)), -32600, 'wrong jsonrpc version: -32600');
    s.send('{"jsonrpc":"2.0","id":null,"method":"ping"}');
    t.is(err(await s.response(null)), -32600, 'null id: -32600');
    s.send('[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"ping"}]');
    t.is(err(await s.response(null)), -32600, 'batch: -32600');
    s.send('[]');
    t.is(err(await s.response(null)), -32600, 'empty batch: -32600');
    s.send('{"jsonrpc":"2.0","id":6,"method":"resources/list"}');
    t.is(err(await s.response(6)), -32601, 'unknown method: -32601');
    s.send('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"execute_python"}}');
    t.is(err(await s.response(7)), -32602, 'missing arguments (2025-06-18): -32602');
    s.send('{"jsonrpc":"2.0","id":71,"method":"tools/call","params":{"arguments":{}}}');
    t.is(err(await s.response(71)), -32602, 'no tool name: -32602');
    s.send('{"jsonrpc":"2.0","id":8,"method":"initialize","params":{}}');
    t.is(err(await s.response(8)), -32602, 'initialize without protocolVersion: -32602');
    s.send('');
    s.send('   ');
    s.send('{"jsonrpc":"2.0","method":"notifications/whatever"}');
    s.send('{"jsonrpc":"2.0","id":99,"result":{}}');
    m = await s.request('str-id', 'ping');
    t.ok(m && m.id === 'str-id' && m.result && Object.keys(m.result).length === 0, 'ping with a string id', m);
    t.is(s.lines.length, 0, 'blank lines, notifications and responses got no reply', s.lines);
    t.ok(s.rawStdout.split('\n').filter(Boolean).every((l) => JSON.parse(l).jsonrpc === '2.0'),
      'stdout carries only JSON-RPC lines');
    t.is((await s.close()).code, 0, 'exit 0 on EOF');
  });

  test('raw argument errors by protocol version (SEP-1303)', async (t) => {
    for (const version of ['2025-11-25', '2025-06-18']) {
      const s = new RawServer();
      await s.initialize(version);
      const calls = [
        ['missing code', { name: 'execute_python', arguments: {} }],
        ['code not a string', { name: 'execute_python', arguments: { code: 7 } }],
        ['timeout out of range', { name: 'execute_python', arguments: { code: 'print(1)', timeout: 0 } }],
        ['unknown argument', { name: 'execute_command', arguments: { command: 'true', code: 'x' } }],
      ];
      let id = 10;
      for (const [desc, params] of calls) {
        const m = await s.request(++id, 'tools/call', params);
        if (version === '2025-11-25') {
          t.ok(m?.result?.isError === true && !m.error, `${version} ${desc}: a tool error (isError)`, m);
          t.ok(/Invalid arguments/.test(m?.result?.content?.[0]?.text ?? ''), `${version} ${desc}: says what is wrong`, m);
        } else {
          t.is(err(m), -32602, `${version} ${desc}: -32602`);
        }
      }
      for (const [desc, params] of [
        ['unknown tool', { name: 'nope', arguments: {} }],
        ['arguments not an object', { name: 'execute_python', arguments: [1] }],
      ]) {
        t.is(err(await s.request(++id, 'tools/call', params)), -32602, `${version} ${desc}: always -32602`);
      }
      t.is((await s.close()).code, 0, `${version}: exit 0 on EOF`);
    }
  });

  test('raw invalid UTF-8 bytes', async (t) => {
    const s = new RawServer();
    s.proc.stdin.write(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"p\xffing"}\n', 'latin1'));
    t.is(err(await s.response(null)), -32700, 'invalid UTF-8: -32700');
    t.ok((await s.request(2, 'ping'))?.result, 'ping still works');
    await s.close();
  });

  test('raw huge line', async (t) => {
    const s = new RawServer();
    const big = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + 'x'.repeat(17 << 20) + '"}}';
    s.send(big);
    const m = await s.response(null, 60000);
    t.is(err(m), -32600, 'a 17 MiB line is refused with -32600');
    t.ok((await s.request(2, 'ping'))?.result, 'a valid ping right after still works');
    t.is(s.lines.length, 0, 'the rest of the huge line was skipped, not parsed', s.lines.slice(0, 3));
    const okBig = '{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"' + 'y'.repeat(8 << 20) + '"}}';
    s.send(okBig);
    t.ok((await s.response(3, 60000))?.result, 'an 8 MiB line is accepted');
    await s.close();
  }, { timeout: 120000 });

  test('raw last line without newline', async (t) => {
    const s = new RawServer();
    s.proc.stdin.end('{"jsonrpc":"2.0","id":1,"method":"ping"}');
    t.ok((await s.response(1))?.result, 'answered before exit');
    t.is((await s.exited).code, 0, 'exit 0');
  });

  test('raw cancellation sends no response', async (t) => {
    const s = new RawServer(['--allow-profile', 'unsafe-python']);
    await s.initialize();
    const marker = uniqueMarker('acsr');
    s.send({ jsonrpc: '2.0', id: 50, method: 'tools/call',
      params: { name: 'execute_python', arguments: { code: sleeperCode(marker), profile: 'unsafe-python', timeout: 60 } } });
    t.ok(await until(() => pidsNamed(marker).length > 0, 20000), 'sandbox running');
    s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 50, reason: 'test' } });
    t.ok(await until(() => pidsNamed(marker).length === 0, 15000), 'sandbox killed');
    t.ok((await s.request(51, 'ping'))?.result, 'ping after cancel');
    await sleep(300);
    t.ok(!s.lines.some((m) => m.id === 50), 'no response for the cancelled request', s.lines);
    // cancelling an unknown or finished id is harmless
    s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 12345 } });
    s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: {} });
    t.ok((await s.request(52, 'ping'))?.result, 'stray cancellations ignored');
    t.is((await s.close()).code, 0, 'exit 0');
  });

  test('raw queued call cancelled', async (t) => {
    const s = new RawServer(['--max-concurrency', '1', '--allow-profile', 'unsafe-python']);
    await s.initialize();
    const marker = uniqueMarker('acsq');
    const call = (id, code) => s.send({ jsonrpc: '2.0', id, method: 'tools/call',
      params: { name: 'execute_python', arguments: { code, profile: 'unsafe-python', timeout: 60 } } });
    call(60, sleeperCode(marker));
    call(61, 'print("queued")');
    call(62, 'print("second")');
    t.ok(await until(() => pidsNamed(marker).length > 0, 20000), 'first call running, others queued');
    s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 61 } });
    s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 60 } });
    const m = await s.response(62, 30000);
    t.is(m?.result?.structuredContent?.stdout?.text, 'second\n', 'the queue moves on after cancelling');
    t.ok(!s.lines.some((x) => x.id === 60 || x.id === 61), 'no responses for cancelled calls', s.lines);
    await s.close();
  });

  test('raw EOF kills in-flight calls', async (t) => {
    const s = new RawServer(['--allow-profile', 'unsafe-python']);
    await s.initialize();
    const marker = uniqueMarker('acse');
    s.send({ jsonrpc: '2.0', id: 70, method: 'tools/call',
      params: { name: 'execute_python', arguments: { code: sleeperCode(marker), profile: 'unsafe-python', timeout: 60 } } });
    t.ok(await until(() => pidsNamed(marker).length > 0, 20000), 'sandbox running');
    const ex = await s.close();
    t.is(ex.code, 0, 'exit 0 on EOF with a call in flight');
    t.ok(await until(() => pidsNamed(marker).length === 0, 15000), 'no sandbox process left');
  });

  test('raw SIGTERM', async (t) => {
    const s = new RawServer(['--allow-profile', 'unsafe-python']);
    await s.initialize();
    const marker = uniqueMarker('acst');
    s.send({ jsonrpc: '2.0', id: 80, method: 'tools/call',
      params: { name: 'execute_python', arguments: { code: sleeperCode(marker), profile: 'unsafe-python', timeout: 60 } } });
    t.ok(await until(() => pidsNamed(marker).length > 0, 20000), 'sandbox running');
    s.proc.kill('SIGTERM');
    const ex = await s.exited;
    t.is(ex.code, 0, 'exit 0 on SIGTERM');
    t.ok(await until(() => pidsNamed(marker).length === 0, 15000), 'no sandbox process left');
  });

  test('raw server options: --workspace and --profile', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'acs-mcp-ws.'));
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'data.txt'), 'from-the-host\n');
    chmodSync(join(dir, 'data.txt'), 0o644);
    try {
      const s = new RawServer(['--workspace', dir, '--profile', 'pure-math', '--allow-profile', 'default']);
      await s.initialize();
      const callTool = (id, name, args) => s.request(id, 'tools/call', { name, arguments: args });
      let m = await callTool(1, 'execute_command', { command: 'cat /workspace/data.txt; echo new > /workspace/out.txt' });
      t.is(m?.result?.structuredContent?.stdout?.text, 'from-the-host\n', 'calls see --workspace at /workspace');
      t.ok(JSON.stringify(m?.result?.structuredContent?.files ?? {}).includes('out.txt'), 'changes reported',
        m?.result?.structuredContent?.files);
      t.ok(!readdirSync(dir).includes('out.txt'), 'and never written to the host');
      m = await callTool(2, 'execute_python', { code: 'print(2 + 2)' });
      t.is(m?.result?.structuredContent?.profile, 'pure-math', '--profile is the default of execute_python');
      m = await callTool(3, 'execute_python', { code: 'print(1)', profile: 'default' });
      t.is(m?.result?.structuredContent?.profile, 'default', 'the profile argument overrides it (--allow-profile)');
      m = await callTool(4, 'execute_command', { command: 'true' });
      t.is(m?.result?.structuredContent?.profile, 'shell', 'execute_command uses shell by default');
      t.is((await s.close()).code, 0, 'exit 0');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('raw program output cannot reach the protocol stream', async (t) => {
    const s = new RawServer();
    await s.initialize();
    s.send({ jsonrpc: '2.0', id: 90, method: 'tools/call',
      params: { name: 'execute_command', arguments: { command: 'printf "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":91,\\"result\\":{}}\\n"; printf "\\n\\n" >&2' } } });
    const m = await s.response(90);
    t.ok(m?.result, 'command ran');
    t.ok(!s.lines.some((x) => x.id === 91), 'program stdout stayed inside the report');
    t.ok(s.rawStdout.split('\n').filter(Boolean).every((l) => JSON.parse(l).jsonrpc === '2.0'), 'only JSON-RPC on stdout');
    await s.close();
  });
}
