// SPDX-License-Identifier: LGPL-2.1-or-later
// The corpora the token estimate is held to (tests/tokens/tokens.mjs) and
// tuned on (tests/tokens/calibrate.mjs). Deterministic: every random sample
// comes from a seeded generator, every ordinary one from files of this tree,
// Python's standard library and Debian's license texts (a missing file is
// skipped, never replaced by something else).
//
// A sample is { cls, name, bytes: Buffer, keepAnsi?: bool }. What is compared
// with the real tokenizers is the text acs-launch would report for those
// bytes (UTF-8 repaired, escapes stripped unless keepAnsi, "\r" collapsed),
// which tests/unit/token-tool prints.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";

const here = path.dirname(new URL(import.meta.url).pathname);
const srcdir = process.env.ACS_SRCDIR || path.resolve(here, "../..");

// mulberry32: small, seeded, the same everywhere
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = (arr) => arr[Math.floor(next() * arr.length)];
  return { next, int, pick };
}

const seedOf = (s) => {
  let h = 2166136261;
  for (const c of s) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return h;
};

const utf8 = (s) => Buffer.from(s, "utf8");
const read = (p) => {
  try {
    return fs.readFileSync(p, "utf8");
  } catch {
    return null;
  }
};

// ---- adversarial ---------------------------------------------------------

const LOWER = "abcdefghijklmnopqrstuvwxyz";
const UPPER = LOWER.toUpperCase();
const DIGITS = "0123456789";
const PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
const B64 = UPPER + LOWER + DIGITS + "+/";
const B64URL = UPPER + LOWER + DIGITS + "-_";

const cpRange = (r, lo, hi) => {
  for (;;) {
    const c = r.int(lo, hi);
    if (c < 0xd800 || c > 0xdfff) return String.fromCodePoint(c);
  }
};
const fromAlphabet = (r, alpha, n) => {
  const a = [...alpha];
  let s = "";
  for (let i = 0; i < n; i++) s += r.pick(a);
  return s;
};
const fromRanges = (r, ranges, n) => {
  let s = "";
  for (let i = 0; i < n; i++) {
    const [lo, hi] = r.pick(ranges);
    s += cpRange(r, lo, hi);
  }
  return s;
};
// wrap a generator's text into lines of about `width` code points
const lines = (s, width) => {
  const cps = [...s];
  const out = [];
  for (let i = 0; i < cps.length; i += width) out.push(cps.slice(i, i + width).join(""));
  return out.join("\n") + "\n";
};

