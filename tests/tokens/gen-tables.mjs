// SPDX-License-Identifier: LGPL-2.1-or-later
// Writes src/clip-tokens-data.h: the per-character facts the token estimate
// (src/clip-tokens.c) uses, measured on the real tokenizers (OpenAI's
// cl100k_base and o200k_base, through the pinned `tiktoken` package). Every
// number is the larger of the two tokenizers' counts, so the estimate built on
// them is an upper bound for both.
//
//   node tests/tokens/gen-tables.mjs > src/clip-tokens-data.h
//
// What it measures:
//   - the tokens of each non-ASCII code point below U+30000 on its own: the
//     few that are one token are listed; for the rest, the largest count in
//     each block of 64 code points (one UTF-8 prefix) is kept (2 bits each);
//   - pairs of one-token CJK/kana/Hangul characters that are one token
//     together (a run of common CJK text is cheaper than its characters);
//   - how much a repeat of the same character costs (a run of "=" or "─"
//     is a few tokens, a run of "Z" or "é" is not);
//   - for letters and punctuation, how often each pair of characters occurs
//     inside a token of the vocabulary: a pair that never does is where a
//     token boundary falls in random text (the class of each pair).
import { get_encoding } from "tiktoken";

const ENC = [get_encoding("cl100k_base"), get_encoding("o200k_base")];
const VOCAB = [100256, 199998];
const count = (s) => Math.max(...ENC.map((e) => e.encode(s, [], []).length));
const PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
const LIMIT = 0x30000;
const out = [];
const p = (s) => out.push(s);
const hex = (n, w) => "0x" + n.toString(16).padStart(w, "0");
const rows = (arr, per, fmt) => {
  const r = [];
  for (let i = 0; i < arr.length; i += per) r.push("        " + arr.slice(i, i + per).map(fmt).join(", ") + ",");
  return r.join("\n");
};

// ---- non-ASCII code points on their own -----------------------------------
const cost = new Uint8Array(LIMIT);
for (let cp = 0x80; cp < LIMIT; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue;
  cost[cp] = count(String.fromCodePoint(cp));
}
const singles = [];
for (let cp = 0x80; cp < LIMIT; cp++) if (cost[cp] === 1) singles.push(cp);
const nblocks = LIMIT >> 6;
const blockmax = new Uint8Array(nblocks);
for (let cp = 0x80; cp < LIMIT; cp++) {
  const b = cp >> 6;
  if (cost[cp] > 1) blockmax[b] = Math.max(blockmax[b], cost[cp]);
}
const packed = new Uint8Array(nblocks / 4);
for (let b = 0; b < nblocks; b++) {
  const v = Math.max(blockmax[b], 2) - 1; // 1..3 for 2..4 tokens; surrogates: 2
  if (v > 3) throw new Error("block cost over 4 tokens");
  packed[b >> 2] |= v << ((b & 3) * 2);
}

// ---- pairs of cheap CJK characters that are one token ---------------------
const isCJK = (cp) => (cp >= 0x3000 && cp <= 0x9fff) || (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xff00 && cp <= 0xffef);
const pairs = new Set();
const SPACED = 2 ** 42; // the pair is one token only after a space (" ab")
for (let r = 0; r < VOCAB[0]; r++) {
  let b;
  try {
    b = ENC[0].decode_single_token_bytes(r);
  } catch {
    continue;
  }
  const s = Buffer.from(b).toString("utf8");
  const spaced = s[0] === " ";
  const cps = [...(spaced ? s.slice(1) : s)].map((c) => c.codePointAt(0));
  if (s.includes("\ufffd") || cps.length < 2 || !cps.every((c) => isCJK(c) && cost[c] === 1)) continue;
  for (let i = 0; i + 1 < cps.length; i++) {
    const pair = String.fromCodePoint(cps[i], cps[i + 1]);
    const key = cps[i] * 0x200000 + cps[i + 1];
    if (count(pair) === 1) pairs.add(key);
    else if (spaced && i === 0 && count(" " + pair) === 1) pairs.add(key + SPACED);
  }
}
const pairList = [...pairs].sort((a, b) => a - b);

// ---- repeats --------------------------------------------------------------
// The most one more copy of c costs in a run, in 1/64 token: the worst
// step over windows of 16 in runs up to 256 (BPE merges runs in powers of 2).
const repUnits = (c, upto) => {
  const t = [0];
  for (let n = 1; n <= upto; n++) t.push(count(c.repeat(n)));
  let worst = 0;
  for (let n = 1; n + 16 <= upto; n++) worst = Math.max(worst, (t[n + 16] - t[n]) / 16);
  return Math.ceil(worst * 64);
};
const asciiRep = [];
for (let c = 0; c < 128; c++) asciiRep.push(c >= 0x20 && c < 0x7f ? repUnits(String.fromCharCode(c), 256) : 64);
// non-ASCII characters whose runs cost at most half their own count
const xrep = [];
for (let cp = 0x80; cp < LIMIT; cp++) {
  if (!cost[cp] || (cp >= 0x3400 && cp < 0xa000) || (cp >= 0xac00 && cp < 0xd800) || cp >= 0x10000) continue;
  const ch = String.fromCodePoint(cp);
  if ((count(ch.repeat(17)) - cost[cp]) / 16 > cost[cp] / 2) continue; // quick reject
  const u = repUnits(ch, 80);
  if (u * 2 <= cost[cp] * 64) xrep.push([cp, u]);
}

