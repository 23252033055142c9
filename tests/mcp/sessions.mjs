// SPDX-License-Identifier: LGPL-2.1-or-later
// Sessions beyond execute_python (issue 14, item 3) through the official MCP
// SDK client, over stdio `mcp` and `serve --socket`: execute_command with a
// session runs in that session's sandbox (its workspace, /tmp, seccomp and
// limits), with its own clipped output and report; a session keeps its
// profile, and one whose profile runs no commands refuses them clearly.
// Emits one TAP stream. Env: ACS_BUILDDIR, ACS_SRCDIR (as for the shell tests).
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ACS, SRCDIR, test, diag, runAll, finish, loadSdk, until } from './lib.mjs';
import { textOf, tempDir, unixSocketTransport, warnProfile } from './transport.mjs';

// The default profile's sandbox, its scan only warning: its Python may start processes, so commands run.
const cmdProfile = (dir) => warnProfile(dir, 'sess-cmd', 'session commands');

async function unixTransport(sdk) {
  return unixSocketTransport(await import(
    pathToFileURL(join(sdk.dir, '@modelcontextprotocol/sdk/dist/esm/shared/stdio.js')).href));
}

async function stdioClient(sdk, args) {
  const c = new sdk.Client({ name: 'acs-sessions-test', version: '1' });
  await c.connect(new sdk.StdioClientTransport({ command: ACS, args, env: { ...process.env }, stderr: 'inherit' }));
  return c;
}

async function commands(t, c, where) {
  const s = `cmd-${where}`;
  const py = (code, extra = {}) => c.callTool({ name: 'execute_python', arguments: { session: s, code, ...extra } });
  const sh = (command, extra = {}) => c.callTool({ name: 'execute_command', arguments: { session: s, command, ...extra } });
  const out = (r) => r?.structuredContent?.stdout?.text;
  let r = await py('import os\nx = 41\nopen("from-py.txt", "w").write("py")\nopen("/tmp/t.txt", "w").write("tmp")\n' +
    'print("py says", os.readlink("/proc/self/ns/mnt"), os.readlink("/proc/self/ns/pid"))');
  const ns = /^py says (\S+) (\S+)\n$/.exec(out(r) ?? '');
  t.ok(ns, `${where}: control: the session's first call ran`, r);
  r = await sh('cat from-py.txt /tmp/t.txt; echo; readlink /proc/self/ns/mnt /proc/self/ns/pid; echo "$X"; pwd',
    { env: { X: 'envval' } });
  t.is(out(r), `pytmp\n${ns?.[1]}\n${ns?.[2]}\nenvval\n/workspace\n`,
    `${where}: the command runs in the session's sandbox: its workspace, /tmp, mount and pid namespaces; env applies`);
  t.is(r.structuredContent?.status, 'exited', `${where}: the command has its own report`);
  t.ok(!/py says/.test(out(r)), `${where}: its output is its own, not the previous call's`);
  r = await sh('grep -E "^(Seccomp|NoNewPrivs):" /proc/self/status | tr -d "\\t"');
  t.is(out(r), 'NoNewPrivs:1\nSeccomp:2\n', `${where}: the command runs under the session's seccomp filter and no_new_privs`);
  r = await sh('mkdir -p sub && cd sub && echo made > by-cmd.txt && echo done');
  r = await sh('pwd; cat by-cmd.txt', { cwd: '/workspace/sub' });
  t.is(out(r), '/workspace/sub\nmade\n', `${where}: "cwd" sets the command's directory`);
  r = await py('print(x + 1, open("sub/by-cmd.txt").read().strip())');
  t.is(out(r), '42 made\n', `${where}: after commands the globals persist and Python sees the command's file`);
  r = await sh('echo out; echo err >&2; exit 3');
  t.ok(r.isError && r.structuredContent?.exit_code === 3 && r.structuredContent?.stderr?.text === 'err\n',
    `${where}: a command's exit status and stderr are its own`, r.structuredContent);
  r = await sh('yes | head -c 3000000');
  t.ok(r.structuredContent?.stdout?.truncated === true || (r.structuredContent?.stdout?.text ?? '').length < 3000000,
    `${where}: a command's output is clipped`, JSON.stringify(r.structuredContent?.stdout).slice(0, 200));
  r = await sh('echo hi', { profile: 'unsafe-python' });
  t.ok(r.isError && /keeps the profile/.test(textOf(r)), `${where}: a command with another profile is refused`, r);
  r = await sh('sleep 30', { timeout: 1 });
  t.is(r.structuredContent?.status, 'timeout', `${where}: a session command's timeout holds`);
  r = await py('print(x)');
  t.ok(r.isError && /ended/.test(textOf(r)), `${where}: a timed-out command ends the session, as a timed-out call does`, r);
  await c.callTool({ name: 'close_session', arguments: { session: s } });
}