// One function per class: (r) => string | Buffer | {bytes, keepAnsi}.
const adversarial = {
  "printable": (r) => fromAlphabet(r, " " + LOWER + UPPER + DIGITS + PUNCT, 3000),
  "printable-lines": (r) => lines(fromAlphabet(r, " " + LOWER + UPPER + DIGITS + PUNCT, 3000), 80),
  "printable-nospace": (r) => fromAlphabet(r, LOWER + UPPER + DIGITS + PUNCT, 3000),
  "random-bytes": (r) => Buffer.from(Array.from({ length: 3000 }, () => r.int(0, 255))),
  "random-bytes-keep-ansi": (r) => ({
    bytes: Buffer.from(Array.from({ length: 3000 }, () => r.int(0, 255))),
    keepAnsi: true,
  }),
  "high-bytes": (r) => Buffer.from(Array.from({ length: 3000 }, () => r.int(0x80, 0xff))),
  "invalid-utf8": (r) => {
    const bad = [[0xc0, 0x80], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80],
      [0xf0, 0x9f], [0xe2, 0x82], [0x80], [0xbf], [0xfe], [0xff], [0xc3], [0xf8, 0x88, 0x80, 0x80, 0x80]];
    const out = [];
    while (out.length < 3000) {
      out.push(...r.pick(bad));
      if (r.next() < 0.3) out.push(r.int(0x21, 0x7e));
    }
    return Buffer.from(out);
  },
  "whitespace": (r) => fromAlphabet(r, " \t\n\v\f\r", 3000),
  "whitespace-no-newline": (r) => fromAlphabet(r, " \t\v\f", 3000),
  "controls": (r) => {
    let s = "";
    for (let i = 0; i < 3000; i++) {
      const c = r.int(0, 32);
      s += String.fromCharCode(c === 32 ? 0x7f : c);
    }
    return s;
  },
  "controls-keep-ansi": (r) => {
    let s = "";
    for (let i = 0; i < 3000; i++) {
      const c = r.int(0, 32);
      s += String.fromCharCode(c === 32 ? 0x7f : c);
    }
    return { bytes: utf8(s), keepAnsi: true };
  },
  "c1-controls": (r) => fromRanges(r, [[0x80, 0x9f]], 1500),
  "controls-and-spaces": (r) => fromAlphabet(r, " \t\v\f\x00\x01\x02\x07\x08\x0e\x1f\x7f", 3000),
  "digits": (r) => fromAlphabet(r, DIGITS, 3000),
  "digit-lines": (r) => lines(fromAlphabet(r, DIGITS, 3000), 60),
  "digits-punct": (r) => fromAlphabet(r, DIGITS + PUNCT, 3000),
  "digits-space": (r) => fromAlphabet(r, DIGITS + " ", 3000),
  "numbers": (r) => {
    let s = "";
    while (s.length < 3000) s += r.pick(["", "-", "+"]) + r.int(0, 1e9) / 10 ** r.int(0, 9) + r.pick([" ", ",", ";", "\n", "\t", ", "]);
    return s;
  },
  "punct": (r) => fromAlphabet(r, PUNCT, 3000),
  "punct-space": (r) => fromAlphabet(r, PUNCT + " ", 3000),
  "base64": (r) => fromAlphabet(r, B64, 3000),
  "base64-lines": (r) => lines(fromAlphabet(r, B64, 3040), 76),
  "base64url": (r) => fromAlphabet(r, B64URL, 3000),
  "hex": (r) => fromAlphabet(r, "0123456789abcdef", 3000),
  "hex-upper": (r) => fromAlphabet(r, "0123456789ABCDEF", 3000),
  "hex-lines": (r) => lines(fromAlphabet(r, "0123456789abcdef", 3200), 64),
  "hex-bytes": (r) => Array.from({ length: 1000 }, () => r.int(0, 255).toString(16).padStart(2, "0")).join(" "),
  "uuids": (r) => {
    const h = () => fromAlphabet(r, "0123456789abcdef", 1);
    let s = "";
    for (let i = 0; i < 80; i++) s += [8, 4, 4, 4, 12].map((n) => Array.from({ length: n }, h).join("")).join("-") + "\n";
    return s;
  },
  "lower": (r) => fromAlphabet(r, LOWER, 3000),
  "upper": (r) => fromAlphabet(r, UPPER, 3000),
  "mixed-case": (r) => fromAlphabet(r, LOWER + UPPER, 3000),
  "alnum": (r) => fromAlphabet(r, LOWER + UPPER + DIGITS, 3000),
  "lower-words": (r) => {
    let s = "";
    while (s.length < 3000) s += fromAlphabet(r, LOWER, r.int(1, 12)) + " ";
    return s;
  },
  "upper-words": (r) => {
    let s = "";
    while (s.length < 3000) s += fromAlphabet(r, UPPER, r.int(1, 12)) + " ";
    return s;
  },
  "capitalized-words": (r) => {
    let s = "";
    while (s.length < 3000) s += fromAlphabet(r, UPPER, 1) + fromAlphabet(r, LOWER, r.int(1, 10)) + " ";
    return s;
  },
  "identifiers": (r) => {
    let s = "";
    while (s.length < 3000) {
      const parts = Array.from({ length: r.int(1, 4) }, () => fromAlphabet(r, LOWER, r.int(1, 8)));
      s += r.next() < 0.5 ? parts.join("_") : parts.map((p, i) => (i ? p[0].toUpperCase() + p.slice(1) : p)).join("");
      s += r.pick([" = ", "(", ")", ", ", ".", "\n", ": ", "[", "]"]);
    }
    return s;
  },
  "letter-digit": (r) => {
    let s = "";
    while (s.length < 3000) s += fromAlphabet(r, LOWER + UPPER, r.int(1, 3)) + fromAlphabet(r, DIGITS, r.int(1, 4));
    return s;
  },
  "one-letter-words": (r) => {
    let s = "";
    while (s.length < 3000) s += fromAlphabet(r, LOWER + UPPER + DIGITS + PUNCT, 1) + " ";
    return s;
  },
  "emoji": (r) => fromRanges(r, [[0x1f300, 0x1f64f], [0x1f680, 0x1f6ff], [0x1f900, 0x1faff], [0x2600, 0x27bf]], 1000),
  "emoji-sequences": (r) => {
    let s = "";
    for (let i = 0; i < 300; i++) {
      const k = r.int(0, 3);
      if (k === 0) s += cpRange(r, 0x1f466, 0x1f469) + "\u200d" + cpRange(r, 0x1f466, 0x1f469) + "\u200d" + cpRange(r, 0x1f466, 0x1f469);
      else if (k === 1) s += cpRange(r, 0x1f44a, 0x1f450) + cpRange(r, 0x1f3fb, 0x1f3ff);
      else if (k === 2) s += cpRange(r, 0x1f1e6, 0x1f1ff) + cpRange(r, 0x1f1e6, 0x1f1ff);
      else s += cpRange(r, 0x2600, 0x26ff) + "\ufe0f";
    }
    return s;
  },
  "cjk-rare": (r) => fromRanges(r, [[0x4e00, 0x9fff]], 1000),
  "cjk-ext-a": (r) => fromRanges(r, [[0x3400, 0x4dbf]], 1000),
  "cjk-ext-b": (r) => fromRanges(r, [[0x20000, 0x2a6df]], 800),
  "cjk-compat": (r) => fromRanges(r, [[0xf900, 0xfaff], [0x2f800, 0x2fa1f]], 1000),
  "cjk-punct-kana": (r) => fromRanges(r, [[0x3000, 0x30ff], [0xff00, 0xffef]], 1000),
  "hangul": (r) => fromRanges(r, [[0xac00, 0xd7a3]], 1000),
  "hangul-jamo": (r) => fromRanges(r, [[0x1100, 0x11ff], [0x3130, 0x318f]], 1000),
  "devanagari": (r) => fromRanges(r, [[0x0900, 0x097f]], 1000),
  "thai": (r) => fromRanges(r, [[0x0e01, 0x0e5b]], 1000),
  "arabic": (r) => fromRanges(r, [[0x0600, 0x06ff], [0x0750, 0x077f]], 1000),
  "hebrew": (r) => fromRanges(r, [[0x0590, 0x05ff]], 1000),
  "cyrillic": (r) => fromRanges(r, [[0x0400, 0x04ff]], 1000),
  "greek": (r) => fromRanges(r, [[0x0370, 0x03ff], [0x1f00, 0x1fff]], 1000),
  "latin-extended": (r) => fromRanges(r, [[0x00a0, 0x024f], [0x1e00, 0x1eff]], 1000),
  "other-scripts": (r) => fromRanges(r, [[0x0530, 0x058f], [0x10a0, 0x10ff], [0x1200, 0x137f], [0x0b80, 0x0bff],
    [0x0d00, 0x0d7f], [0x1780, 0x17ff], [0x0f00, 0x0fff], [0x13a0, 0x13ff]], 1000),
  "combining": (r) => {
    let s = "";
    for (let i = 0; i < 300; i++) s += r.pick([..."aeouxyz"]) + fromRanges(r, [[0x0300, 0x036f], [0x1ab0, 0x1aff], [0x20d0, 0x20ff]], r.int(1, 8));
    return s;
  },
  "zero-width": (r) => fromAlphabet(r, "\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e", 1000),
  "zero-width-in-text": (r) => {
    let s = "";
    for (let i = 0; i < 1000; i++) s += r.pick([..."abcdefgh"]) + r.pick([..."\u200b\u200c\u200d\u2060\ufeff"]);
    return s;
  },
  "bidi-and-variation": (r) => fromRanges(r, [[0x202a, 0x202e], [0x2066, 0x2069], [0xfe00, 0xfe0f], [0xe0100, 0xe01ef], [0xe0020, 0xe007f]], 1000),
  "unicode-spaces": (r) => fromRanges(r, [[0x2000, 0x200a], [0x3000, 0x3000], [0x00a0, 0x00a0], [0x202f, 0x202f], [0x205f, 0x205f], [0x1680, 0x1680]], 1000),
  "symbols": (r) => fromRanges(r, [[0x2190, 0x23ff], [0x2500, 0x25ff], [0x2700, 0x27bf], [0x2900, 0x2bff]], 1000),
  "math-alphanumeric": (r) => fromRanges(r, [[0x1d400, 0x1d7ff]], 800),
  "private-use": (r) => fromRanges(r, [[0xe000, 0xf8ff], [0xf0000, 0xf00ff]], 1000),
  "random-bmp": (r) => fromRanges(r, [[0x00a0, 0xffff]], 1000),
  "random-astral": (r) => fromRanges(r, [[0x10000, 0x10ffff]], 800),
  "replacement-chars": (r) => fromAlphabet(r, "\ufffd\ufffd\ufffda", 1000),
  "ansi-keep": (r) => {
    let s = "";
    while (s.length < 3000) {
      s += r.pick([`\x1b[${r.int(0, 107)}m`, `\x1b[${r.int(0, 255)};${r.int(0, 255)}H`, `\x1b[38;5;${r.int(0, 255)}m`,
        `\x1b[${r.int(1, 99)}${r.pick([..."ABCDJK"])}`, `\x1b]0;${fromAlphabet(r, LOWER, 5)}\x07`, "\x1b(B", "\x1b7", "\x1b8"]);
      s += fromAlphabet(r, LOWER + " ", r.int(0, 3));
    }
    return { bytes: utf8(s), keepAnsi: true };
  },
  "ansi-strip": (r) => {
    let s = "";
    while (s.length < 4000) {
      s += r.pick([`\x1b[${r.int(0, 107)}m`, `\x1b[38;2;${r.int(0, 255)};${r.int(0, 255)};${r.int(0, 255)}m`, `\x1b[${r.int(1, 99)}C`]);
      s += fromAlphabet(r, LOWER + UPPER + DIGITS + PUNCT, r.int(1, 3));
    }
    return s;
  },
  "runs-mixed-classes": (r) => {
    const gens = [
      () => fromAlphabet(r, LOWER, r.int(1, 20)), () => fromAlphabet(r, UPPER, r.int(1, 20)),
      () => fromAlphabet(r, DIGITS, r.int(1, 20)), () => fromAlphabet(r, PUNCT, r.int(1, 20)),
      () => fromAlphabet(r, " \t", r.int(1, 20)), () => fromRanges(r, [[0x4e00, 0x9fff]], r.int(1, 5)),
      () => fromRanges(r, [[0x1f300, 0x1f64f]], r.int(1, 5)), () => fromRanges(r, [[0x0400, 0x04ff]], r.int(1, 5)),
      () => "\n",
    ];
    let s = "";
    while (s.length < 3000) s += r.pick(gens)();
    return s;
  },
  "random-code-points": (r) => fromRanges(r, [[0x20, 0x7e], [0x80, 0x7ff], [0x800, 0xffff], [0x10000, 0x10ffff], [0, 0x1f]], 1500),
};

