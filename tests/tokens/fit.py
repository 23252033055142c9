#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fit the event weights of src/clip-tokens.c by linear programming.

    node tests/tokens/calibrate.mjs --per-class 12 --dump /tmp/events.json
    tests/tokens/fit.py /tmp/events.json [--write src/clip-tokens.c]

Minimises the mean over-count on the ordinary classes (each class weighs the
same) subject to: every adversarial sample's estimate >= its larger real count
(cl100k_base, o200k_base) times --margin; every ordinary sample's estimate
between --floor and --ceiling times its real count (but Korean, --loose); every
weight between 0 and one token (256 units; no ASCII character costs more than
a token on its own). Weights are rounded to whole units, then raised where an
adversarial sample fell below its real count. The defaults are what the
weights in src/clip-tokens.c were fitted with. Needs SciPy (Debian:
python3-scipy); only for refitting, never at build or test time.
"""
import argparse
import json
import math
import re
import sys

import numpy as np
from scipy.optimize import linprog

UNITS = 256


def round_weights(x, adv, usage, margin):
    """Whole units: to the nearest, then, for each adversarial sample left
    below its real count, raise the weight of its event that costs ordinary
    text least for what it adds, until none is."""
    w = np.array([min(UNITS, max(0, round(v))) for v in x], dtype=float)
    for _ in range(100000):
        short = None
        for r in adv:
            gap = r["need"] - r["fixed"] - np.dot(w, r["events"])
            if gap > 1e-9 and (short is None or gap > short[0]):
                short = (gap, r)
        if short is None:
            return [int(v) for v in w]
        ev = np.array(short[1]["events"], dtype=float)
        price = np.where((ev > 0) & (w < UNITS), usage / np.maximum(ev, 1e-12), np.inf)
        w[int(np.argmin(price))] += 1
    sys.exit("rounding did not converge")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dump")
    ap.add_argument("--write", help="rewrite the weight table in this clip-tokens.c")
    ap.add_argument("--margin", type=float, default=1.0)
    ap.add_argument("--floor", type=float, default=0.98, help="ordinary estimate >= floor * real")
    ap.add_argument("--ceiling", type=float, default=1.09, help="ordinary estimate <= ceiling * real")
    ap.add_argument("--explain", action="store_true", help="print the constraints that bind most")
    ap.add_argument("--loose", default="cjk-ko", help="ordinary classes the ceiling does not hold (comma-separated)")
    ap.add_argument("--source", default=None, help="clip-tokens.c to read event names from")
    a = ap.parse_args()
    rows = json.load(open(a.dump))
    ne = len(rows[0]["events"])
    src_path = a.write or a.source
    names = None
    if src_path:
        src = open(src_path).read()
        body = re.search(r"static const uint16_t weight\[EV__N\] = \{\n(.*?)\n\};", src, re.S)
        names = [re.match(r"\s*\[(.*?)\]", l).group(1) for l in body.group(1).split("\n")]
        if len(names) != ne:
            sys.exit(f"{len(names)} weights in {src_path}, {ne} events from the tool")
    adv = [r for r in rows if r["kind"] == "adversarial" and r["max"] > 0]
    ordi = [r for r in rows if r["kind"] == "ordinary" and r["max"] > 0]
    a_ub, b_ub = [], []
    for r in adv:  # fixed + e.w >= margin * max * UNITS, or as close as it can get
        r["need"] = max(r["max"] * UNITS, min(a.margin * r["max"] * UNITS, r["fixed"] + UNITS * sum(r["events"])))
        a_ub.append([-v for v in r["events"]])
        b_ub.append(r["fixed"] - r["need"])
    for r in ordi:
        a_ub.append([-v for v in r["events"]])
        b_ub.append(r["fixed"] - a.floor * r["max"] * UNITS)
        if a.ceiling and r["cls"] not in a.loose.split(","):
            a_ub.append(list(r["events"]))
            b_ub.append(a.ceiling * r["max"] * UNITS - r["fixed"])
    c = np.zeros(ne)
    classes = {}
    for r in ordi:
        classes.setdefault(r["cls"], []).append(r)
    for rs in classes.values():
        for r in rs:
            for i, v in enumerate(r["events"]):
                c[i] += v / (r["max"] * UNITS) / len(rs) / len(classes)
    for r in adv:  # keep weights nothing pins down small
        for i, v in enumerate(r["events"]):
            c[i] += 1e-7 * v / (r["max"] * UNITS)
    res = linprog(c, A_ub=np.array(a_ub), b_ub=np.array(b_ub), bounds=[(0, UNITS)] * ne, method="highs")
    if res.status != 0:
        sys.exit(res.message)
    w = round_weights(res.x, adv, c, a.margin)
    if a.explain:
        m = res.ineqlin.marginals
        labels = [r["name"] for r in adv] + [r["name"] + (":floor" if k == 0 else ":ceil") for r in ordi
                  for k in range(2 if a.ceiling and r["cls"] not in a.loose.split(",") else 1)]
        top = sorted(zip(m, labels))[:25]
        print("binding: " + ", ".join(f"{n} {v:.2g}" for v, n in top if v < -1e-9), file=sys.stderr)
    for i, x in enumerate(w):
        print(f"{names[i] if names else i}: {x}")
    ratios = sorted((((r["fixed"] + np.dot(w, r["events"])) / (r["max"] * UNITS), r["name"]) for r in ordi), reverse=True)
    print("highest: " + ", ".join(f"{n} {q:.3f}" for q, n in ratios[:12]), file=sys.stderr)
    worst = ratios[0]
    tight = sorted(((r["fixed"] + np.dot(w, r["events"])) / (r["max"] * UNITS), r["name"]) for r in adv + ordi)
    print("tightest: " + ", ".join(f"{n} {q:.3f}" for q, n in tight[:16]), file=sys.stderr)
    print(f"highest ordinary ratio {worst[0]:.3f} ({worst[1]})", file=sys.stderr)
    if a.write:
        lines = [f"        [{n}] = {x}," for n, x in zip(names, w)]
        src = src.replace(body.group(1), "\n".join(lines))
        open(a.write, "w").write(src)


if __name__ == "__main__":
    main()
