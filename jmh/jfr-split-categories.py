#!/usr/bin/env python3
"""Time shares of SplitPathBenchmark's split/merge by what the code is doing, from JFR execution samples
(`jfr print --json --stack-depth 64 --events jdk.ExecutionSample X.jfr > X.json`; note jfr print's default
--stack-depth is 5, too shallow). The RequestSplitter.split line numbers below are those of commit 165c1f8
(the code measured on 2026-12-01): update SPLIT_LINES when that method changes. See jmh/README.md, "Split path".
Usage: jmh/jfr-split-categories.py X.json BENCH_METHOD [ns_per_op]"""
import json, sys, collections

SPLIT_LINES = {  # RequestSplitter.split (HEAD 165c1f8) line -> category
    **{l: "selection scans (routeOf[i] == route, every partition, per sub-request)" for l in (62, 63, 64, 96, 97)},
    **{l: "per-topic entries (loop, key copy, count, tagged fields)" for l in (59, 60, 67, 68, 69, 70, 71, 72, 73, 84, 85, 86, 88, 89, 90, 94, 95, 101)},
    98: "partition entries (copy + records slice)",
    79: "frame begin (composite + metadata chunk allocation)",
    77: "header", 78: "header", 81: "header", 82: "header", 83: "header", 103: "header",
    104: "frame finish (flush segment, size prefix, chunk release)",
}

def short(f):
    return f["method"]["type"]["name"].split("/")[-1] + "." + f["method"]["name"]

def category(names, frames):
    for i, n in enumerate(names):
        if n.endswith("releaseOut") or (n.endswith(".release") and any(x.endswith("_avgt_jmhStub") or x.startswith("SplitPathBenchmark.") for x in names[i+1:i+3])):
            return "release the output frame(s)"
        if n.endswith("RequestSkim.wrap") and "Response" not in n:
            return "skim the client's request"
        if n.endswith("ResponseSkim.wrap"):
            return "skim the upstream answer(s)"
        if n.endswith("RequestSplitter.split"):
            return SPLIT_LINES.get(frames[i].get("lineNumber"), f"split line {frames[i].get('lineNumber')}")
        if n.endswith("MergeBookkeeping.find"):
            return "merge: match partitions (MergeBookkeeping.find)"
        if n.endswith("copyEntry"):
            return "merge: partition entries (copy + records slice)"
        if n.endswith("FrameAssembler.begin"):
            return "frame begin (composite + metadata chunk allocation)"
        if n.endswith("FrameAssembler.finish"):
            return "frame finish (flush segment, size prefix, chunk release)"
        if n.endswith("MergeBookkeeping.collect"):
            return "merge: throttle, node endpoints"
        if n.endswith("ResponseMerger.merge"):
            return "merge: other (topic loop, error entries, header)"
    return "other"

path, mark = sys.argv[1], sys.argv[2]
ns = float(sys.argv[3]) if len(sys.argv) > 3 else None
c = collections.Counter(); tot = 0
for e in json.load(open(path))["recording"]["events"]:
    st = e["values"].get("stackTrace")
    if not st:
        continue
    frames = st["frames"]
    names = [short(f) for f in frames]
    if not any(n.endswith(mark + "_avgt_jmhStub") for n in names):
        continue
    tot += 1
    c[category(names, frames)] += 1
print(f"{path}: {tot} samples" + (f", {ns:,.0f} ns/op" if ns else ""))
for k, v in c.most_common():
    print(f"  {100 * v / tot:5.1f}%" + (f" {ns * v / tot:8,.0f} ns" if ns else "") + f"  {k}")