// Against the discount for one-token CJK pairs (src/clip-tokens-data.h):
// random text over the characters of those pairs, and chains of pairs that
// overlap (each character the end of one pair and the start of the next).
const cjkPairs = (() => {
  const h = read(path.join(srcdir, "src/clip-tokens-data.h")) || "";
  const body = h.slice(h.indexOf("tok_cjk_pair"), h.indexOf("};", h.indexOf("tok_cjk_pair")));
  return [...body.matchAll(/UINT64_C\((0x[0-9a-f]+)\)/g)].map((m) => {
    const v = BigInt(m[1]);
    return [Number((v >> 21n) & 0x1fffffn), Number(v & 0x1fffffn)];
  });
})();
if (cjkPairs.length) {
  const chars = [...new Set(cjkPairs.flat())].map((c) => String.fromCodePoint(c));
  adversarial["cjk-pair-characters"] = (r) => fromAlphabet(r, chars.join(""), 1000);
  adversarial["cjk-pair-chains"] = (r) => {
    const next = new Map();
    for (const [a, b] of cjkPairs) (next.get(a) || next.set(a, []).get(a)).push(b);
    let s = "", c = r.pick(cjkPairs)[0];
    for (let i = 0; i < 1000; i++) {
      s += String.fromCodePoint(c);
      const n = next.get(c);
      c = n && r.next() < 0.9 ? r.pick(n) : r.pick(cjkPairs)[r.int(0, 1)];
    }
    return s;
  };
  adversarial["cjk-pairs-shifted"] = (r) => {
    let s = "";
    for (let i = 0; i < 500; i++) {
      const [a, b] = r.pick(cjkPairs);
      s += String.fromCodePoint(b, a); // each pair reversed: the pairs now straddle
    }
    return s;
  };
}

