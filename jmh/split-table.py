#!/usr/bin/env python3
"""Renders SplitPathBenchmark results (JMH JSON, run with -prof gc) as Markdown: per method, version,
partitions and batch, the median ns/op, ns per partition and heap B/op for 1 and 3 upstreams side by side
with the 3/1 ratio; then, per method x version x upstreams x partitions, heap B/op across batch sizes
(flat = no allocation that grows with payload).  Usage: jmh/split-table.py RESULT.json [MORE.json ...]
(several files: the per-iteration samples of equal parameter sets are pooled before the median).
  jmh/split-table.py --min RESULT.json [MORE.json ...]: the same with the minimum over the pooled iterations
  instead of the median (on a shared machine interference only adds time, so the minimum of 1-second
  iterations is the estimate least affected by it).
  jmh/split-table.py --paired ROUND.json [ROUND.json ...]: one 3/1 ratio per file (1 and 3 upstreams run back
  to back in each), then the median and range of those ratios, which cancels load drift between rounds.
Results with a partitionsPerTopic parameter (the Fetch split's layout) get a "per topic" column; without it the
layout is the codec benchmarks' default (10), shown as "–"."""
import json
import sys
from collections import defaultdict

METHODS = ["produceSplit", "produceMerge", "fetchSplit", "fetchMerge"]


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def raw(metric):
    return [x for fork in metric.get("rawData", []) for x in fork] or [metric["score"]]


def size(b):
    if b is None:
        return "–"
    return f"{b // 1048576} MiB" if b >= 1048576 else f"{b // 1024} KiB"


def load(paths, stat=median):
    ns = defaultdict(list)
    alloc = defaultdict(list)
    for path in paths:
        for r in json.load(open(path)):
            method = r["benchmark"].rsplit(".", 1)[-1]
            p = r.get("params", {})
            key = (method, int(p["version"]), int(p["upstreams"]), int(p["partitions"]),
                   int(p["batchBytes"]) if "batchBytes" in p else None,
                   int(p["partitionsPerTopic"]) if "partitionsPerTopic" in p else None)
            ns[key] += raw(r["primaryMetric"])
            norm = r.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
            if norm:
                alloc[key] += raw(norm)
    return ({k: stat(v) for k, v in ns.items()}, {k: median(v) for k, v in alloc.items()}, {k: len(v) for k, v in ns.items()})


def main(paths, stat=median):
    ns, alloc, count = load(paths, stat)
    keys = sorted({(m, v, p, b, l) for (m, v, u, p, b, l) in ns},
                  key=lambda k: (METHODS.index(k[0]), k[1], k[3] or 0, k[2], k[4] or 0))
    layout = any(k[4] is not None for k in keys)
    name = "min" if stat is min else "median"
    print(f"ns/op: {name} of the measured iterations (pooled over the files given; n = samples per cell, 1 up / 3 up)\n")
    print("| method | version | partitions |" + (" per topic |" if layout else "") + " batch | 1 up ns/op | 3 up ns/op"
          " | 1 up ns/partition | 3 up ns/partition | 3/1 | 1 up B/op | 3 up B/op | n |")
    print("|---|---:|---:|" + ("---:|" if layout else "") + "---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for m, v, p, b, l in keys:
        one, three = ns.get((m, v, 1, p, b, l)), ns.get((m, v, 3, p, b, l))
        a1, a3 = alloc.get((m, v, 1, p, b, l)), alloc.get((m, v, 3, p, b, l))
        cell = lambda x, d=0: "" if x is None else f"{x:,.{d}f}"
        ratio = f"{three / one:.2f}" if one and three else ""
        print(f"| {m} | {v} | {p} |" + (f" {'–' if l is None else l} |" if layout else "")
              + f" {size(b)} | {cell(one)} | {cell(three)} | {cell(one and one / p, 1)} | "
              f"{cell(three and three / p, 1)} | {ratio} | {cell(a1)} | {cell(a3)} | "
              f"{count.get((m, v, 1, p, b, l), 0)}/{count.get((m, v, 3, p, b, l), 0)} |")

    print("\nHeap B/op by batch size (1 KiB / 64 KiB / 1 MiB):\n")
    print("| method | version | upstreams | partitions | 1 KiB | 64 KiB | 1 MiB | max − min |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    groups = sorted({(m, v, u, p) for (m, v, u, p, b, l) in alloc if b is not None},
                    key=lambda k: (METHODS.index(k[0]), k[1], k[2], k[3]))
    for m, v, u, p in groups:
        vals = [alloc.get((m, v, u, p, b, None)) for b in (1024, 65536, 1048576)]
        got = [x for x in vals if x is not None]
        print(f"| {m} | {v} | {u} | {p} | " + " | ".join("" if x is None else f"{x:,.0f}" for x in vals)
              + f" | {max(got) - min(got):,.0f} |")


def paired(paths):
    rounds = [load([p])[0] for p in paths]
    n_rounds = max(sum(1 for r in rounds if k in r) for r in rounds for k in r)
    keys = sorted({(m, v, p, b, l) for r in rounds for (m, v, u, p, b, l) in r},
                  key=lambda k: (METHODS.index(k[0]), k[1], k[2], k[3] or 0, k[4] or 0))
    layout = any(k[4] is not None for k in keys)
    print("| method | version | partitions |" + (" per topic |" if layout else "") + " batch | 1 up ns/op | 3 up ns/op"
          f" | 1 up ns/partition | 3 up ns/partition | 3/1 median of {n_rounds} rounds | 3/1 per round |")
    print("|---|---:|---:|" + ("---:|" if layout else "") + "---:|---:|---:|---:|---:|---:|---|")
    for m, v, p, b, l in keys:
        pairs = [(r[(m, v, 1, p, b, l)], r[(m, v, 3, p, b, l)]) for r in rounds
                 if (m, v, 1, p, b, l) in r and (m, v, 3, p, b, l) in r]
        if not pairs:
            continue
        one, three = median([a for a, _ in pairs]), median([c for _, c in pairs])
        ratios = [c / a for a, c in pairs]
        print(f"| {m} | {v} | {p} |" + (f" {'–' if l is None else l} |" if layout else "")
              + f" {size(b)} | {one:,.0f} | {three:,.0f} | {one / p:,.1f} | {three / p:,.1f} | "
              f"{median(ratios):.2f} | " + " / ".join(f"{x:.2f}" for x in ratios) + " |")


if __name__ == "__main__":
    if sys.argv[1] == "--paired":
        paired(sys.argv[2:])
    elif sys.argv[1] == "--min":
        main(sys.argv[2:], min)
    else:
        main(sys.argv[1:])
