#!/usr/bin/env python3
"""Per-target medians over the measured rounds of a load-tool report with branch targets (issue #13):
produce rec/s, produce p50/p99 and e2e p99 (per slice), the proxy's CPU s/GB (whole slice and produce phase),
with ratios to `weft` and `direct`; the primary's produce errors; the branch's records per acknowledged
record, its counters (summed) and, for faulted slices, the catch-up (records produced after the branch was
back). Markdown on stdout.

  soak-tests/branch-medians.py perf-reports/results/load-branch-copy-redact-2026-12-02.json
"""
import json
import statistics
import sys


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(v, digits=2):
    if v is None:
        return "–"
    if isinstance(v, float) and abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:,.{digits}f}" if isinstance(v, float) else f"{v:,}"


def ratio(a, b):
    return None if a is None or not b else a / b


def main(path):
    report = json.load(open(path))
    rb = report["config"].get("recordBytes", 1024)
    by = {}
    for s in report["slices"]:
        if not s.get("warmup"):
            by.setdefault(s["target"], []).append(s)
    rows = {}
    for t, sl in by.items():
        def cpu(s):
            if s.get("proxyCpuSeconds") is None:
                return None
            moved = (s["acknowledged"] + s["consumed"] + s["reread"]) * rb / 1e9
            return s["proxyCpuSeconds"] / moved if moved else None
        rows[t] = {
            "rounds": len(sl),
            "rps": med([s["produceRecordsPerSec"] for s in sl]),
            "p50": med([s["produceP50Micros"] for s in sl]),
            "p99": med([s["produceP99Micros"] for s in sl]),
            "e2e99": med([s["e2eP99Micros"] for s in sl]),
            "cpu": med([cpu(s) for s in sl]),
            "cpuP": med([((s.get("proxyUsage") or {}).get("produce") or {}).get("cpuSecondsPerGB") for s in sl]),
            "errors": sum(s["produceErrors"] for s in sl),
            "notConsumed": sum(s["notConsumed"] for s in sl),
            "branch": med([s.get("branchRecordsPerAcknowledged") for s in sl]),
            "slices": sl,
        }
    w = rows.get("weft", {})
    d = rows.get("direct", {})
    print(f"`{path}`: medians over the measured rounds; load average at start {report['config'].get('loadAverageAtStart')}, "
          f"at end {report['config'].get('loadAverageAtEnd')}")
    print()
    print("| target | rounds | produce rec/s | p50 ms | p99 ms | e2e p99 ms | CPU s/GB (slice) | CPU s/GB (produce phase) | CPU × weft | p99 × weft | p99 × direct | rec/s × direct | primary errors | branch records / acked |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for t, r in rows.items():
        print(f"| {t} | {r['rounds']} | {fmt(r['rps'])} | {fmt(r['p50'] / 1000 if r['p50'] is not None else None, 1)} | "
              f"{fmt(r['p99'] / 1000 if r['p99'] is not None else None, 1)} | {fmt(r['e2e99'] / 1000 if r['e2e99'] is not None else None, 1)} | "
              f"{fmt(r['cpu'], 3)} | {fmt(r['cpuP'], 3)} | {fmt(ratio(r['cpu'], w.get('cpu')))} | {fmt(ratio(r['p99'], w.get('p99')))} | "
              f"{fmt(ratio(r['p99'], d.get('p99')))} | {fmt(ratio(r['rps'], d.get('rps')), 3)} | {r['errors']} | {fmt(r['branch'], 3)} |")
    print()
    print("Per slice (round: rec/s, p99 ms, branch records / acked, copies or writer counters, fault and catch-up):")
    print()
    for t, r in rows.items():
        if not t.startswith("branch-"):
            continue
        for s in r["slices"]:
            bc = s.get("branchCounters") or {}
            line = (f"- {t} r{s['round']}: {fmt(s['produceRecordsPerSec'])} rec/s, p99 {fmt(s['produceP99Micros'] / 1000, 1)} ms, "
                    f"errors {s['produceErrors']}, branch {s.get('branchRecords')} / {s['acknowledged']} = {s.get('branchRecordsPerAcknowledged')}, "
                    f"copies {bc.get('copies')}, writer {bc.get('records')}")
            f = s.get("branchFault")
            if f:
                c = s.get("branchCatchUp") or {}
                line += (f"; {f['kind']} at {f.get('faultAtSec')} s, back at {f.get('recoveredAtSec')} s; branch by send time "
                         f"{c.get('branchRecordsProduced')} vs primary sent {c.get('primarySentProduced')}; new records after recovery: "
                         f"{c.get('gotNewRecordsAfterRecovery')} (first produced {c.get('firstAfterRecoveryMs')} ms after)")
            print(line)
    print()
    for name, b in (report.get("branch") or {}).items():
        print(f"- {name}: branch topic holds {b['branchRecordsWritten']:,} of the primary's {b['primaryRecordsWritten']:,} records "
              f"(warm-up included) = {b['branchPerPrimary']}; measured slices {b['measuredSlices']}")
    if report.get("problems"):
        print()
        print("Problems:")
        for p in report["problems"]:
            print(f"- {p[:400]}")


if __name__ == "__main__":
    main(sys.argv[1])
