#!/bin/sh
# Compare performance reports (weft-report/v1 load/soak files, or JMH -rf json files).
#   perf-reports/compare.sh compare A.json B.json [C.json ...] [--html out.html] [--baseline A]
#       [--threshold throughput=5%,p99=10%,p999=20%,score=10%,alloc=5%] [--gate perf-reports/gates/issue-10.json]
#       [--fail-on-regression]
# Builds perf-reports (into target-reports/) when its classes are missing or older than the sources.
# Exit codes: 0 ok, 1 regression or missed gate goal with --fail-on-regression, 2 usage or input error, 3 no JDK 25.
set -e
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
. "$root/.mvn/find-jdk.sh"
out="$here/${WEFT_PERF_REPORTS_TARGET:-target-reports}"
stamp="$out/compare.sh.built"
if [ ! -f "$stamp" ] || [ ! -f "$out/classes/dev/weft/perfreports/PerfReportsMain.class" ] || [ ! -f "$out/runtime-classpath.txt" ] \
   || [ -n "$(find "$here/src/main" "$here/pom.xml" "$root/pom.xml" -newer "$stamp" -type f 2>/dev/null | head -n 1)" ]; then
  echo "perf-reports: building..." >&2
  (cd "$root" && ./mvnw -B -q -Dweft.targetDir="${WEFT_PERF_REPORTS_TARGET:-target-reports}" \
      -pl perf-reports -DskipTests package) >&2
  touch "$stamp"
fi
exec "$JAVA_HOME/bin/java" -Djava.awt.headless=true \
  -cp "$out/classes:$(cat "$out/runtime-classpath.txt")" dev.weft.perfreports.PerfReportsMain "$@"