// files keeps the changes since the session started; files.since_previous the changes since the previous call
async function deltas(t, c, where, validate) {
  const s = `delta-${where}`;
  const py = async (code) => {
    const r = await c.callTool({ name: 'execute_python', arguments: { session: s, code } });
    t.ok(validate(r.structuredContent), `${where}: the report validates against doc/report.schema.json`, validate.errors);
    return r;
  };
  const since = (r) => JSON.stringify(r?.structuredContent?.files?.since_previous);
  const all = (r) => JSON.stringify((r?.structuredContent?.files?.added ?? []).map((f) => f.path));
  let r = await py('open("a.txt", "w").write("1")');
  t.is(since(r), '{"added":["a.txt"],"modified":[],"deleted":[]}', `${where}: the first call's since_previous is against the start`);
  r = await py('open("b.txt", "w").write("2")\nopen("a.txt", "w").write("changed")');
  t.is(since(r), '{"added":["b.txt"],"modified":["a.txt"],"deleted":[]}', `${where}: the second call's: b added, a modified`);
  t.is(all(r), '["a.txt","b.txt"]', `${where}: files still lists every change since the session started`);
  t.ok(/since the previous call: 1 added, 1 modified, 0 deleted/.test(textOf(r)), `${where}: the text says it too`, textOf(r));
  r = await py('print("nothing")');
  t.is(since(r), '{"added":[],"modified":[],"deleted":[]}', `${where}: a call that changes nothing has an empty since_previous`);
  t.is(all(r), '["a.txt","b.txt"]', `${where}: while files still has the session's changes`);
  await c.callTool({ name: 'write_file', arguments: { session: s, path: 'up.txt', content: 'u' } });
  r = await py('import os\nos.remove("b.txt")');
  t.is(since(r), '{"added":["up.txt"],"modified":[],"deleted":["b.txt"]}',
    `${where}: a file removed since the previous call, and one write_file put in between`);
  t.is(all(r), '["a.txt","up.txt"]', `${where}: files: the session's changes, b.txt gone`);
  await c.callTool({ name: 'close_session', arguments: { session: s } });
}

// [limits] cpu counts each call of a session, not the whole session
function cpuProfile(dir) {
  const f = join(dir, 'sess-cpu.ini');
  writeFileSync(f, '[profile]\ndescription = session cpu\ninherit = default\n\n[limits]\ncpu = 2\ntimeout = 30\n');
  chmodSync(f, 0o644);
  return f;
}

const burn = (s) => `import time\nt = time.process_time()\nwhile time.process_time() - t < ${s}:\n    pass\nprint("burnt")`;

async function cpuPerCall(t, sdk, dir) {
  const c = await stdioClient(sdk, ['mcp', '--pool', '0', '--profile', cpuProfile(dir)]);
  const py = (session, code, extra = {}) => c.callTool({ name: 'execute_python', arguments: { session, code, ...extra } });
  try {
    let ok3 = true;
    for (let i = 1; i <= 3; i++) {
      const r = await py('c1', burn(1.3));
      ok3 &&= t.is(r.structuredContent?.stdout?.text, 'burnt\n', `call ${i} of a session burns 1.3 s of its 2 s a call`);
    }
    let r = await py('c1', 'print("still here")');
    t.is(r.structuredContent?.stdout?.text, 'still here\n', 'the session lives on after 3.9 s of CPU in all');
    t.is(r.structuredContent?.limits?.cpu_s, 2, "the report's cpu_s is the per-call limit");
    let t0 = Date.now();
    r = await py('c2', 'while True:\n    pass');
    t.ok(r.structuredContent?.status === 'cpu' && Date.now() - t0 < 15000,
      'a call that spins is stopped at the per-call CPU limit (status cpu)', r.structuredContent);
    r = await py('c3', burn(1.5), { cpu: 1 });
    t.is(r.structuredContent?.status, 'cpu', 'a call\'s "cpu" lowers its own limit');
    r = await py('c4', 'x = 1', { cpu: 1 });
    r = await py('c4', burn(1.5));
    t.is(r.structuredContent?.stdout?.text, 'burnt\n', 'the lowered limit was for that call only');
    r = await py('c4', 'print(x)', { cpu: 5 });
    t.ok(r.isError && /may only lower/.test(textOf(r)), 'a call\'s "cpu" above the limit is refused', r);
  } finally {
    await c.close();
  }
}

