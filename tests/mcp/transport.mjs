// SPDX-License-Identifier: LGPL-2.1-or-later
// What the SDK-driven MCP tests and bench/warm.mjs share: the SDK's
// Transport over a connected unix socket (`acs-launch serve`:
// newline-delimited JSON-RPC, as on stdio), a result's text, a temp dir
// the unprivileged half can read, and a profile whose scan only warns.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The UnixSocketTransport class, made from the SDK's shared/stdio.js module ({ ReadBuffer, serializeMessage }).
export function unixSocketTransport({ ReadBuffer, serializeMessage }) {
  return class UnixSocketTransport {
    constructor(path) { this.path = path; this.buf = new ReadBuffer(); }
    start() {
      return new Promise((res, rej) => {
        this.sock = connect(this.path, res);
        this.sock.once('error', rej);
        this.sock.on('data', (d) => {
          this.buf.append(d);
          for (let m; (m = this.buf.readMessage()) !== null;) this.onmessage?.(m);
        });
        this.sock.on('close', () => this.onclose?.());
      });
    }
    send(msg) { return new Promise((res) => this.sock.write(serializeMessage(msg), res)); }
    async close() { this.sock?.end(); }
  };
}

// The text parts of a tools/call result, joined.
export const textOf = (r) => (r?.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

// A temp dir that the unprivileged half reads too.
export function tempDir(tag) {
  const d = mkdtempSync(join(tmpdir(), `acs-${tag}.`));
  chmodSync(d, 0o755);
  return d;
}

// dir/NAME.ini: the default profile with its scan only warning (the program may use os, start processes).
export function warnProfile(dir, name, description) {
  const f = join(dir, `${name}.ini`);
  writeFileSync(f, `[profile]\ndescription = ${description}\ninherit = default\n\n[scan]\nmode = warn\n`);
  chmodSync(f, 0o644);
  return f;
}
