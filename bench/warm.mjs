// SPDX-License-Identifier: LGPL-2.1-or-later
// Warm mode (issue 14) in one run: the median round trip of
// execute_python("print(1)") through the official MCP SDK client against
//   - `acs-launch mcp` on stdio with its pool of ready sandboxes (--pool 2),
//   - `acs-launch mcp --pool 0` (every call a cold sandbox, as before),
//   - `acs-launch serve --socket` (the SDK client over a unix socket),
//   - the floor: a stdio server that answers every call at once with the
//     pooled server's own result for it (a few lines of python3: no
//     sandbox, no interpreter run; what the SDK client, the transport and
//     JSON cost),
// and a bare `python3 -I -S -c 'print(1)'` spawned from the same Node
// process; all are interleaved so that drift on a shared machine hits
// them alike. Every client lists the tools first, as real clients do, so
// the SDK validates each result against the tool's outputSchema. Prints
// medians in ms and the ratios to bare python.
//   node bench/warm.mjs [N] [PAUSE_MS]   (env: ACS_BUILDDIR, ACS_SRCDIR, ACS_PROFILE_PATH, PYTHON3)
// PAUSE_MS (default 0) is slept after each round, like an agent's think
// time; the pool refills between calls that are that far apart.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { unixSocketTransport } from '../tests/mcp/transport.mjs';
import { setTimeout as sleep } from 'node:timers/promises';

const here = dirname(fileURLToPath(import.meta.url));
const srcdir = resolve(process.env.ACS_SRCDIR ?? join(here, '..'));
const builddir = resolve(process.env.ACS_BUILDDIR ?? srcdir);
const acs = join(builddir, 'acs-launch');
const python = process.env.PYTHON3 ?? '/usr/bin/python3';
const n = Number(process.argv[2] ?? process.env.N ?? 50);
const pause = Number(process.argv[3] ?? 0);
const warmup = 3;

const sdkBase = [join(srcdir, 'tests/mcp/node_modules'), join(builddir, 'tests/mcp/node_modules')]
  .map((d) => join(d, '@modelcontextprotocol/sdk/dist/esm'))
  .find((d) => existsSync(join(d, 'client/index.js')));
if (!sdkBase) {
  console.error('warm: the MCP SDK is not installed: (cd tests/mcp && npm ci)');
  process.exit(2);
}
const sdk = (p) => import(pathToFileURL(join(sdkBase, p)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');

const UnixSocketTransport = unixSocketTransport(await sdk('shared/stdio.js'));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];

function bare() {
  return new Promise((res, rej) => {
    const t0 = performance.now();
    const p = spawn(python, ['-I', '-S', '-c', 'print(1)'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('error', rej);
    p.on('close', (code) => (code === 0 && out === '1\n' ? res(performance.now() - t0) : rej(new Error(`python3 exited ${code}`))));
  });
}

async function stdioClient(args) {
  const c = new Client({ name: 'acs-warm-bench', version: '1' });
  await c.connect(new StdioClientTransport({ command: acs, args, env: { ...process.env }, stderr: 'inherit' }));
  return c;
}

const dir = mkdtempSync(join(tmpdir(), 'acs-bench-warm.'));
const sock = join(dir, 'serve.sock');
const server = spawn(acs, ['serve', '--socket', sock, '--pool', '2'], { stdio: ['ignore', 'inherit', 'inherit'] });
process.on('exit', () => server.kill('SIGTERM')); // also when a call fails
for (let i = 0; i < 200 && !existsSync(sock); i++) await sleep(25);
await sleep(500); // the spare connection's pool

const clients = {
  'MCP stdio, pool': await stdioClient(['mcp', '--pool', '2']),
  'MCP stdio, no pool (cold)': await stdioClient(['mcp', '--pool', '0']),
  'MCP serve socket, pool': new Client({ name: 'acs-warm-bench', version: '1' }),
};
await clients['MCP serve socket, pool'].connect(new UnixSocketTransport(sock));
await sleep(500); // the pools start

// The floor: the pooled server's tool list and its result for this call,
// answered by a server that does nothing else (ids echoed as sent).
const real = clients['MCP stdio, pool'];
const canned = join(dir, 'canned.json');
writeFileSync(canned, JSON.stringify({
  tools: await real.listTools(),
  result: await real.callTool({ name: 'execute_python', arguments: { code: 'print(1)' } }),
}));
const cannedServer = `
import json, sys
c = json.load(open(sys.argv[1]))
out = sys.stdout
for line in sys.stdin:
    m = json.loads(line)
    if 'id' not in m:
        continue
    if m['method'] == 'initialize':
        r = {'protocolVersion': m['params']['protocolVersion'], 'capabilities': {'tools': {}},
             'serverInfo': {'name': 'canned', 'version': '1'}}
    elif m['method'] == 'tools/list':
        r = c['tools']
    elif m['method'] == 'tools/call':
        r = c['result']
    else:
        out.write(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'error': {'code': -32601, 'message': 'no'}}) + '\\n')
        out.flush()
        continue
    out.write(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': r}) + '\\n')
    out.flush()
`;
const floor = new Client({ name: 'acs-warm-bench', version: '1' });
await floor.connect(new StdioClientTransport({ command: python, args: ['-I', '-S', '-c', cannedServer, canned],
                                               stderr: 'inherit' }));
clients['MCP stdio, floor (canned)'] = floor;
for (const c of Object.values(clients)) await c.listTools();

async function call(c) {
  const t0 = performance.now();
  const r = await c.callTool({ name: 'execute_python', arguments: { code: 'print(1)' } });
  const dt = performance.now() - t0;
  if (r.isError || r.structuredContent?.stdout?.text !== '1\n')
    throw new Error(`unexpected result: ${JSON.stringify(r).slice(0, 400)}`);
  return dt;
}

const times = Object.fromEntries([...Object.keys(clients), 'bare'].map((k) => [k, []]));
for (let i = 0; i < warmup + n; i++) {
  for (const [k, c] of Object.entries(clients)) {
    const dt = await call(c);
    if (i >= warmup) times[k].push(dt);
    if (pause) await sleep(pause);
  }
  const dt = await bare();
  if (i >= warmup) times.bare.push(dt);
  if (pause) await sleep(pause);
}
for (const c of Object.values(clients)) await c.close();
server.kill('SIGTERM');
await new Promise((res) => server.on('close', res));
rmSync(dir, { recursive: true, force: true });

const f = (x) => x.toFixed(2);
const mb = median(times.bare);
console.log(`rounds: ${n} (after ${warmup} warm-up), interleaved, ${pause} ms pause after each call`);
console.log(`bare python3 -I -S -c 'print(1)': median ${f(mb)} ms  p90 ${f(pct(times.bare, 90))} ms`);
for (const k of Object.keys(clients)) {
  const m = median(times[k]);
  console.log(`${k.padEnd(28)}: median ${f(m)} ms  p90 ${f(pct(times[k], 90))} ms  ratio ${(m / mb).toFixed(2)}`);
}
