// SPDX-License-Identifier: LGPL-2.1-or-later
// Files in and out of a session (issue 14, item 4): write_file and read_file
// through the official MCP SDK client over stdio `mcp`, `serve --socket` and
// `mcp --http` ("sdk"), and attacks on their confinement ("security": run by
// tests/security/files.sh as root and as nobody). Emits one TAP stream.
// Env: ACS_BUILDDIR, ACS_SRCDIR (as for the shell tests).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ACS, test, diag, runAll, finish, loadSdk, until, sleep } from './lib.mjs';
import { textOf, tempDir, unixSocketTransport, warnProfile } from './transport.mjs';

const MiB = 1 << 20;

// The default profile's sandbox, its scan only warning: the probes plant symlinks and fifos with os.
const probeProfile = (dir) => warnProfile(dir, 'files-probe', 'file probes');

// PNG signature and a chunk of every byte value: what a plot would come back as.
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44])]);

async function transports(sdk) {
  const UnixSocketTransport = unixSocketTransport(await import(
    pathToFileURL(join(sdk.dir, '@modelcontextprotocol/sdk/dist/esm/shared/stdio.js')).href));
  const http = await import(
    pathToFileURL(join(sdk.dir, '@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js')).href);
  return { UnixSocketTransport, HttpTransport: http.StreamableHTTPClientTransport };
}

function stdioClient(sdk, args) {
  const c = new sdk.Client({ name: 'acs-files-test', version: '1' });
  return c.connect(new sdk.StdioClientTransport({ command: ACS, args, env: { ...process.env }, stderr: 'inherit' }))
    .then(() => c);
}

// What every transport must do: inputs in, outputs out, byte for byte.
async function roundTrip(t, c, where) {
  const sess = `files-${where}`;
  const call = (name, args) => c.callTool({ name, arguments: { session: sess, ...args } });
  let r = await call('write_file', { path: 'in/data.csv', content: 'name,n\nx,40\ny,2\n' });
  t.ok(!r.isError && r.structuredContent?.size === 16 && r.structuredContent?.path === '/workspace/in/data.csv',
    `${where}: write_file puts a CSV into a new session`, r);
  r = await call('execute_python', {
    code: 'rows = [l.split(",") for l in open("in/data.csv").read().splitlines()[1:]]\n' +
      'print(sum(int(n) for _, n in rows))\n' +
      `open("plot.png", "wb").write(bytes(${JSON.stringify([...PNG])}))\n` +
      'open("summary.txt", "w").write("total: 42\\n")',
  });
  t.is(r.structuredContent?.stdout?.text, '42\n', `${where}: the next execute_python call reads the uploaded CSV`);
  r = await call('read_file', { path: '/workspace/plot.png', encoding: 'base64' });
  t.ok(!r.isError && Buffer.from(r.structuredContent?.content ?? '', 'base64').equals(PNG) &&
    r.structuredContent?.size === PNG.length && r.structuredContent?.encoding === 'base64',
    `${where}: read_file returns the PNG the code wrote byte for byte (base64)`, r);
  r = await call('read_file', { path: 'summary.txt' });
  t.ok(!r.isError && r.structuredContent?.content === 'total: 42\n' && textOf(r) === 'total: 42\n',
    `${where}: read_file returns text as text`, r);
  r = await call('read_file', { path: 'plot.png' });
  t.ok(r.isError && /not UTF-8 text.*base64/.test(textOf(r)), `${where}: binary read as text is refused, naming base64`, r);
  const bin = Buffer.from(Array.from({ length: 256 }, (_, i) => 255 - i));
  r = await call('write_file', { path: 'bin/all.bytes', content: bin.toString('base64'), encoding: 'base64' });
  t.is(r.structuredContent?.size, 256, `${where}: write_file takes base64`);
  r = await call('execute_python', { code: `print(open("bin/all.bytes", "rb").read() == bytes(range(255, -1, -1)))` });
  t.is(r.structuredContent?.stdout?.text, 'True\n', `${where}: the code sees the uploaded bytes exactly`);
  r = await c.callTool({ name: 'close_session', arguments: { session: sess } });
  r = await call('read_file', { path: 'summary.txt' });
  t.ok(r.isError && /No session/.test(textOf(r)), `${where}: read_file needs a session that exists`, r);
}

