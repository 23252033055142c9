// SPDX-License-Identifier: LGPL-2.1-or-later
// What a tools/call result carries, through the official TypeScript SDK:
// the patch only on request and capped, and (execute_command) the profile,
// working directory and environment a call may choose.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACS, test, until, pidsNamed, uniqueMarker, sleeperCode } from './lib.mjs';
import { cpus } from 'node:os';

const text = (r) => (r?.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
const PATCH_CAP = 64 << 10;

// A text file, a binary file (NUL bytes: git treats it as binary) and a nested one.
const WRITES =
  "import os\nos.makedirs('pkg/__pycache__', exist_ok=True)\n" +
  "open('notes.txt', 'w').write('one\\ntwo\\nthree\\n')\n" +
  "open('pkg/__pycache__/m.cpython-311.pyc', 'wb').write(bytes(range(256)) * 64)\n" +
  "open('pkg/m.py', 'w').write('x = 1')\n";

export function register(sdk) {
  const { Client, StdioClientTransport } = sdk;
  let client;
  // the server's --workspace: one directory for execute_command's cwd (never written to)
  const ws = mkdtempSync(join(tmpdir(), 'acs-results-ws-'));
  mkdirSync(join(ws, 'sub'));
  const call = (name, args, opts) => client.callTool({ name, arguments: args }, undefined, opts);

  test('results: connect', async (t) => {
    const transport = new StdioClientTransport({
      command: ACS,
      args: ['mcp', '--allow-profile', 'unsafe-python', '--workspace', ws],
      env: { ...process.env },
      stderr: 'inherit',
    });
    client = new Client({ name: 'acs-results-test', version: '1.0.0' });
    await client.connect(transport);
    // as real clients do: the SDK now validates every result against the outputSchema
    const { tools } = await client.listTools();
    t.ok(tools.find((x) => x.name === 'execute_python')?.inputSchema?.properties?.patch, 'execute_python takes "patch"');
    t.ok(tools.find((x) => x.name === 'execute_command')?.inputSchema?.properties?.patch, 'execute_command takes "patch"');
  });

  test('results: no patch unless asked', async (t) => {
    const r = await call('execute_python', { code: WRITES, profile: 'unsafe-python' });
    const files = r.structuredContent?.files;
    t.is(r.isError, false, 'the run succeeded');
    t.is(files?.patch, undefined, 'no files.patch by default');
    t.is(files?.patch_skipped, undefined, 'nor patch_skipped');
    const pyc = files?.added?.find((x) => x.path === 'pkg/__pycache__/m.cpython-311.pyc');
    t.ok(pyc && pyc.size === 16384 && /^[0-9a-f]{64}$/.test(pyc.sha256 ?? '') && pyc.type === 'file',
      'each path comes with its type, size and sha256', files);
    t.ok(JSON.stringify(r).length < 8192, `the whole result is small (${JSON.stringify(r).length} bytes)`);
    t.ok(text(r).includes('"patch": true'), 'the text says how to get the patch', text(r));
  });

  test('results: the patch on request, and git apply takes it', async (t) => {
    const r = await call('execute_python', { code: WRITES, profile: 'unsafe-python', patch: true });
    const patch = r.structuredContent?.files?.patch;
    t.ok(typeof patch === 'string' && patch.includes('diff --git a/notes.txt b/notes.txt'), 'files.patch is there',
      r.structuredContent?.files);
    t.ok(patch?.includes('GIT binary patch'), 'the binary file as a git binary patch');
    t.is(r.structuredContent?.files?.patch_truncated, undefined, 'not truncated');
    t.ok(/patch: in files.patch \(\d+ bytes\)/.test(text(r)), 'the text says where it is', text(r));
    const dir = mkdtempSync(join(tmpdir(), 'acs-patch-'));
    try {
      writeFileSync(join(dir, 'p.diff'), patch ?? '');
      execFileSync('git', ['apply', '--unsafe-paths', '--directory=w', 'p.diff'], { cwd: dir, stdio: 'pipe' });
      t.is(readFileSync(join(dir, 'w/notes.txt'), 'utf8'), 'one\ntwo\nthree\n', 'git apply wrote the text file');
      const pyc = readFileSync(join(dir, 'w/pkg/__pycache__/m.cpython-311.pyc'));
      t.ok(pyc.length === 16384 && pyc[255] === 255 && pyc[256] === 0, 'and the binary file, byte for byte');
    } catch (e) {
      t.ok(false, 'git apply accepts the patch', String(e.stderr ?? e));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('results: a big patch is cut at a file boundary', async (t) => {
    // 40 files of ~4 KB of text: ~170 KB of patch, over the 64 KiB cap
    const code = "for i in range(40):\n    open(f'f{i:02}.txt', 'w').write(('line %d\\n' % i) * 600)\n";
    const r = await call('execute_python', { code, profile: 'unsafe-python', patch: true });
    const files = r.structuredContent?.files;
    t.is(files?.patch_truncated, true, 'patch_truncated set');
    t.ok(files?.patch && JSON.stringify(files.patch).length - 2 <= PATCH_CAP, 'the patch is within 64 KiB JSON-encoded',
      files?.patch?.length);
    t.ok(files?.patch?.startsWith('diff --git a/f00.txt') && files.patch.endsWith('\n'), 'whole files, from the first');
    const n = (files?.patch?.match(/^diff --git /gm) ?? []).length;
    t.ok(n > 0 && n < 40, `${n} of 40 files in it`);
    t.is(files?.added?.length, 40, 'every file still listed');
    t.ok(/cut to its first files/.test(text(r)), 'the text says it was cut', text(r));
  });

  test('results: at least 4 calls at once by default', async (t) => {
    const marker = uniqueMarker('cc');
    const acs = [0, 1, 2, 3].map(() => new AbortController());
    const calls = acs.map((ac) =>
      call('execute_python', { code: sleeperCode(marker), profile: 'unsafe-python', timeout: 60 }, { signal: ac.signal })
        .catch(() => null));
    const four = await until(() => pidsNamed(marker).length >= 4, 30000);
    t.ok(four, `4 sandboxes run at once on ${cpus().length} CPUs (no --max-concurrency)`, pidsNamed(marker));
    for (const ac of acs) ac.abort('done');
    await Promise.all(calls);
    t.ok(await until(() => pidsNamed(marker).length === 0, 15000), 'all cancelled');
  }, { timeout: 60000 });

  // MCP 2025-06-18 progress: the SDK sends _meta.progressToken when given onprogress,
  // and with resetTimeoutOnProgress each notification restarts its request timeout.
  test('results: progress keeps a long call alive', async (t) => {
    const code = 'import time\ntime.sleep(4.5)\nprint("done")\n';
    const seen = [];
    const r = await call('execute_python', { code, profile: 'unsafe-python', timeout: 30 },
      { timeout: 2500, resetTimeoutOnProgress: true, onprogress: (p) => seen.push(p) });
    t.is(r?.structuredContent?.stdout?.text, 'done\n', 'a 4.5 s call succeeds with a 2.5 s request timeout');
    t.ok(seen.length >= 3, `progress notifications came (${seen.length})`, seen);
    t.ok(seen.every((p, i) => i === 0 || p.progress > seen[i - 1].progress), 'progress increases', seen);
    t.ok(/running for \d+ s/.test(seen[0]?.message ?? ''), 'with a message', seen[0]);
    let err = null;
    try {
      await call('execute_python', { code, profile: 'unsafe-python', timeout: 30 },
        { timeout: 2500, onprogress: () => {} });
    } catch (e) {
      err = e;
    }
    t.ok(err && /timed out|timeout/i.test(String(err)), 'without resetTimeoutOnProgress the same call times out',
      String(err));
  }, { timeout: 30000 });

  test('results: execute_command takes a profile, cwd and env', async (t) => {
    const r = await call('execute_command', { command: 'pwd; printf "%s" "$GREETING"', cwd: 'sub',
      env: { GREETING: 'hi there' } });
    t.is(r.structuredContent?.stdout?.text, '/workspace/sub\nhi there', 'it ran in /workspace/sub with GREETING set',
      r.structuredContent);
    t.is(r.structuredContent?.profile, 'shell', 'under shell by default');
    const p = await call('execute_command', { command: 'echo ok', profile: 'unsafe-python' });
    t.is(p.structuredContent?.profile, 'unsafe-python', 'a profile the operator allows');
    const no = await call('execute_command', { command: 'echo ok', profile: 'pure-math' });
    t.ok(no.isError && /Not allowed: profile "pure-math"/.test(text(no)), 'one it does not allow is refused', text(no));
    const up = await call('execute_command', { command: 'pwd', cwd: 'sub/../../etc' });
    t.ok(up.isError && /"cwd" must be \/workspace/.test(text(up)), 'a cwd leaving /workspace is refused', text(up));
    const bad = await call('execute_command', { command: 'env', env: { 'A-B': 'x' } });
    t.ok(bad.isError && /"env" entry "A-B"/.test(text(bad)), 'a bad variable name is refused', text(bad));
  });

  test('results: close', async (t) => {
    rmSync(ws, { recursive: true, force: true });
    await client.close();
    t.ok(true, 'client closed');
  });
}