// Long runs of one code point (as one line and as 80-wide lines).
const RUN_CHARS = [" ", "a", "x", "Z", "=", "-", ".", "#", "0", "7", "\t", "\v", "\f", "\x00", "\x7f",
  "\u00e9", "\u00a0", "\u4e2d", "\u9fa5", "\u3042", "\uac00", "\u0905", "\u200b", "\ufffd", "\u2500", "\u{1f600}", "\u{20000}"];
for (const c of RUN_CHARS) {
  const hex = c.codePointAt(0).toString(16).padStart(4, "0");
  adversarial[`run-U+${hex}`] = () => c.repeat(2000);
  adversarial[`run-lines-U+${hex}`] = () => (c.repeat(80) + "\n").repeat(25);
}
// Repeating short patterns.
for (const p of ["ab", "a ", "a.", "1,", "\t ", " \n", "()", "\ud55c\uae00", "\u4e2d\u6587", "=-", "\u00e9a"])
  adversarial[`pattern-${[...p].map((c) => c.codePointAt(0).toString(16)).join("-")}`] = () => p.repeat(1000);

// ---- ordinary ------------------------------------------------------------

// split text into samples of about `size` bytes at line boundaries
const chunks = (text, size) => {
  const out = [];
  let cur = "";
  for (const line of text.split(/(?<=\n)/)) {
    cur += line;
    if (cur.length >= size) {
      out.push(cur);
      cur = "";
    }
  }
  // a short tail joins the chunk before it: on a text of a few tokens one
  // token of rounding is over 10 %, which says nothing about the estimate
  if (cur.trim() && out.length && cur.length < size / 4) out[out.length - 1] += cur;
  else if (cur.trim()) out.push(cur);
  return out;
};

