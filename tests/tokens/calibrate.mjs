// SPDX-License-Identifier: LGPL-2.1-or-later
// How acs-launch's token estimate compares with the real tokenizers, per
// class of the corpora (tests/tokens/corpus.mjs), and what the weights of
// its events are fitted on.
//
//   node tests/tokens/calibrate.mjs [--tool tests/unit/token-tool]
//        [--old path/to/an/older/token-tool] [--per-class N] [--dump events.json]
//
// The table gives, per class, the estimate over the larger real count
// (cl100k_base, o200k_base) summed over the class, and its lowest and highest
// value on one sample. --dump writes every sample's event counts and real
// counts for tests/tokens/fit.py.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { ordinaryCorpus, adversarialCorpus } from "./corpus.mjs";
import { estimate, realCounts } from "./lib.mjs";

const here = path.dirname(new URL(import.meta.url).pathname);
const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : def;
};
const tool = opt("--tool", path.resolve(process.env.ACS_BUILDDIR || path.join(here, "../.."), "tests/unit/token-tool"));
const old = opt("--old", null);
const perClass = Number(opt("--per-class", 3));
const dump = opt("--dump", null);

const samples = [...ordinaryCorpus().map((s) => ({ ...s, kind: "ordinary" })),
  ...adversarialCorpus(perClass).map((s) => ({ ...s, kind: "adversarial" }))];
estimate(tool, samples);
for (const s of samples) s.real = realCounts(s.text);
if (old) {
  const o = samples.map((s) => ({ bytes: s.bytes, keepAnsi: s.keepAnsi }));
  estimate(old, o);
  // the old tool cleans the same way: compare on its own text
  o.forEach((x, i) => {
    samples[i].oldRatio = x.estimate / Math.max(1, realCounts(x.text).max);
  });
}

if (dump) {
  // event counts of each text, from the same binary
  const parts = [];
  for (const s of samples) {
    const b = Buffer.from(s.text, "utf8");
    parts.push(Buffer.from(`1 ${b.length}\n`), b); // keep escapes: the text is already clean
  }
  const out = execFileSync(tool, ["--events"], { input: Buffer.concat(parts), maxBuffer: 1 << 30 }).toString("latin1");
  let off = 0;
  const rows = [];
  for (const s of samples) {
    let nl = out.indexOf("\n", off);
    const len = Number(out.slice(off, nl).split(" ")[2]);
    off = nl + 1 + len + 1; // text, then "\n"
    nl = out.indexOf("\n", off);
    const nums = out.slice(off, nl).split(" ").map(Number);
    off = nl + 1;
    rows.push({ kind: s.kind, cls: s.cls, name: s.name, cl100k: s.real.cl100k, o200k: s.real.o200k, max: s.real.max,
      fixed: nums[0], events: nums.slice(1), estimate: s.estimate });
  }
  fs.writeFileSync(dump, JSON.stringify(rows));
}

const byClass = new Map();
for (const s of samples) {
  const k = `${s.kind === "ordinary" ? "O" : "A"} ${s.cls}`;
  const g = byClass.get(k) || { n: 0, est: 0, real: 0, cl: 0, o2: 0, lo: Infinity, hi: 0, old: 0 };
  const q = s.estimate / Math.max(1, s.real.max);
  g.n++;
  g.est += s.estimate;
  g.real += s.real.max;
  g.cl += s.real.cl100k;
  g.o2 += s.real.o200k;
  g.lo = Math.min(g.lo, q);
  g.hi = Math.max(g.hi, q);
  g.old += s.oldRatio || 0;
  byClass.set(k, g);
}
const f = (x) => x.toFixed(2);
console.log(`${"class".padEnd(30)} ${"n".padStart(3)} ${"cl100k".padStart(7)} ${"o200k".padStart(7)}  est/real  lowest  highest${old ? "  old est/real" : ""}`);
for (const [k, g] of byClass)
  console.log(`${k.padEnd(30)} ${String(g.n).padStart(3)} ${String(g.cl).padStart(7)} ${String(g.o2).padStart(7)}  ${f(g.est / g.real).padStart(8)}  ${f(g.lo).padStart(6)}  ${f(g.hi).padStart(7)}${old ? "  " + f(g.old / g.n).padStart(13) : ""}`);
