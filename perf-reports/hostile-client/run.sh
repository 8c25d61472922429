#!/usr/bin/env bash
# Runs the hostile-client memory attack (issue #9) against a Weft built in WEFT_DIR and prints its RSS.
#   perf-reports/hostile-client/run.sh [WEFT_DIR] [connections declaredMiB sentMiB stallSeconds]
# The proxy runs alone in its own JVM with default server settings, in front of a one-broker Kafka in
# another JVM (testkit), so the RSS measured is the proxy's only.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
weft_dir="$(cd "${1:-$here/../..}" && pwd)"
shift || true
port="${WEFT_RSS_PORT:-19292}"
work="$(mktemp -d)"
java_home="$("$weft_dir/weft" java-home)"
"$java_home/bin/java" -Xmx1g -cp "$weft_dir/proxy/target/lib/*" "$here/KafkaForRss.java" > "$work/kafka.log" 2>&1 &
kafka_pid=$!
weft_pid=""
trap 'kill $kafka_pid $weft_pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 1200); do
  grep -q '^bootstrap ' "$work/kafka.log" 2>/dev/null && break
  sleep 0.1
done
bootstrap="$(grep '^bootstrap ' "$work/kafka.log" | cut -d' ' -f2)"
[ -n "$bootstrap" ] || { echo "Kafka did not start:"; tail -20 "$work/kafka.log"; exit 1; }
cat > "$work/weft.yaml" <<YAML
server: { eventLoops: 2 }
admin: { enabled: false }
clusters:
  kafka: { bootstrap: "$bootstrap" }
virtualClusters:
  main:
    target: { cluster: kafka }
    gateways:
      - { name: plain, bind: "127.0.0.1:$port", brokerPorts: { start: $((port + 1)), nodeIds: "0-2" } }
YAML
"$weft_dir/weft" run --config "$work/weft.yaml" > "$work/weft.log" 2>&1 &
weft_pid=$!
for _ in $(seq 1 600); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done
# The launcher execs java, so its pid is the proxy's.
sleep 3 # let the JVM settle before the baseline
"$java_home/bin/java" "$here/HostileClientRss.java" "$weft_pid" "127.0.0.1:$port" "$@"
echo "--- proxy log (WARN and above) ---"
grep -E "WARN|ERROR" "$work/weft.log" | head -20 || true
