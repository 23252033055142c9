// SPDX-License-Identifier: LGPL-2.1-or-later
// acs-launch's token estimate against real BPE tokenizers (TAP).
//
// Every sample of tests/tokens/corpus.mjs goes through tests/unit/token-tool
// (the shield with the largest budget, then the estimate of what it would
// report) and through OpenAI's cl100k_base and o200k_base (tiktoken, pinned
// by package-lock.json). Held, per class:
//   adversarial: estimate >= the larger real count, on every sample (twelve per
//                class: the samples the weights were fitted on);
//   ordinary:    estimate <= 1.10 x the larger real count, and >= 0.97 x it,
//                on every sample; Korean text: <= 1.25 x (see clip-tokens.c).
// Also: the report's token count of a stream is the estimate of its text.
import path from "node:path";
import { ordinaryCorpus, adversarialCorpus } from "./corpus.mjs";
import { estimate, realCounts } from "./lib.mjs";

const here = path.dirname(new URL(import.meta.url).pathname);
const builddir = process.env.ACS_BUILDDIR || path.resolve(here, "../..");
const tool = path.join(builddir, "tests/unit/token-tool");

const OVER = 1.1, UNDER = 0.97;
const LOOSE = { "cjk-ko": 1.25 }; // no per-character model sees Hangul's multi-syllable tokens

const ord = estimate(tool, ordinaryCorpus());
const adv = estimate(tool, adversarialCorpus(12));
for (const s of [...ord, ...adv]) s.real = realCounts(s.text);

const group = (list) => {
  const m = new Map();
  for (const s of list) (m.get(s.cls) || m.set(s.cls, []).get(s.cls)).push(s);
  return m;
};
const ordG = group(ord), advG = group(adv);
let n = 0, failed = 0;
const results = [];
const ok = (cond, desc, diag) => {
  n++;
  if (!cond) failed++;
  results.push(`${cond ? "ok" : "not ok"} ${n} - ${desc}`);
  if (!cond && diag) results.push(...diag.split("\n").map((l) => "# " + l));
};
const ratio = (s) => s.estimate / Math.max(1, s.real.max);
const show = (s) => `${s.name}: estimate ${s.estimate}, cl100k ${s.real.cl100k}, o200k ${s.real.o200k}, ratio ${ratio(s).toFixed(3)}`;

for (const [cls, list] of advG) {
  const bad = list.filter((s) => s.estimate < s.real.max);
  const lo = Math.min(...list.map(ratio));
  ok(bad.length === 0, `adversarial ${cls}: estimate >= real on ${list.length} samples (lowest ${lo.toFixed(2)})`, bad.map(show).join("\n"));
}
for (const [cls, list] of ordG) {
  const over = LOOSE[cls] || OVER;
  const bad = list.filter((s) => ratio(s) > over || ratio(s) < UNDER);
  const lo = Math.min(...list.map(ratio)), hi = Math.max(...list.map(ratio));
  ok(bad.length === 0, `ordinary ${cls}: ${UNDER} <= estimate/real <= ${over} on ${list.length} samples (${lo.toFixed(3)} .. ${hi.toFixed(3)})`, bad.map(show).join("\n"));
}
// the count in the report (made while feeding) is the estimate of the text
const unfolded = [...ord, ...adv].filter((s) => !/\u2026 repeated [0-9,]+ more times\n/.test(s.text));
const differ = unfolded.filter((s) => s.streamTokens !== s.estimate);
ok(differ.length === 0, `the report's count equals the estimate of its text (${unfolded.length} samples)`,
  differ.slice(0, 5).map((s) => `${s.name}: stream ${s.streamTokens}, text ${s.estimate}`).join("\n"));
ok(ord.length >= 100 && adv.length >= 1200, `corpora are there (${ord.length} ordinary, ${adv.length} adversarial samples)`);

console.log(`1..${n}`);
console.log(results.join("\n"));
process.exitCode = failed ? 1 : 0;
