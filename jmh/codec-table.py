#!/usr/bin/env python3
"""Renders a JMH JSON result (run with -prof gc) as Markdown tables: median ns/op and median heap
bytes/op (gc.alloc.rate.norm) over the measured iterations, per benchmark and parameter set.  Usage: jmh/codec-table.py RESULT.json"""
import json
import sys
from collections import defaultdict


def median(metric):
    """Median over all measured iterations (JMH's own score is their mean)."""
    raw = sorted(v for fork in metric.get("rawData", []) for v in fork)
    if not raw:
        return metric["score"]
    n = len(raw)
    return raw[n // 2] if n % 2 else (raw[n // 2 - 1] + raw[n // 2]) / 2


def params_key(params):
    if "shape" in params:
        p, b = params["shape"].split("x")
        return (int(p), int(b))
    if "partitions" in params:
        return (int(params["partitions"]), None)
    return (None, int(params.get("batchBytes", 0)))


# parameters shown by the partitions/batch columns, or constant per class
SHAPE_PARAMS = {"shape", "partitions", "batchBytes", "version"}


def extra_key(params):
    """Any other parameter (e.g. WovenPathBenchmark's keys) becomes a column of its own."""
    return tuple(sorted((k, v) for k, v in params.items() if k not in SHAPE_PARAMS))


def size(b):
    if b is None:
        return "–"
    return f"{b // 1048576} MiB" if b >= 1048576 else f"{b // 1024} KiB"


def main(path):
    rows = defaultdict(dict)  # (class, params) -> {method: (ns, bytes)}
    for r in json.load(open(path)):
        cls, method = r["benchmark"].rsplit(".", 2)[-2:]
        ns = median(r["primaryMetric"])
        norm = r.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
        alloc = median(norm) if norm else None
        params = r.get("params", {})
        rows[(cls, params_key(params) + (extra_key(params),))][method] = (ns, alloc)
    by_class = defaultdict(list)
    for (cls, key), methods in rows.items():
        by_class[cls].append((key, methods))
    for cls in sorted(by_class):
        entries = sorted(by_class[cls], key=lambda e: (e[0][2], e[0][0] or 0, e[0][1] or 0))
        methods = sorted({m for _, ms in entries for m in ms})
        extras = [k for k, _ in entries[0][0][2]]
        print(f"\n### {cls}\n")
        head = "| " + "".join(f"{k} | " for k in extras) + "partitions | batch | " \
            + " | ".join(f"{m} ns/op | {m} B/op" for m in methods) + " |"
        print(head)
        print("|" + "---|" * (len(extras) + 2 + 2 * len(methods)))
        for (p, b, extra), ms in entries:
            cells = []
            for m in methods:
                ns, alloc = ms.get(m, (None, None))
                cells.append("" if ns is None else f"{ns:,.0f}")
                cells.append("" if alloc is None else f"{alloc:,.0f}")
            print("| " + "".join(f"{v} | " for _, v in extra) + f"{p if p is not None else '–'} | {size(b)} | "
                  + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
