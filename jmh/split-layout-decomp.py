#!/usr/bin/env python3
"""Decomposes the Fetch split's 3-upstream cost (SplitPathBenchmark.fetchSplit run with
-p partitionsPerTopic=10,99 and -p partitions=3,30,99) into per-partition work, topic entries and a
per-sub-request constant.  Usage: jmh/split-layout-decomp.py ROUND.json [MORE.json ...]
ns/op = minimum over the pooled 1-second iterations of the files given (interference only adds time).

Model, per version and upstream count u (round robin, partition i on part i % u):
  ns(u, n, L) = C_u + Ts * topics(n, L) + Tw * entries(u, n, L) + s_u * n
  topics  = ceil(n / L)                              (topics in the client's request: skimmed once)
  entries = sum over topics of min(topic size, u)    (topic entries written: a part holds a topic iff it
                                                      holds one of its partitions)
With one topic (L = 99) entries = min(n, u): the slope s_u over n = 3, 30, 99 is the pure per-partition
work, the intercept A_u = C_u + Ts + Tw * u.  At equal n the layout differences for u = 1 and u = 3,
D_u = ns(u, n, 10) - ns(u, n, 99) = Ts * (topics10 - 1) + Tw * (entries(u, n, 10) - entries(u, n, 99)),
give Tw (per topic entry written) and Ts (per client topic, whatever the split).  The constant per
extra part F = (C_3 - C_1) / 2 = (A_3 - A_1 - 2 Tw) / 2."""
import json
import sys
from collections import defaultdict


def raw(metric):
    return [x for fork in metric.get("rawData", []) for x in fork] or [metric["score"]]


def entries(u, n, per_topic):
    total, first = 0, 0
    while first < n:
        size = min(per_topic, n - first)
        total += min(size, u)
        first += size
    return total


def fit(points):
    """Least squares y = a + b x."""
    k = len(points)
    mx = sum(x for x, _ in points) / k
    my = sum(y for _, y in points) / k
    b = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)
    return my - b * mx, b


def main(paths):
    ns = defaultdict(list)
    for path in paths:
        for r in json.load(open(path)):
            if not r["benchmark"].endswith(".fetchSplit"):
                continue
            p = r["params"]
            key = (int(p["version"]), int(p["upstreams"]), int(p["partitions"]), int(p.get("partitionsPerTopic", 10)))
            ns[key] += raw(r["primaryMetric"])
    m = {k: min(v) for k, v in ns.items()}
    for v in sorted({k[0] for k in m}):
        g = lambda u, n, l: m.get((v, u, n, l))
        print(f"## Fetch v{v} (min ns/op over {len(paths)} file(s))\n")
        print("| partitions | per topic | 1 up ns/op | 3 up ns/op | topic entries 1 up / 3 up | 3/1 |")
        print("|---:|---:|---:|---:|---:|---:|")
        for n in (3, 30, 99):
            for l in (10, 99):
                a, c = g(1, n, l), g(3, n, l)
                if a and c:
                    print(f"| {n} | {l} | {a:,.0f} | {c:,.0f} | {entries(1, n, l)} / {entries(3, n, l)} | {c / a:.2f} |")
        one = [(n, g(1, n, 99)) for n in (3, 30, 99) if g(1, n, 99)]
        three = [(n, g(3, n, 99)) for n in (3, 30, 99) if g(3, n, 99)]
        if len(one) < 2 or len(three) < 2:
            continue
        a1, s1 = fit(one)
        a3, s3 = fit(three)
        print(f"\none topic, fit over n = {[n for n, _ in one]}: 1 up {a1:,.0f} + {s1:.2f} n, 3 up {a3:,.0f} + {s3:.2f} n;"
              f" per-partition 3/1 = {s3 / s1:.3f}")
        if g(1, 30, 99) and g(1, 99, 99) and g(3, 30, 99) and g(3, 99, 99):
            t1 = (g(1, 99, 99) - g(1, 30, 99)) / 69
            t3 = (g(3, 99, 99) - g(3, 30, 99)) / 69
            print(f"one topic, slope 30→99 only: 1 up {t1:.2f}, 3 up {t3:.2f} ns/partition; 3/1 = {t3 / t1:.3f}")
        sol = []
        for n in (30, 99):
            d1 = g(1, n, 10) - g(1, n, 99)
            d3 = g(3, n, 10) - g(3, n, 99)
            k = -(-n // 10) - 1                                    # extra client topics
            e1 = entries(1, n, 10) - entries(1, n, 99)             # = k
            e3 = entries(3, n, 10) - entries(3, n, 99)
            tw = (d3 - d1) / (e3 - e1)                             # Ts cancels: same k
            ts = (d1 - tw * e1) / k
            sol.append((n, d1, d3, e1, e3, k, tw, ts))
            print(f"n={n}: D_1 = {d1:,.0f} ns ({k} topics, {e1} entries), D_3 = {d3:,.0f} ns ({k} topics, {e3} entries)"
                  f" -> Tw = {tw:.1f} ns per topic entry written, Ts = {ts:.1f} ns per client topic")
        n, d1, d3, e1, e3, k, tw, ts = sol[-1]
        f = (a3 - a1 - 2 * tw) / 2
        print(f"per extra part F = (A3 - A1 - 2 Tw) / 2 = ({a3:,.0f} - {a1:,.0f} - {2 * tw:.0f}) / 2 = {f:,.0f} ns (Tw at n=99)")
        gap = g(3, 99, 10) - g(1, 99, 10)
        print(f"n=99 L=10: measured 3 up - 1 up = {gap:,.0f} ns; model 2F {2 * f:,.0f} + 20 Tw {20 * tw:,.0f}"
              f" + 99 (s3 - s1) {99 * (s3 - s1):,.0f} = {2 * f + 20 * tw + 99 * (s3 - s1):,.0f}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