const WORDS = "time year people way day man thing woman life child world school state family student group country problem hand part place case week company system program question work government number night point home water room mother area money story fact month lot right study book eye job word business issue side kind head house service friend father power hour game line end member law car city community name president team minute idea kid body information back parent face others level office door health person art war history party result change morning reason research girl guy moment air teacher force education".split(" ");

function pythonTracebacks() {
  const progs = [
    "import json\njson.loads('{\"a\": 1,}')",
    "import subprocess\nsubprocess.run(['false'], check=True)",
    "def f(n):\n    return f(n + 1)\nf(0)",
    "import argparse\np = argparse.ArgumentParser()\np.add_argument('--count', type=int)\np.parse_args(['--count', 'seven'])",
    "config = {'db': {'host': 'localhost'}}\ndef get(k):\n    return config['db'][k]\ndef connect():\n    return get('port')\nconnect()",
    "import pathlib\npathlib.Path('/nonexistent/data/input.csv').read_text()",
    "class Account:\n    def __init__(self, balance):\n        self.balance = balance\n    def withdraw(self, amount):\n        if amount > self.balance:\n            raise ValueError(f'insufficient funds: balance {self.balance}, requested {amount}')\n        self.balance -= amount\nAccount(100).withdraw(250)",
    "import collections\nitems = [1, 2, 3]\nprint(items[10])",
    "def parse(rows):\n    return [int(r.split(',')[2]) for r in rows]\nparse(['a,b,1', 'c,d,x'])",
    "import asyncio\nasync def main():\n    await asyncio.wait_for(asyncio.sleep(1), 0.01)\nasyncio.run(main())",
    "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    raise RuntimeError('while computing the average') from e",
    "import re\nre.compile('(unclosed')",
  ];
  const out = [];
  for (const p of progs) {
    try {
      execFileSync("/usr/bin/python3", ["-I", "-c", p], { stdio: "pipe", timeout: 20000 });
    } catch (e) {
      if (e.stderr && e.stderr.length) out.push(e.stderr.toString());
    }
  }
  return out;
}