// ---- letter and punctuation pairs inside tokens ----------------------------
const lower = new Array(676).fill(0), upper = new Array(676).fill(0);
const punct = new Array(1024).fill(0);
for (let r = 0; r < VOCAB[0]; r++) {
  let b;
  try {
    b = ENC[0].decode_single_token_bytes(r);
  } catch {
    continue;
  }
  let s = Buffer.from(b).toString("latin1");
  if (s[0] === " ") s = s.slice(1);
  if (s.length < 2) continue;
  const arr = /^[a-z]+$/.test(s) ? lower : /^[A-Z]+$/.test(s) ? upper : null;
  if (arr) {
    const t = s.toLowerCase();
    for (let i = 0; i + 1 < t.length; i++) arr[(t.charCodeAt(i) - 97) * 26 + t.charCodeAt(i + 1) - 97]++;
  } else if ([...s].every((c) => PUNCT.includes(c))) {
    for (let i = 0; i + 1 < s.length; i++) punct[PUNCT.indexOf(s[i]) * 32 + PUNCT.indexOf(s[i + 1])]++;
  }
}
// class k: the number of tokens holding the pair is at most T[k'] (rarer = higher class)
const klass = (c, T) => {
  for (let i = 0; i < T.length; i++) if (c <= T[i]) return T.length - i;
  return 0;
};
export const LOWER_T = [0, 3, 10, 20, 40, 80, 160];
export const UPPER_T = [0, 2, 8, 32];
export const PUNCT_T = [0, 2, 8, 32];

p("/* SPDX-License-Identifier: LGPL-2.1-or-later */");
p("/*");
p(" * Generated by tests/tokens/gen-tables.mjs from the cl100k_base and");
p(" * o200k_base vocabularies (the larger count of the two). Do not edit.");
p(" */");
p("#pragma once");
p("");
p(`/* ${singles.length} non-ASCII code points below U+30000 that are one token */`);
p(`static const uint32_t tok_single[${singles.length}] = {`);
p(rows(singles, 8, (v) => hex(v, 5)));
p("};");
p("");
p("/* tokens - 1 of the costliest other code point of each block of 64, 2 bits each */");
p(`static const uint8_t tok_block[${packed.length}] = {`);
p(rows([...packed], 12, (v) => hex(v, 2)));
p("};");
p("");
p(`/* ${pairList.length} pairs of one-token CJK characters that are one token: first << 21 | second,`);
p(" * | 1 << 42 for those that are one token only after a space */");
p(`static const uint64_t tok_cjk_pair[${pairList.length}] = {`);
p(rows(pairList, 4, (v) => "UINT64_C(" + hex(v, 11) + ")"));
p("};");
p("");
p("/* what one more copy of an ASCII character costs in a run of it, 1/64 token */");
p("static const uint8_t tok_ascii_repeat[128] = {");
p(rows(asciiRep, 16, String));
p("};");
p("");
p(`/* non-ASCII characters whose runs are cheap: code point << 8 | 1/64 tokens per repeat */`);
p(`static const uint32_t tok_x_repeat[${xrep.length}] = {`);
p(rows(xrep.map(([cp, u]) => cp * 256 + u), 6, (v) => hex(v, 7)));
p("};");
p("");
p(`/* lowercase letter pairs: class 0..${LOWER_T.length} (tokens holding the pair <= ${LOWER_T.join(", ")}) */`);
p("static const uint8_t tok_lower_pair[26 * 26] = {");
p(rows(lower.map((c) => klass(c, LOWER_T)), 26, String));
p("};");
p("");
p(`/* uppercase letter pairs: class 0..${UPPER_T.length} (tokens holding the pair <= ${UPPER_T.join(", ")}) */`);
p("static const uint8_t tok_upper_pair[26 * 26] = {");
p(rows(upper.map((c) => klass(c, UPPER_T)), 26, String));
p("};");
p("");
p(`/* punctuation pairs, in the order of TOK_PUNCT: class 0..${PUNCT_T.length} (tokens <= ${PUNCT_T.join(", ")}) */`);
p(`#define TOK_PUNCT ${JSON.stringify(PUNCT)}`);
p("static const uint8_t tok_punct_pair[32 * 32] = {");
p(rows(punct.map((c) => klass(c, PUNCT_T)), 32, String));
p("};");
process.stdout.write(out.join("\n") + "\n");
