// SPDX-License-Identifier: LGPL-2.1-or-later
// acs-launch mcp --http: the Streamable HTTP transport, driven by the
// official SDK's StreamableHTTPClientTransport ("sdk") and by raw HTTP
// requests that a conforming client would never send ("security").
// Emits one TAP stream. Env: ACS_BUILDDIR, ACS_SRCDIR (as for the shell tests).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync, rmSync, readdirSync, readlinkSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ACS, test, diag, runAll, finish, loadSdk, until, pidsNamed, uniqueMarker, sleeperCode, sleep } from './lib.mjs';

const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'http-test', version: '1' } },
};
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

// A server on 127.0.0.1 and a port the kernel picks; the URL comes from its first stderr line.
class HttpServer {
  static async start(args = [], { env = {}, listen = '127.0.0.1:0' } = {}) {
    const s = new HttpServer();
    s.proc = spawn(ACS, ['mcp', '--http', listen, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, v]) => v !== undefined)),
    });
    s.stderr = '';
    s.exited = new Promise((resolve) => s.proc.on('exit', (code, signal) => resolve({ code, signal })));
    s.proc.stderr.setEncoding('utf8');
    s.proc.stderr.on('data', (d) => {
      if (s.stderr.length < 100000) s.stderr += d;
    });
    const m = await until(() => /serving MCP over HTTP at (http:\/\/[^\s]+\/mcp)/.exec(s.stderr) || s.proc.exitCode !== null, 15000);
    if (!m || m === true) return s; // s.url undefined: the caller reports s.stderr
    s.url = m[1];
    s.port = Number(new URL(s.url).port);
    return s;
  }
  // Pids of the server's children (the session servers).
  children() {
    try {
      return readFileSync(`/proc/${this.proc.pid}/task/${this.proc.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    } catch {
      return [];
    }
  }
  async stop() {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGTERM');
    return this.exited;
  }
}

// One request on a fresh connection; resolves with status, headers and body text.
function req(url, { method = 'POST', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const r = httpRequest(url, { method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
      res.on('error', reject);
    });
    r.on('error', reject);
    r.end(body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
  });
}

// Raw bytes on a socket; resolves with everything the server sent until it closed (or ms passed).
function raw(port, bytes, ms = 20000) {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
    let got = '';
    const t0 = Date.now();
    const timer = setTimeout(() => {
      sock.destroy();
      resolve({ got, closed: false, ms: Date.now() - t0 });
    }, ms);
    sock.on('data', (d) => (got += d));
    sock.on('error', () => {});
    sock.on('close', () => {
      clearTimeout(timer);
      resolve({ got, closed: true, ms: Date.now() - t0 });
    });
    sock.write(bytes);
  });
}

async function initSession(url, headers = {}) {
  const r = await req(url, { headers: { ...JSON_HEADERS, ...headers }, body: INIT });
  return { r, sid: r.headers['mcp-session-id'] };
}

function tokenFile(token) {
  const dir = mkdtempSync(join(tmpdir(), 'acs-http-'));
  writeFileSync(join(dir, 'token'), `${token}\n`, { mode: 0o600 });
  return { dir, file: join(dir, 'token') };
}

function registerSdk(sdk, Transport) {
  const { Client } = sdk;

  test('sdk over http', async (t) => {
    const token = `tok-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const tf = tokenFile(token);
    const srv = await HttpServer.start(['--http-token-file', tf.file, '--allow-profile', 'unsafe-python']);
    try {
      if (!t.ok(srv.url, 'server announces its URL', srv.stderr)) return;
      const transport = new Transport(new URL(srv.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
      const client = new Client({ name: 'acs-http-test', version: '1.0.0' });
      await client.connect(transport);
      t.is(client.getServerVersion()?.name, 'acs-launch', 'initialize over HTTP: serverInfo.name');
      t.ok(/^[0-9a-f]{32}$/.test(transport.sessionId ?? ''), 'a session id was assigned', transport.sessionId);
      const tools = await client.listTools();
      t.ok(tools.tools.some((x) => x.name === 'execute_python'), 'tools/list names execute_python');
      const r = await client.callTool({ name: 'execute_python', arguments: { code: 'print(6 * 7)' } });
      const text = (r.content ?? []).map((c) => c.text ?? '').join('\n');
      t.ok(/\b42\b/.test(text), 'execute_python ran in a sandbox and printed 42', text);
      t.is(r.structuredContent?.status, 'exited', 'structured report status');
      // two calls at once on one session: each answer finds its own request
      const [a, b] = await Promise.all([
        client.callTool({ name: 'execute_python', arguments: { code: 'print("first")' } }),
        client.callTool({ name: 'execute_python', arguments: { code: 'print("second")' } }),
      ]);
      t.ok(/first/.test(a.content[0].text) && /second/.test(b.content[0].text), 'concurrent calls answered to their requests');
      const sid = transport.sessionId;
      const kids = srv.children();
      t.is(kids.length, 1, 'one session server child');
      await transport.terminateSession();
      t.is(transport.sessionId, undefined, 'DELETE ended the session (SDK terminateSession)');
      const after = await req(srv.url, {
        headers: { ...JSON_HEADERS, authorization: `Bearer ${token}`, 'mcp-session-id': sid },
        body: { jsonrpc: '2.0', id: 9, method: 'ping' },
      });
      t.is(after.status, 404, 'the ended session is unknown afterwards');
      t.ok(await until(() => srv.children().length === 0, 10000), 'its session server exited', srv.children());
      await client.close();
    } finally {
      const st = await srv.stop();
      t.is(st.code, 0, 'SIGTERM: the server exits 0');
      rmSync(tf.dir, { recursive: true, force: true });
    }
  });

  // A long call's SSE stream is not silent: a comment every 15 s keeps proxies from cutting it.
  test('sse keep-alive', async (t) => {
    const srv = await HttpServer.start();
    try {
      if (!t.ok(srv.url, 'server starts', srv.stderr)) return;
      const { sid } = await initSession(srv.url);
      const r = await req(srv.url, {
        headers: { ...JSON_HEADERS, 'mcp-session-id': sid },
        body: {
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'execute_python', arguments: { code: 'import time\ntime.sleep(16.5)\nprint("slept")', timeout: 30 } },
        },
      });
      t.is(r.headers['content-type'], 'text/event-stream', 'tools/call answered as an SSE stream');
      const ping = r.text.indexOf(': keep-alive\n\n');
      const answer = r.text.indexOf('event: message\ndata: {"jsonrpc":"2.0","id":7,');
      t.ok(ping >= 0 && answer > ping, 'a keep-alive comment came before the answer', r.text.slice(0, 300));
      t.ok(/slept/.test(r.text), 'and the answer came');
    } finally {
      await srv.stop();
    }
  }, { timeout: 60000 });

  // Whatever notifications a call sends (progress, once the server reports it),
  // the HTTP transport delivers the same as stdio does: it routes them by progressToken.
  test('notifications over http as over stdio', async (t) => {
    const code = 'import time\nfor i in range(3):\n    print(i, flush=True)\n    time.sleep(0.4)\n';
    const count = async (transport) => {
      const client = new Client({ name: 'acs-http-progress', version: '1.0.0' });
      await client.connect(transport);
      let n = 0;
      const r = await client.callTool({ name: 'execute_python', arguments: { code } }, undefined, {
        onprogress: () => n++,
      });
      await client.close();
      return { n, ok: /\b2\b/.test(r.content?.[0]?.text ?? '') };
    };
    const stdio = await count(new sdk.StdioClientTransport({ command: ACS, args: ['mcp'], env: { ...process.env }, stderr: 'inherit' }));
    const srv = await HttpServer.start();
    try {
      if (!t.ok(srv.url, 'server starts', srv.stderr)) return;
      const http = await count(new Transport(new URL(srv.url)));
      t.ok(stdio.ok && http.ok, 'the call ran over both transports');
      t.is(http.n, stdio.n, `progress notifications: ${stdio.n} over stdio, as many over HTTP`);
    } finally {
      await srv.stop();
    }
  });
}

function registerSecurity() {
  test('default bind address', async (t) => {
    for (const listen of ['0', ':0']) {
      const srv = await HttpServer.start([], { listen });
      try {
        if (!t.ok(srv.url, `--http ${listen} starts`, srv.stderr)) continue;
        const hex = srv.port.toString(16).toUpperCase().padStart(4, '0');
        const rows = readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1).map((l) => l.trim().split(/\s+/));
        const mine = rows.filter((r) => r[1]?.endsWith(`:${hex}`) && r[3] === '0A');
        t.ok(mine.length === 1 && mine[0][1] === `0100007F:${hex}`, `--http ${listen} listens on 127.0.0.1 only (/proc/net/tcp)`, mine);
        const v6 = readFileSync('/proc/net/tcp6', 'utf8').split('\n').filter((l) => l.includes(`:${hex} `) && / 0A /.test(l));
        t.is(v6.length, 0, `--http ${listen}: nothing on IPv6`);
      } finally {
        await srv.stop();
      }
    }
    const open = await HttpServer.start([], { listen: '0.0.0.0:0', env: { ACS_MCP_HTTP_TOKEN: undefined } });
    const st = await open.exited;
    t.is(st.code, 125, 'a non-loopback address without a token is refused (exit 125)');
    t.ok(/needs a token/.test(open.stderr), 'and says it needs a token', open.stderr);
    const empty = await HttpServer.start([], { env: { ACS_MCP_HTTP_TOKEN: '' } });
    t.is((await empty.exited).code, 125, 'an empty ACS_MCP_HTTP_TOKEN is refused, not taken as no token');
    const td = tokenFile('unused');
    try {
      const unreadable = await HttpServer.start(['--http-token-file', td.dir]);
      t.is((await unreadable.exited).code, 125, 'a --http-token-file that cannot be read (a directory) is refused');
      t.ok(/--http-token-file .*: Is a directory/.test(unreadable.stderr),
        '  naming the file and the read error (not "the token is empty")', unreadable.stderr);
    } finally {
      rmSync(td.dir, { recursive: true, force: true });
    }
  });

  test('origin and host', async (t) => {
    const srv = await HttpServer.start();
    try {
      if (!t.ok(srv.url, 'server starts', srv.stderr)) return;
      let { r } = await initSession(srv.url, { origin: 'http://evil.example' });
      t.is(r.status, 403, 'a foreign Origin is refused with 403');
      t.is(srv.children().length, 0, '  and no session was started');
      ({ r } = await initSession(srv.url, { origin: `http://localhost.evil.example:${srv.port}` }));
      t.is(r.status, 403, 'a look-alike Origin is refused');
      ({ r } = await initSession(srv.url, { origin: 'null' }));
      t.is(r.status, 403, 'Origin: null is refused');
      ({ r } = await initSession(srv.url, { host: `evil.example:${srv.port}` }));
      t.is(r.status, 403, 'a rebound Host name is refused with 403');
      const ok = await initSession(srv.url, { origin: `http://localhost:${srv.port}` });
      t.is(ok.r.status, 200, 'a loopback Origin is served');
      t.ok(ok.sid, '  with a session id');
    } finally {
      t.is((await srv.stop()).code, 0, 'server exits 0');
    }
  });

  test('bearer token', async (t) => {
    const token = `tok${process.pid}`;
    const tf = tokenFile(token);
    const srv = await HttpServer.start(['--http-token-file', tf.file]);
    try {
      if (!t.ok(srv.url, 'server starts', srv.stderr)) return;
      let { r } = await initSession(srv.url);
      t.is(r.status, 401, 'no token: 401');
      t.ok(/^Bearer\b/.test(r.headers['www-authenticate'] ?? ''), '  with WWW-Authenticate: Bearer', r.headers);
      ({ r } = await initSession(srv.url, { authorization: `Bearer ${token}x` }));
      t.is(r.status, 401, 'a wrong token: 401');
      ({ r } = await initSession(srv.url, { authorization: `Basic ${token}` }));
      t.is(r.status, 401, 'another scheme: 401');
      t.is(srv.children().length, 0, 'no session was started without the token');
      ({ r } = await initSession(srv.url, { authorization: `Bearer ${token}` }));
      t.is(r.status, 200, 'the token: 200');
    } finally {
      t.is((await srv.stop()).code, 0, 'server exits 0');
      rmSync(tf.dir, { recursive: true, force: true });
    }
    const envSrv = await HttpServer.start(['--allow-profile', 'unsafe-python'], { env: { ACS_MCP_HTTP_TOKEN: token } });
    try {
      const { r } = await initSession(envSrv.url);
      t.is(r.status, 401, 'ACS_MCP_HTTP_TOKEN sets the token too');
      const sid = (await initSession(envSrv.url, { authorization: `Bearer ${token}` })).sid;
      t.ok(sid, 'a session with the token from the environment');
      // The variable is unset and its bytes wiped: neither the front end's nor a
      // session server's /proc/PID/environ (its original environment block) shows it.
      const procs = [envSrv.proc.pid, ...envSrv.children()];
      const shows = procs.filter((p) => {
        try {
          return readFileSync(`/proc/${p}/environ`).includes(token);
        } catch {
          return true;
        }
      });
      t.ok(procs.length === 2 && shows.length === 0, 'the token is not in /proc/PID/environ of the server or its session', shows);
    } finally {
      await envSrv.stop();
    }
  });

  test('sessions and methods', async (t) => {
    const srv = await HttpServer.start();
    try {
      if (!t.ok(srv.url, 'server starts', srv.stderr)) return;
      const { r, sid } = await initSession(srv.url);
      t.is(r.status, 200, 'initialize: 200');
      t.ok(/^[0-9a-f]{32}$/.test(sid ?? ''), 'initialize assigns an Mcp-Session-Id', r.headers);
      t.ok((r.headers['content-type'] ?? '').startsWith('application/json'), 'initialize answered as application/json');
      const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
      let x = await req(srv.url, { headers: JSON_HEADERS, body: ping });
      t.is(x.status, 400, 'no Mcp-Session-Id after initialize: 400');
      x = await req(srv.url, { headers: { ...JSON_HEADERS, 'mcp-session-id': 'f'.repeat(32) }, body: ping });
      t.is(x.status, 404, 'an unknown session: 404');
      x = await req(srv.url, { headers: { ...JSON_HEADERS, 'mcp-session-id': sid, 'mcp-protocol-version': '1999-01-01' }, body: ping });
      t.is(x.status, 400, 'an unsupported MCP-Protocol-Version: 400');
      x = await req(srv.url, { headers: { ...JSON_HEADERS, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' }, body: ping });
      t.ok(x.status === 200 && JSON.parse(x.text).id === 1, 'ping in the session: 200 with its answer', x);
      x = await req(srv.url, {
        headers: { ...JSON_HEADERS, 'mcp-session-id': sid },
        body: { jsonrpc: '2.0', method: 'notifications/initialized' },
      });
      t.is(x.status, 202, 'a notification: 202');
      x = await req(srv.url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': sid } });
      t.is(x.status, 405, 'GET (no server stream offered): 405');
      x = await req(srv.url.replace('/mcp', '/other'), { headers: JSON_HEADERS, body: INIT });
      t.is(x.status, 404, 'another path: 404');
      x = await req(srv.url, { headers: { ...JSON_HEADERS, 'content-type': 'text/plain' }, body: INIT });
      t.is(x.status, 415, 'a body that is not application/json: 415');
      x = await req(srv.url, { headers: { ...JSON_HEADERS, 'mcp-session-id': sid }, body: '{"jsonrpc":' });
      t.ok(x.status === 400 && JSON.parse(x.text).error?.code === -32700, 'malformed JSON: 400 with a parse error', x);
      x = await req(srv.url, { headers: { ...JSON_HEADERS, 'mcp-session-id': sid }, body: 'x'.repeat(5 << 20) });
      t.is(x.status, 413, 'a body over 4 MiB: 413');
      const bomb = await raw(srv.port, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20000)}\r\n\r\n`);
      t.ok(/^HTTP\/1\.1 431 /.test(bomb.got) && bomb.closed, 'a head over 16 KiB: 431 and closed', bomb.got.slice(0, 100));
      const smuggle = await raw(srv.port, 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n');
      t.ok(/^HTTP\/1\.1 400 /.test(smuggle.got), 'Content-Length with Transfer-Encoding: 400', smuggle.got.slice(0, 100));
      const kids = srv.children();
      x = await req(srv.url, { method: 'DELETE', headers: { 'mcp-session-id': sid } });
      t.is(x.status, 204, 'DELETE: 204');
      t.ok(await until(() => srv.children().length === 0, 10000), 'the session server exited', kids);
      x = await req(srv.url, { headers: { ...JSON_HEADERS, 'mcp-session-id': sid }, body: ping });
      t.is(x.status, 404, 'the deleted session: 404');
    } finally {
      t.is((await srv.stop()).code, 0, 'server exits 0');
    }
  });

  test('connection limits', async (t) => {
    const srv = await HttpServer.start();
    try {
      if (!t.ok(srv.url, 'server starts', srv.stderr)) return;
      // slowloris: a head that never ends is answered 408 and closed after the head timeout
      const slow = await raw(srv.port, 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n', 20000);
      t.ok(slow.closed && /^HTTP\/1\.1 408 /.test(slow.got) && slow.ms < 15000, 'an unfinished head: 408 and closed within the timeout', slow);
      // 64 idle connections take every slot; the next one is turned away at once
      const socks = [];
      for (let i = 0; i < 64; i++) {
        const s = connect(srv.port, '127.0.0.1');
        s.on('error', () => {});
        socks.push(s);
      }
      await Promise.all(socks.map((s) => new Promise((r) => s.on('connect', r))));
      await sleep(300);
      const extra = await raw(srv.port, '', 5000);
      t.ok(/^HTTP\/1\.1 503 /.test(extra.got) && extra.closed, 'connection 65: 503 and closed', extra);
      for (const s of socks) s.destroy();
      await sleep(300);
      const { r } = await initSession(srv.url);
      t.is(r.status, 200, 'served again once they close');
    } finally {
      t.is((await srv.stop()).code, 0, 'server exits 0');
    }
  }, { timeout: 90000 });

  test('fds and sessions', async (t) => {
    const srv = await HttpServer.start();
    const fds = (pid) => {
      try {
        return readdirSync(`/proc/${pid}/fd`).map((f) => {
          try {
            return readlinkSync(`/proc/${pid}/fd/${f}`);
          } catch {
            return '';
          }
        });
      } catch {
        return null;
      }
    };
    try {
      if (!t.ok(srv.url, 'server starts', srv.stderr)) return;
      const before = fds(srv.proc.pid);
      const hex = srv.port.toString(16).toUpperCase().padStart(4, '0');
      const row = readFileSync('/proc/net/tcp', 'utf8').split('\n').map((l) => l.trim().split(/\s+/)).find((r) => r[1] === `0100007F:${hex}` && r[3] === '0A');
      const listener = row ? `socket:[${row[9]}]` : '?';
      t.ok(before.includes(listener), 'the listener is found among the server\'s fds', { listener, before });
      // 16 sessions are the limit; the 17th is turned away
      const sids = [];
      for (let i = 0; i < 16; i++) sids.push((await initSession(srv.url)).sid);
      t.ok(sids.every(Boolean), '16 sessions start');
      const { r } = await initSession(srv.url);
      t.is(r.status, 503, 'session 17: 503');
      const kid = srv.children()[0];
      const kfds = fds(kid) ?? [];
      // fds 0 and 1 are its socket to the front end, 2 is our stderr pipe (a socket in node)
      const extra = readdirSync(`/proc/${kid}/fd`).filter((f) => Number(f) > 2).map((f) => readlinkSync(`/proc/${kid}/fd/${f}`));
      t.ok(kfds.length > 0 && !kfds.includes(listener) && !extra.some((f) => f.startsWith('socket:')),
        'a session server holds neither the listener nor any other socket', kfds);
      for (const sid of sids) await req(srv.url, { method: 'DELETE', headers: { 'mcp-session-id': sid } });
      t.ok(await until(() => srv.children().length === 0, 15000), 'every session server exited after DELETE', srv.children());
      const after = await until(() => {
        const a = fds(srv.proc.pid);
        return a && a.length === before.length ? a : null;
      }, 5000);
      t.ok(after, 'the server holds as many fds as before the sessions', { before, after: fds(srv.proc.pid) });
    } finally {
      t.is((await srv.stop()).code, 0, 'server exits 0');
    }
  });

  test('SIGTERM with a call running', async (t) => {
    const srv = await HttpServer.start(['--allow-profile', 'unsafe-python']);
    const marker = uniqueMarker('acshttp');
    try {
      if (!t.ok(srv.url, 'server starts', srv.stderr)) return;
      const { sid } = await initSession(srv.url);
      const call = req(srv.url, {
        headers: { ...JSON_HEADERS, 'mcp-session-id': sid },
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'execute_python', arguments: { code: sleeperCode(marker), timeout: 60 } },
        },
      }).catch((e) => ({ error: String(e) }));
      t.ok(await until(() => pidsNamed(marker).length > 0, 20000), 'the sandboxed program runs');
      const kids = srv.children();
      const st = await srv.stop();
      t.is(st.code, 0, 'SIGTERM: exit 0');
      t.ok(await until(() => pidsNamed(marker).length === 0, 10000), 'the sandboxed program is gone', pidsNamed(marker));
      t.ok(kids.length === 1 && kids.every((p) => !existsPid(p)), 'the session server is gone', kids);
      await call;
    } finally {
      await srv.stop();
    }
  });
}

function existsPid(pid) {
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch {
    return false;
  }
}

const only = process.argv[2]; // "sdk" | "security" | undefined
if (only === undefined || only === 'security') registerSecurity();
if (only === undefined || only === 'sdk') {
  const sdk = await loadSdk();
  if (sdk) {
    diag(`MCP SDK from ${sdk.dir}`);
    const mod = await import(pathToFileURL(join(sdk.dir, '@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js')).href);
    registerSdk(sdk, mod.StreamableHTTPClientTransport);
  } else {
    test('sdk', async (t) => t.skip('SDK HTTP client tests', 'tests/mcp/node_modules missing: run npm ci in tests/mcp'));
  }
}
await runAll();
process.exitCode = finish();