function jsonSamples(r) {
  const out = [];
  for (let k = 0; k < 6; k++) {
    const recs = [];
    for (let i = 0; i < 25; i++)
      recs.push({
        id: r.int(1, 99999),
        name: r.pick(WORDS) + " " + r.pick(WORDS),
        email: `${r.pick(WORDS)}.${r.pick(WORDS)}@example.com`,
        active: r.next() < 0.5,
        score: Math.round(r.next() * 10000) / 100,
        tags: Array.from({ length: r.int(0, 3) }, () => r.pick(WORDS)),
        created: `2024-${String(r.int(1, 12)).padStart(2, "0")}-${String(r.int(1, 28)).padStart(2, "0")}T${String(r.int(0, 23)).padStart(2, "0")}:${String(r.int(0, 59)).padStart(2, "0")}:00Z`,
        address: { city: r.pick(["London", "Paris", "Berlin", "Madrid", "Rome", "Oslo"]), zip: String(r.int(10000, 99999)) },
      });
    out.push(k % 2 ? JSON.stringify(recs) : JSON.stringify(recs, null, 2));
  }
  return out;
}

function tableSamples(r) {
  const out = [];
  // CSV of measurements
  let csv = "timestamp,sensor,temperature,humidity,pressure\n";
  for (let i = 0; i < 120; i++)
    csv += `2024-03-${String(1 + (i % 28)).padStart(2, "0")} ${String(i % 24).padStart(2, "0")}:00,s${r.int(1, 9)},${(15 + r.next() * 10).toFixed(2)},${(30 + r.next() * 50).toFixed(1)},${(990 + r.next() * 40).toFixed(1)}\n`;
  out.push(csv);
  // an aligned table as pandas prints it
  let t = "       name  age   city      salary\n";
  for (let i = 0; i < 80; i++)
    t += `${String(i).padStart(3)}  ${r.pick(WORDS).padStart(9)}  ${String(r.int(18, 80)).padStart(3)}  ${r.pick(["London", "Paris", "Berlin", "Rome"]).padEnd(7)}  ${(r.next() * 1e5).toFixed(2).padStart(10)}\n`;
  out.push(t);
  // a numpy-like matrix
  let m = "array([";
  for (let i = 0; i < 40; i++)
    m += (i ? "       " : "") + "[" + Array.from({ length: 6 }, () => (r.next() * 200 - 100).toFixed(4).padStart(9)).join(", ") + "]" + (i < 39 ? ",\n" : "])\n");
  out.push(m);
  // summary statistics
  let s = "";
  for (let i = 0; i < 60; i++) s += `epoch ${i + 1}/60  loss=${(2 / (i + 1) + r.next() * 0.1).toFixed(4)}  acc=${(0.5 + i / 130 + r.next() * 0.01).toFixed(4)}  lr=${(0.001 * 0.95 ** i).toExponential(2)}\n`;
  out.push(s);
  // a markdown table
  let md = "| id | item | qty | price | total |\n|---:|:-----|----:|------:|------:|\n";
  for (let i = 0; i < 60; i++) {
    const q = r.int(1, 20), p = r.int(100, 99999) / 100;
    md += `| ${i + 1} | ${r.pick(WORDS)} | ${q} | ${p.toFixed(2)} | ${(q * p).toFixed(2)} |\n`;
  }
  out.push(md);
  // ls -l
  let ls = "total 1234\n";
  for (let i = 0; i < 60; i++)
    ls += `-rw-r--r-- 1 user user ${String(r.int(0, 999999)).padStart(7)} Mar ${String(r.int(1, 28)).padStart(2)} ${String(r.int(0, 23)).padStart(2, "0")}:${String(r.int(0, 59)).padStart(2, "0")} ${r.pick(WORDS)}_${r.pick(WORDS)}.${r.pick(["py", "txt", "csv", "json", "md"])}\n`;
  out.push(ls);
  return out;
}

