#!/usr/bin/env python3
"""Per-round medians of a load-tool report (weft-report/v1): for each target, the median over the measured
rounds of produce and catch-up consume MB/s, the proxy's CPU s/GB, syscalls/MB and context switches/MB per
phase, with ratios to direct (throughput) and to haproxy (CPU), and the peak RSS. Issue #10 quotes these.

  perf-reports/round-medians.py perf-reports/results/load-max-2026-12-01-issue10.json
"""
import json
import statistics
import sys


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(v, digits=2):
    return "–" if v is None else f"{v:,.{digits}f}"


def main(path):
    report = json.load(open(path))
    record_bytes = report["config"].get("recordBytes", 1024)
    by_target = {}
    for s in report["slices"]:
        if s.get("warmup"):
            continue
        by_target.setdefault(s["target"], []).append(s)
    rss = {r["target"]: (r.get("proxy") or {}).get("peakRssBytes") for r in report["results"]}
    rows = {}
    for target, slices in by_target.items():
        usage = lambda phase, key: med([(s.get("proxyUsage") or {}).get(phase, {}).get(key) for s in slices])
        rows[target] = {
            "rounds": len(slices),
            "produce": med([s["produceRecordsPerSec"] * record_bytes / 1e6 for s in slices]),
            "consume": med([s["consumeRecordsPerSec"] * record_bytes / 1e6 for s in slices]),
            "p99": med([s["produceP99Micros"] for s in slices]),
            "cpuP": usage("produce", "cpuSecondsPerGB"), "cpuC": usage("consume", "cpuSecondsPerGB"),
            "sysP": usage("produce", "syscallsPerMB"), "sysC": usage("consume", "syscallsPerMB"),
            "csP": usage("produce", "contextSwitchesPerMB"), "csC": usage("consume", "contextSwitchesPerMB"),
            "rss": rss.get(target),
        }
    d = rows.get("direct", {})
    h = rows.get("haproxy", {})
    ratio = lambda a, b: None if a is None or not b else a / b
    print(f"{path}: medians over the measured rounds (load average {report['slices'][0].get('loadAverage')} at the start)")
    print("| target | rounds | produce MB/s | × direct | consume MB/s | × direct | produce p99 µs | CPU s/GB prod / cons | × haproxy | syscalls/MB prod / cons | ctx sw/MB prod / cons | peak RSS MiB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for target, r in rows.items():
        xh = (f"{fmt(ratio(r['cpuP'], h.get('cpuP')))} / {fmt(ratio(r['cpuC'], h.get('cpuC')))}"
              if r["cpuP"] is not None and h.get("cpuP") else "–")
        print(f"| {target} | {r['rounds']} | {fmt(r['produce'], 1)} | {fmt(ratio(r['produce'], d.get('produce')), 3)} "
              f"| {fmt(r['consume'], 1)} | {fmt(ratio(r['consume'], d.get('consume')), 3)} | {fmt(r['p99'], 0)} "
              f"| {fmt(r['cpuP'])} / {fmt(r['cpuC'])} | {xh} | {fmt(r['sysP'], 1)} / {fmt(r['sysC'], 1)} "
              f"| {fmt(r['csP'], 1)} / {fmt(r['csC'], 1)} | {fmt(None if r['rss'] is None else r['rss'] / 2**20, 0)} |")


if __name__ == "__main__":
    for p in sys.argv[1:]:
        main(p)