function registerSdk(sdk) {
  test('sdk files: stdio, serve and http', async (t) => {
    const { UnixSocketTransport, HttpTransport } = await transports(sdk);
    const dir = tempDir('files-sdk');
    const sock = join(dir, 'serve.sock');
    const server = spawn(ACS, ['serve', '--socket', sock, '--pool', '0'], { stdio: ['ignore', 'inherit', 'inherit'] });
    const exited = new Promise((res) => server.on('exit', (code, signal) => res({ code, signal })));
    const http = spawn(ACS, ['mcp', '--http', '127.0.0.1:0', '--pool', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    const httpExited = new Promise((res) => http.on('exit', (code, signal) => res({ code, signal })));
    let herr = '';
    http.stderr.setEncoding('utf8');
    http.stderr.on('data', (d) => { herr += d; });
    try {
      const stdio = await stdioClient(sdk, ['mcp', '--pool', '0']);
      const tools = (await stdio.listTools()).tools;
      const w = tools.find((x) => x.name === 'write_file');
      const rd = tools.find((x) => x.name === 'read_file');
      t.ok(w && rd && w.inputSchema.required.includes('session') && rd.inputSchema.properties.encoding,
        'tools/list offers write_file and read_file with "session" and "encoding"', tools.map((x) => x.name));
      await roundTrip(t, stdio, 'stdio');
      await stdio.close();

      t.ok(await until(() => existsSync(sock)), 'serve listens on its socket');
      const served = new sdk.Client({ name: 'acs-files-test', version: '1' });
      await served.connect(new UnixSocketTransport(sock));
      await roundTrip(t, served, 'serve');
      await served.close();

      const m = await until(() => /serving MCP over HTTP at (http:\/\/[^\s]+\/mcp)/.exec(herr));
      if (t.ok(m, 'mcp --http announces its URL', herr)) {
        const hc = new sdk.Client({ name: 'acs-files-test', version: '1' });
        await hc.connect(new HttpTransport(new URL(m[1])));
        await roundTrip(t, hc, 'http');
        await hc.close();
      }
    } finally {
      server.kill('SIGTERM');
      http.kill('SIGTERM');
      await exited;
      await httpExited;
      rmSync(dir, { recursive: true, force: true });
    }
  }, { timeout: 180000 });
}

// ---- attacks --------------------------------------------------------------

function registerSecurity(sdk) {
  test('files security', async (t) => {
    const dir = tempDir('files-sec');
    const profile = probeProfile(dir);
    // a host file no sandbox can see: a naive host-side read of the upper layer would follow a symlink to it
    const hostSecret = `host-secret-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const hostFile = join(dir, 'host-secret.txt');
    writeFileSync(hostFile, hostSecret);
    chmodSync(hostFile, 0o644);
    const c = await stdioClient(sdk, ['mcp', '--pool', '0', '--profile', profile]);
    const c2 = await stdioClient(sdk, ['mcp', '--pool', '0', '--profile', profile]);
    const call = (name, args, client = c) => client.callTool({ name, arguments: args });
    const py = (session, code) => call('execute_python', { session, code });
    const leaked = (r, ...secrets) => secrets.some((s) => JSON.stringify(r).includes(s));
    try {
      let r = await py('a', [
        'import os',
        `os.symlink(${JSON.stringify(hostFile)}, "host")`,
        'os.symlink("/etc/shadow", "shadow")',
        'os.symlink("/etc/passwd", "passwd")',
        'os.symlink("../../../../../../etc/passwd", "rel")',
        'os.symlink("/etc", "etcdir")',
        'os.symlink("/proc/self/root/etc/passwd", "procroot")',
        'os.symlink("/proc/self/cwd/../etc/passwd", "proccwd")',
        'os.symlink("/tmp", "tmpdir")',
        'os.mkfifo("fifo")',
        'os.makedirs("sub", exist_ok=True)',
        'os.symlink("../inside.txt", "sub/up")',
        'open("inside.txt", "w").write("inside")',
        'print(open("/etc/passwd").readline().strip())',
      ].join('\n'));
      const passwdHead = (r.structuredContent?.stdout?.text ?? '').trim();
      t.ok(passwdHead.includes(':'), 'control: the session planted its links and can read /etc/passwd', r);
      for (const [path, what] of [
        ['host', 'a symlink to a host file'],
        ['shadow', 'a symlink to /etc/shadow'],
        ['passwd', 'an absolute symlink to /etc/passwd'],
        ['rel', 'a relative symlink that climbs out'],
        ['etcdir/passwd', 'a directory symlink out of /workspace'],
        ['procroot', 'a symlink through /proc/self/root'],
        ['proccwd', 'a symlink through /proc/self/cwd'],
        ['../etc/passwd', '"../"'],
        ['sub/../../etc/passwd', '"sub/../../"'],
        ['/workspace/../etc/passwd', '"/workspace/../"'],
        ['/etc/passwd', 'an absolute path'],
        ['/proc/self/root/etc/passwd', '/proc/self/root'],
        ['/proc/self/cwd/inside.txt', '/proc/self/cwd'],
      ]) {
        const t0 = Date.now();
        r = await call('read_file', { session: 'a', path });
        t.ok(r.isError && !leaked(r, hostSecret, passwdHead) && Date.now() - t0 < 5000,
          `read_file refuses ${what} (${path})`, r);
      }
      r = await call('read_file', { session: 'a', path: 'sub/up' });
      t.is(r.structuredContent?.content, 'inside', 'control: a symlink that stays in /workspace is followed');
      for (const [path, what] of [
        ['tmpdir/planted', 'through a symlink to /tmp'],
        ['passwd', 'through a symlink to /etc/passwd'],
        ['host', 'through a symlink to a host file'],
        ['../escaped', 'by "../"'],
      ]) {
        r = await call('write_file', { session: 'a', path, content: 'pwned' });
        t.ok(r.isError, `write_file refuses to write ${what} (${path})`, r);
      }
      r = await py('a', 'print(os.path.exists("/tmp/planted"), open("/etc/passwd").readline().strip())');
      t.is(r.structuredContent?.stdout?.text, `False ${passwdHead}\n`, 'nothing was written outside /workspace');
      t.ok(!existsSync(join(dir, 'escaped')), 'nothing was written on the host');

      // fifos: never a hang, and the session goes on
      let t0 = Date.now();
      r = await call('read_file', { session: 'a', path: 'fifo' });
      t.ok(r.isError && /not a regular file/.test(textOf(r)) && Date.now() - t0 < 5000,
        'read_file of a fifo is refused at once', { r, ms: Date.now() - t0 });
      t0 = Date.now();
      r = await call('write_file', { session: 'a', path: 'fifo', content: 'x' });
      t.ok(r.isError && Date.now() - t0 < 5000, 'write_file to a fifo is refused at once', r);
      r = await py('a', 'print("alive")');
      t.is(r.structuredContent?.stdout?.text, 'alive\n', 'the session goes on after the refusals');

      // the cap
      r = await call('write_file', { session: 'a', path: 'big', content: Buffer.alloc(2 * MiB + 1, 0x41).toString('base64'), encoding: 'base64' });
      t.ok(r.isError && /2 MiB/.test(textOf(r)), 'write_file of 2 MiB + 1 byte is refused, naming the cap', r);
      r = await call('write_file', { session: 'a', path: 'big', content: 'B'.repeat(2 * MiB + 1) });
      t.ok(r.isError && /2 MiB/.test(textOf(r)), 'so is 2 MiB + 1 of text', r);
      r = await call('write_file', { session: 'a', path: 'exact', content: Buffer.alloc(2 * MiB, 0x43).toString('base64'), encoding: 'base64' });
      t.is(r.structuredContent?.size, 2 * MiB, 'control: exactly 2 MiB goes in');
      r = await py('a', 'import os\nprint(os.path.getsize("exact"))\nopen("huge", "wb").write(b"h" * (3 << 20))');
      t.is(r.structuredContent?.stdout?.text, `${2 * MiB}\n`, 'the code sees the 2 MiB file');
      t0 = Date.now();
      r = await call('read_file', { session: 'a', path: 'huge', encoding: 'base64' });
      t.ok(r.isError && /2 MiB/.test(textOf(r)) && JSON.stringify(r).length < 10000,
        'read_file of a 3 MiB file is refused, naming the cap, without its content', JSON.stringify(r).slice(0, 300));
      r = await call('read_file', { session: 'a', path: 'exact', encoding: 'base64' });
      t.is(r.structuredContent?.size, 2 * MiB, 'control: a 2 MiB file comes out');
      r = await py('a', 'print("still alive")');
      t.is(r.structuredContent?.stdout?.text, 'still alive\n', 'the session goes on after the cap');

      // 2 MiB of every byte value, newlines and NULs among them, twice in a row:
      // the server hands the bytes on raw after a header line (pool.h's frame)
      const every = Buffer.alloc(2 * MiB);
      for (let i = 0; i < every.length; i++) every[i] = (i * 131 + (i >> 9)) & 0xff;
      const sha = createHash('sha256').update(every).digest('hex');
      r = await call('write_file', { session: 'a', path: 'every1.bin', content: every.toString('base64'), encoding: 'base64' });
      const r2 = await call('write_file', { session: 'a', path: 'every2.bin', content: every.toString('base64'), encoding: 'base64' });
      t.ok(!r.isError && !r2.isError && r2.structuredContent?.size === 2 * MiB, 'two 2 MiB binary files go in one after the other', r2);
      r = await py('a', 'import hashlib\nprint(*(hashlib.sha256(open(f, "rb").read()).hexdigest() for f in ("every1.bin", "every2.bin")))');
      t.is(r.structuredContent?.stdout?.text, `${sha} ${sha}\n`, 'the code sees both byte for byte');
      r = await call('read_file', { session: 'a', path: 'every2.bin', encoding: 'base64' });
      t.ok(r.structuredContent?.content === every.toString('base64'), 'and read_file returns them byte for byte');

      // sessions never see each other's files
      r = await call('write_file', { session: 'a', path: 'mine.txt', content: 'only a' });
      t.ok(!r.isError, 'session a writes mine.txt');
      r = await call('read_file', { session: 'b', path: 'mine.txt' });
      t.ok(r.isError && /No session/.test(textOf(r)), 'read_file with an id that never started is refused', r);
      await py('b', 'x = 1');
      r = await call('read_file', { session: 'b', path: 'mine.txt' });
      t.ok(r.isError && !leaked(r, 'only a'), "session b cannot read session a's file", r);
      r = await call('read_file', { session: 'b', path: '/proc/1/root/workspace/mine.txt' });
      t.ok(r.isError && !leaked(r, 'only a'), "nor through /proc/1/root", r);
      r = await call('read_file', { session: 'a', path: 'mine.txt' }, c2);
      t.ok(r.isError && /No session/.test(textOf(r)), "another client's session a is not this one's", r);
      r = await call('read_file', { session: 'a', path: 'mine.txt' });
      t.is(r.structuredContent?.content, 'only a', 'control: session a reads its own file');

      // a call without a session, bad arguments
      r = await call('write_file', { path: 'x', content: 'y' });
      t.ok(r.isError && /needs "session"/.test(textOf(r)), 'write_file without a session is refused', r);
      r = await call('write_file', { session: 'a', path: 'x', content: '%%%', encoding: 'base64' });
      t.ok(r.isError && /base64/.test(textOf(r)), 'bad base64 is refused', r);
      r = await call('read_file', { session: 'a', path: '' });
      t.ok(r.isError, 'an empty path is refused', r);
      r = await call('read_file', { session: 'a', path: 'sub' });
      t.ok(r.isError, 'a directory is refused', r);
    } finally {
      await c.close();
      await c2.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, { timeout: 180000 });
}

const only = process.argv[2]; // "sdk" | "security" | undefined
const sdk = await loadSdk();
if (sdk) {
  diag(`MCP SDK from ${sdk.dir}`);
  if (only === undefined || only === 'sdk') registerSdk(sdk);
  if (only === undefined || only === 'security') registerSecurity(sdk);
} else {
  test('sdk', async (t) => t.skip('SDK file tests', 'tests/mcp/node_modules missing: run npm ci in tests/mcp'));
}
await runAll();
process.exitCode = finish();
