// SPDX-License-Identifier: LGPL-2.1-or-later
// Shared helpers for the MCP tests: a tiny TAP producer, locating the
// binary and the SDK, spawning the server, and polling for processes.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const BUILDDIR = process.env.ACS_BUILDDIR ?? '.';
export const SRCDIR = process.env.ACS_SRCDIR ?? '.';
export const ACS = join(BUILDDIR, 'acs-launch');

let n = 0;
let failed = 0;
const tests = [];

export function test(name, fn, { timeout = 60000 } = {}) {
  tests.push({ name, fn, timeout });
}

export function diag(msg) {
  for (const line of String(msg).split('\n').slice(0, 40)) console.log(`# ${line.slice(0, 500)}`);
}

class Check {
  constructor(name) {
    this.name = name;
  }
  ok(cond, desc, info) {
    n++;
    console.log(`${cond ? '' : 'not '}ok ${n} - ${this.name}: ${desc}`);
    if (!cond) {
      failed++;
      if (info !== undefined) diag(typeof info === 'string' ? info : JSON.stringify(info, null, 1));
    }
    return cond;
  }
  is(got, want, desc) {
    return this.ok(got === want, desc, `got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  }
  skip(desc, why) {
    n++;
    console.log(`ok ${n} # SKIP ${this.name}: ${desc} (${why})`);
  }
}

export async function runAll() {
  for (const t of tests) {
    const c = new Check(t.name);
    let timer;
    try {
      await Promise.race([
        t.fn(c),
        new Promise((_, rej) => {
          timer = setTimeout(() => rej(new Error(`timed out after ${t.timeout} ms`)), t.timeout);
        }),
      ]);
    } catch (e) {
      c.ok(false, 'completes without exception', e?.stack ?? String(e));
    } finally {
      clearTimeout(timer);
    }
  }
  tests.length = 0;
}

export function finish() {
  console.log(`1..${n}`);
  return failed === 0 ? 0 : 1;
}

// The SDK from tests/mcp/node_modules in the source or the build tree (npm ci by make check).
export async function loadSdk() {
  const candidates = [
    process.env.ACS_MCP_NODE_MODULES,
    join(SRCDIR, 'tests/mcp/node_modules'),
    join(BUILDDIR, 'tests/mcp/node_modules'),
  ].filter(Boolean);
  for (const dir of candidates) {
    const base = join(dir, '@modelcontextprotocol/sdk/dist/esm');
    if (!existsSync(join(base, 'client/index.js'))) continue;
    const imp = (p) => import(pathToFileURL(join(base, p)).href);
    const [client, stdio, types] = await Promise.all([
      imp('client/index.js'),
      imp('client/stdio.js'),
      imp('types.js'),
    ]);
    return { ...client, ...stdio, ...types, dir };
  }
  return null;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Poll until fn() is truthy or the deadline passes; returns the last value.
export async function until(fn, ms = 15000, step = 50) {
  const end = Date.now() + ms;
  let v;
  while (!(v = await fn()) && Date.now() < end) await sleep(step);
  return v;
}

// Processes whose name (comm) is exactly name.
export function pidsNamed(name) {
  try {
    return execFileSync('pgrep', ['-x', name], { encoding: 'utf8' }).split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

export function uniqueMarker(tag) {
  // comm holds 15 bytes; keep markers short and unique per run.
  return `${tag}${process.pid.toString(36)}${Math.random().toString(36).slice(2, 6)}`.slice(0, 15);
}

// Python that renames itself (so `pgrep -x` finds it) and then sleeps forever.
export function sleeperCode(marker) {
  return (
    `open('/proc/self/comm', 'w').write(${JSON.stringify(marker)})\n` +
    `import time\nwhile True:\n    time.sleep(0.05)\n`
  );
}

// A raw server: write lines, read parsed response lines.
export class RawServer {
  constructor(args = [], env = {}, { cwd } = {}) {
    this.proc = spawn(ACS, ['mcp', ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
      cwd,
    });
    this.lines = [];
    this.rawStdout = '';
    this.stderr = '';
    this.waiters = [];
    this.exited = new Promise((resolve) => {
      this.proc.on('exit', (code, signal) => resolve({ code, signal }));
    });
    this.proc.stdin.on('error', () => {});
    this.proc.stdout.setEncoding('utf8');
    this.proc.stderr.setEncoding('utf8');
    this.proc.stderr.on('data', (d) => {
      if (this.stderr.length < 100000) this.stderr += d;
    });
    let buf = '';
    this.proc.stdout.on('data', (d) => {
      this.rawStdout += d.length < 1 << 20 ? d : '';
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        let msg;
        try {
          msg = JSON.parse(line);
        } catch {
          msg = { unparsable: line };
        }
        this.lines.push(msg);
        this.wake();
      }
    });
  }
  wake() {
    for (const w of this.waiters.splice(0)) w();
  }
  send(obj) {
    this.proc.stdin.write((typeof obj === 'string' ? obj : JSON.stringify(obj)) + '\n');
  }
  // Next response with this id (or with id null when id === null).
  async response(id, ms = 30000) {
    const end = Date.now() + ms;
    for (;;) {
      const i = this.lines.findIndex((m) => m.id === id && ('result' in m || 'error' in m));
      if (i >= 0) return this.lines.splice(i, 1)[0];
      if (Date.now() > end) return null;
      await Promise.race([new Promise((r) => this.waiters.push(r)), sleep(100)]);
    }
  }
  async request(id, method, params) {
    this.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    return this.response(id);
  }
  async initialize(version = '2025-06-18') {
    const r = await this.request(0, 'initialize', {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: 'raw-test', version: '1' },
    });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return r;
  }
  async close() {
    this.proc.stdin.end();
    return this.exited;
  }
}