function registerSdk(sdk) {
  test('sdk session commands', async (t) => {
    const dir = tempDir('sessions-cmd');
    const profile = cmdProfile(dir);
    const sock = join(dir, 'serve.sock');
    const server = spawn(ACS, ['serve', '--socket', sock, '--pool', '0', '--profile', profile, '--allow-profile', 'unsafe-python'],
      { stdio: ['ignore', 'inherit', 'inherit'] });
    const exited = new Promise((res) => server.on('exit', (code, signal) => res({ code, signal })));
    // the full report schema (2020-12), with the Ajv the SDK brings
    const { default: Ajv2020 } = await import(pathToFileURL(join(sdk.dir, 'ajv/dist/2020.js')).href);
    const validate = new Ajv2020({ strict: false, allErrors: true })
      .compile(JSON.parse(readFileSync(join(SRCDIR, 'doc/report.schema.json'), 'utf8')));
    try {
      const c = await stdioClient(sdk, ['mcp', '--pool', '0', '--profile', profile, '--allow-profile', 'unsafe-python']);
      const list = (await c.listTools()).tools;
      t.ok(list.find((x) => x.name === 'execute_command')?.inputSchema?.properties?.session,
        'tools/list offers "session" on execute_command');
      await commands(t, c, 'stdio');
      await deltas(t, c, 'stdio', validate);
      await c.close();
      t.ok(await until(() => existsSync(sock)), 'serve listens on its socket');
      const Unix = await unixTransport(sdk);
      const sc = new sdk.Client({ name: 'acs-sessions-test', version: '1' });
      await sc.connect(new Unix(sock));
      await commands(t, sc, 'serve');
      await deltas(t, sc, 'serve', validate);
      await sc.close();

      // the default profile's scan refuses processes: its sessions run no commands
      const d = await stdioClient(sdk, ['mcp', '--pool', '0']);
      let r = await d.callTool({ name: 'execute_python', arguments: { session: 'd', code: 'y = 7' } });
      t.is(r.structuredContent?.status, 'exited', 'control: a session of the default profile');
      r = await d.callTool({ name: 'execute_command', arguments: { session: 'd', command: 'echo ran > /workspace/ran' } });
      t.ok(r.isError && /runs no commands/.test(textOf(r)) && /subprocess/.test(textOf(r)),
        "a command in a session whose profile forbids processes is refused, saying why", r);
      r = await d.callTool({ name: 'execute_python', arguments: { session: 'd', code: 'import os.path\nprint(y, os.path.exists("ran"))' } });
      t.is(r.structuredContent?.stdout?.text, '7 False\n', 'the refused command ran nothing and the session goes on');
      r = await d.callTool({ name: 'execute_command', arguments: { session: 'e', command: 'echo hi' } });
      t.ok(r.isError && /runs no commands/.test(textOf(r)), 'nor may a command start such a session', r);
      r = await d.callTool({ name: 'execute_command', arguments: { command: 'echo cold' } });
      t.is(r.structuredContent?.stdout?.text, 'cold\n', 'control: execute_command without a session runs cold');
      await d.close();
      await cpuPerCall(t, sdk, dir);
    } finally {
      server.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  }, { timeout: 180000 });
}

const sdk = await loadSdk();
if (sdk) {
  diag(`MCP SDK from ${sdk.dir}`);
  registerSdk(sdk);
} else {
  test('sdk', async (t) => t.skip('SDK session tests', 'tests/mcp/node_modules missing: run npm ci in tests/mcp'));
}
await runAll();
process.exitCode = finish();
