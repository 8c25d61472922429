#!/usr/bin/env bash
# Runs Weft's codec benchmarks (jmh/src/main/java/dev/weft/jmh/codec) with the GC profiler and writes
# JMH's JSON to perf-reports/results/jmh-codec-<UTC date>[-quick].json, plus the human-readable log
# next to it (.txt). See jmh/README.md.
#
#   jmh/run-codec-benchmarks.sh [--quick] [--no-build] [--name NAME] [JMH args...]
#
#   --quick     1 warm-up + 2 measured iterations of 1 s (default: 2 warm-up + 3 measured)
#   --no-build  reuse the jar already built
#   --name NAME results are perf-reports/results/jmh-codec-NAME-<UTC date>[-quick].json (default:
#               jmh-codec-<UTC date>[-quick].json), so a subset run does not overwrite a whole one
#   JMH args    passed through after the defaults; a first one not starting with '-' is the pattern
#               (instead of all of dev.weft.jmh.codec), e.g. 'ProduceRequestBenchmark.skim -p shape=100x65536';
#               a later -wi/-i/-f overrides the defaults.
#
# The jar is built into jmh/$WEFT_TARGET_DIR/benchmarks.jar (WEFT_TARGET_DIR defaults to target-jmh,
# so a run never writes into the target/ folders other builds in the same checkout use).
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
build=1
name=""
args=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --no-build) build=0 ;;
    --name) name="$2-"; shift ;;
    *) args+=("$1") ;;
  esac
  shift
done

. .mvn/find-jdk.sh
target="${WEFT_TARGET_DIR:-target-jmh}"
jar="jmh/$target/benchmarks.jar"

if [ "$build" = 1 ]; then
  # Tests are compiled but not run: some modules' tests use another's test jar, which maven.test.skip
  # would not build (the build then fails in a fresh clone).
  ./mvnw -B -q -pl jmh -am -DskipTests -Dweft.targetDir="$target" package
fi

if [ "$quick" = 1 ]; then
  iterations=(-f 1 -wi 1 -i 2 -w 1s -r 1s)
  suffix="-quick"
else
  iterations=(-f 1 -wi 2 -i 3 -w 1s -r 1s)
  suffix=""
fi

mkdir -p perf-reports/results
out="perf-reports/results/jmh-codec-${name}$(date -u +%Y-%m-%d)${suffix}"
pattern='dev\.weft\.jmh\.codec\.'
if [ "${#args[@]}" -gt 0 ] && [ "${args[0]#-}" = "${args[0]}" ]; then
  pattern=""  # the first JMH arg is a pattern: it replaces the default
fi

cmd=("$JAVA_HOME/bin/java" -jar "$jar" ${pattern:+"$pattern"} "${iterations[@]}" -prof gc
     -rf json -rff "$out.json" "${args[@]+"${args[@]}"}")
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -srm), $(nproc) cores, $("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1)" | tee "$out.txt"
echo "# ${cmd[*]}" | tee -a "$out.txt"
"${cmd[@]}" 2>&1 | tee -a "$out.txt"
echo "results: $out.json (log: $out.txt)"