function programOutput(r) {
  const out = [];
  let log = "";
  for (let i = 0; i < 70; i++) {
    const lvl = r.pick(["INFO", "INFO", "INFO", "DEBUG", "WARNING", "ERROR"]);
    log += `2024-05-${String(r.int(1, 28)).padStart(2, "0")} ${String(r.int(0, 23)).padStart(2, "0")}:${String(r.int(0, 59)).padStart(2, "0")}:${String(r.int(0, 59)).padStart(2, "0")},${String(r.int(0, 999)).padStart(3, "0")} ${lvl} [${r.pick(["app.server", "app.db", "worker", "scheduler"])}] ` +
      r.pick([`processed ${r.int(1, 500)} ${r.pick(WORDS)} records in ${(r.next() * 3).toFixed(3)}s`, `connection to ${r.pick(WORDS)}-db:5432 established`,
        `request GET /api/v1/${r.pick(WORDS)}/${r.int(1, 9999)} returned ${r.pick([200, 200, 201, 404, 500])}`, `retrying ${r.pick(WORDS)} job (attempt ${r.int(2, 5)} of 5)`,
        `cache hit ratio ${(r.next() * 100).toFixed(1)}%`, `user ${r.pick(WORDS)} logged in from 192.168.${r.int(0, 255)}.${r.int(1, 254)}`]) + "\n";
  }
  out.push(log);
  let pytest = "============================= test session starts ==============================\nplatform linux -- Python 3.11.2, pytest-7.2.1, pluggy-1.0.0\nrootdir: /workspace\ncollected 48 items\n\n";
  for (let i = 0; i < 12; i++) pytest += `tests/test_${r.pick(WORDS)}.py ${".".repeat(r.int(1, 8))}${r.next() < 0.2 ? "F" : ""}${" ".repeat(r.int(20, 40))}[${String(r.int(1, 100)).padStart(3)}%]\n`;
  pytest += "\n=================================== FAILURES ===================================\n___________________________ test_parse_dates ____________________________\n\n    def test_parse_dates():\n>       assert parse('2024-01-32') is None\nE       AssertionError: assert datetime.date(2024, 2, 1) is None\n\ntests/test_dates.py:14: AssertionError\n=========================== short test summary info ============================\nFAILED tests/test_dates.py::test_parse_dates - AssertionError\n========================= 1 failed, 47 passed in 2.31s =========================\n";
  out.push(pytest);
  let pip = "";
  for (let i = 0; i < 25; i++) {
    const pkg = r.pick(["requests", "numpy", "pandas", "urllib3", "certifi", "idna", "charset-normalizer", "python-dateutil", "pytz", "six"]);
    const v = `${r.int(0, 3)}.${r.int(0, 30)}.${r.int(0, 9)}`;
    pip += `Collecting ${pkg}==${v}\n  Downloading ${pkg.replace(/-/g, "_")}-${v}-py3-none-any.whl (${r.int(10, 999)} kB)\n     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ ${r.int(10, 999)}.${r.int(0, 9)}/${r.int(10, 999)}.${r.int(0, 9)} kB ${r.int(1, 9)}.${r.int(0, 9)} MB/s eta 0:00:00\n`;
  }
  pip += "Installing collected packages: six, pytz, idna, certifi, urllib3, python-dateutil, requests\nSuccessfully installed certifi-2024.2.2 idna-3.6 python-dateutil-2.9.0 pytz-2024.1 requests-2.31.0 six-1.16.0 urllib3-2.2.1\n";
  out.push(pip);
  let cc = "";
  for (let i = 0; i < 30; i++) {
    const f = `${r.pick(WORDS)}_${r.pick(WORDS)}`;
    cc += r.next() < 0.7 ? `  CC       src/${f}.o\n` : `src/${f}.c:${r.int(10, 900)}:${r.int(1, 40)}: warning: unused variable '${r.pick(WORDS)}' [-Wunused-variable]\n  ${r.int(10, 900)} |         int ${r.pick(WORDS)} = ${r.int(0, 99)};\n      |             ^~~~~\n`;
  }
  out.push(cc);
  let prog = "";
  for (let i = 0; i < 60; i++)
    prog += r.pick([`Processing file ${i + 1} of 60: data/${r.pick(WORDS)}_${r.int(1, 999)}.csv`, `  -> ${r.int(1, 5000)} rows, ${r.int(1, 40)} columns`,
      `Downloaded ${(r.next() * 100).toFixed(1)} MB in ${(r.next() * 20).toFixed(1)} s`, `Found ${r.int(0, 20)} matches for '${r.pick(WORDS)}'`,
      `Result: ${r.pick(WORDS)} = ${(r.next() * 1000).toFixed(3)}`, `Done.`]) + "\n";
  out.push(prog);
  let git = "";
  for (let i = 0; i < 40; i++)
    git += `${fromAlphabet(r, "0123456789abcdef", 7)} ${r.pick(["Fix", "Add", "Update", "Remove", "Refactor"])} ${r.pick(WORDS)} ${r.pick(["handling", "support", "tests", "docs", "parser"])} for ${r.pick(WORDS)}\n`;
  out.push(git);
  let kv = "";
  for (let i = 0; i < 50; i++) kv += `${r.pick(WORDS)}_${r.pick(WORDS)}: ${r.pick([String(r.int(0, 1e6)), "true", "false", "None", `'${r.pick(WORDS)}'`, (r.next() * 10).toFixed(6)])}\n`;
  out.push(kv);
  return out;
}

