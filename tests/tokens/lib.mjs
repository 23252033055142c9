// SPDX-License-Identifier: LGPL-2.1-or-later
// Shared by tokens.mjs (the test) and calibrate.mjs (the tuning report):
// acs-launch's estimate through tests/unit/token-tool, and the real
// tokenizers (OpenAI's tiktoken, pinned by package-lock.json).
import { execFileSync } from "node:child_process";
import { get_encoding } from "tiktoken";

export const TOKENIZERS = { cl100k: get_encoding("cl100k_base"), o200k: get_encoding("o200k_base") };

// Real token counts of a string (special-token text counts as plain text).
export function realCounts(text) {
  const r = {};
  for (const [k, enc] of Object.entries(TOKENIZERS)) r[k] = enc.encode(text, [], []).length;
  r.max = Math.max(...Object.values(r));
  return r;
}

// Run samples through the token tool: adds .text (what acs-launch reports),
// .estimate (of that text) and .streamTokens (the report's count).
export function estimate(tool, samples) {
  const parts = [];
  for (const s of samples) parts.push(Buffer.from(`${s.keepAnsi ? 1 : 0} ${s.bytes.length}\n`), s.bytes);
  const out = execFileSync(tool, [], { input: Buffer.concat(parts), maxBuffer: 1 << 30 });
  let off = 0;
  for (const s of samples) {
    const nl = out.indexOf(10, off);
    const [est, stream, len] = out.subarray(off, nl).toString().split(" ").map(Number);
    s.estimate = est;
    s.streamTokens = stream;
    s.text = out.subarray(nl + 1, nl + 1 + len).toString("utf8");
    off = nl + 1 + len;
  }
  if (off !== out.length) throw new Error("token-tool: output does not match the samples");
  return samples;
}
