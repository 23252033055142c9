// SPDX-License-Identifier: LGPL-2.1-or-later
// Median round trip of execute_python("print(1)") through the official MCP SDK
// client against `acs-launch mcp`, and of a bare `python3 -I -S -c 'print(1)'`
// spawned from the same Node process, in the same run. Prints the ratio.
//   node bench/mcp-latency.mjs [N]   (env: ACS_BUILDDIR, ACS_SRCDIR, ACS_PROFILE_PATH, PYTHON3)
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

const here = dirname(fileURLToPath(import.meta.url));
const srcdir = resolve(process.env.ACS_SRCDIR ?? join(here, '..'));
const builddir = resolve(process.env.ACS_BUILDDIR ?? srcdir);
const acs = join(builddir, 'acs-launch');
const python = process.env.PYTHON3 ?? '/usr/bin/python3';
const n = Number(process.argv[2] ?? process.env.N ?? 100);
const warmup = 5;

const sdkBase = [join(srcdir, 'tests/mcp/node_modules'), join(builddir, 'tests/mcp/node_modules')]
  .map((d) => join(d, '@modelcontextprotocol/sdk/dist/esm'))
  .find((d) => existsSync(join(d, 'client/index.js')));
if (!sdkBase) {
  console.error('mcp-latency: the MCP SDK is not installed: (cd tests/mcp && npm ci)');
  process.exit(2);
}
const { Client } = await import(pathToFileURL(join(sdkBase, 'client/index.js')).href);
const { StdioClientTransport } = await import(pathToFileURL(join(sdkBase, 'client/stdio.js')).href);

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

const transport = new StdioClientTransport({ command: acs, args: ['mcp'], env: { ...process.env }, stderr: 'inherit' });
const client = new Client({ name: 'acs-mcp-latency', version: '1' });
await client.connect(transport);
// As real clients do: tools/list first, so that the SDK compiles each tool's
// outputSchema (Ajv) and validates every result's structuredContent against it.
const { tools } = await client.listTools();
const schemaBytes = JSON.stringify(tools.find((t) => t.name === 'execute_python')?.outputSchema ?? {}).length;

async function viaMcp() {
  const t0 = performance.now();
  const r = await client.callTool({ name: 'execute_python', arguments: { code: 'print(1)' } });
  const dt = performance.now() - t0;
  if (r.isError || r.structuredContent?.stdout?.text !== '1\n')
    throw new Error(`unexpected result: ${JSON.stringify(r).slice(0, 400)}`);
  return dt;
}

const mcp = [];
const py = [];
for (let i = 0; i < warmup; i++) {
  await viaMcp();
  await bare();
}
// Interleave the two so that drift on the machine affects both alike.
for (let i = 0; i < n; i++) {
  mcp.push(await viaMcp());
  py.push(await bare());
}
await client.close();

const mm = median(mcp);
const mp = median(py);
const f = (x) => x.toFixed(2);
console.log(`calls: ${n} each (after ${warmup} warm-up), sequential, one server; results validated against a ${schemaBytes}-byte outputSchema`);
console.log(`execute_python("print(1)") via MCP SDK: median ${f(mm)} ms  p90 ${f(pct(mcp, 90))} ms  min ${f(Math.min(...mcp))} ms`);
console.log(`bare python3 -I -S -c 'print(1)':       median ${f(mp)} ms  p90 ${f(pct(py, 90))} ms  min ${f(Math.min(...py))} ms`);
console.log(`ratio (MCP round trip / bare python): ${(mm / mp).toFixed(2)}`);