function cjkSamples() {
  const t = read(path.join(here, "cjk.txt"));
  if (!t) return {};
  const paras = t.split(/\n\n+/).filter((p) => p.trim());
  const by = { zh: [], ja: [], ko: [] };
  for (const p of paras) {
    if (/[\uac00-\ud7a3]/.test(p)) by.ko.push(p);
    else if (/[\u3040-\u30ff]/.test(p)) by.ja.push(p);
    else by.zh.push(p);
  }
  const res = {};
  for (const [k, v] of Object.entries(by)) res["cjk-" + k] = v.map((p) => p + "\n");
  // CJK in program output: messages around ASCII paths and numbers
  res["cjk-output"] = [
    by.zh.map((p, i) => `[${i}] 错误: 无法打开文件 /tmp/data_${i}.csv (第 ${i * 7 + 3} 行)\n${p}\n`).join(""),
    by.ja.map((p, i) => `ステップ ${i + 1}/4: 処理中... ${i * 25}%\n${p}\n`).join(""),
  ];
  return res;
}

// Returns the samples, grouped by class.
export function ordinaryCorpus() {
  const r = rng(seedOf("ordinary"));
  const S = {};
  const add = (cls, texts, size) => {
    for (const t of texts) {
      if (!t) continue;
      for (const c of size ? chunks(t, size) : [t]) (S[cls] ||= []).push(c);
    }
  };
  add("english-prose", [read(path.join(here, "english.txt"))], 1500);
  add("english-legal", [read("/usr/share/common-licenses/GPL-3"), read("/usr/share/common-licenses/Apache-2.0")], 4000);
  add("markdown", [read(path.join(srcdir, "README.md"))], 2000);
  const pydir = fs.existsSync("/usr/lib/python3.11") ? "/usr/lib/python3.11" : null;
  const pyfiles = ["argparse.py", "textwrap.py", "dataclasses.py", "json/decoder.py", "json/encoder.py", "subprocess.py",
    "shutil.py", "csv.py", "logging/__init__.py", "pathlib.py", "heapq.py", "string.py", "functools.py", "fractions.py"];
  add("python", pyfiles.map((f) => pydir && read(path.join(pydir, f))).map((t) => t && t.slice(0, 12000)), 3000);
  add("python", ["bench/snippet100.py", "examples/primes.py", "src/mcp-schemas.py", "tests/integration/diff-manifest.py"].map((f) => read(path.join(srcdir, f))), 3000);
  add("c-source", ["src/clip.c", "src/jsonrpc.c", "src/profile.c"].map((f) => read(path.join(srcdir, f))), 3000);
  add("traceback", pythonTracebacks(), 0);
  add("json", jsonSamples(r), 3000);
  add("json", [read(path.join(srcdir, "doc/report.schema.json"))], 3000);
  add("tables", tableSamples(r), 3000);
  add("program-output", programOutput(r), 3000);
  for (const [k, v] of Object.entries(cjkSamples())) add(k, v, 0);
  const out = [];
  for (const [cls, texts] of Object.entries(S)) texts.forEach((t, i) => out.push({ cls, name: `${cls}#${i}`, bytes: utf8(t) }));
  return out;
}

export function adversarialCorpus(perClass = 3) {
  const out = [];
  for (const [cls, gen] of Object.entries(adversarial)) {
    const r = rng(seedOf(cls));
    for (let i = 0; i < perClass; i++) {
      let v = gen(r);
      let keepAnsi = false;
      if (v && v.bytes) {
        keepAnsi = !!v.keepAnsi;
        v = v.bytes;
      }
      out.push({ cls, name: `${cls}#${i}`, bytes: Buffer.isBuffer(v) ? v : utf8(v), keepAnsi });
    }
  }
  return out;
}
