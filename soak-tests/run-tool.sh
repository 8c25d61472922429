#!/usr/bin/env bash
# The one way the soak-tests tools start: builds soak-tests (and what it needs) without tests, then runs
# the main class given first with the JDK that ./mvnw uses. load.sh, soak.sh and footprint.sh call it.
#   soak-tests/run-tool.sh dev.weft.soak.load.LoadTool --help
# WEFT_SOAK_TARGET_DIR: the build's target directory (default target-soak); WEFT_SOAK_JAVA_OPTS: the
# tool JVM's own options. Relative paths in the tools' options are relative to the repository root.
set -euo pipefail
main="$1"; shift
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. .mvn/find-jdk.sh
target="${WEFT_SOAK_TARGET_DIR:-target-soak}"
# One reactor build: the class path points at the freshly built modules, not at older installed jars.
# Tests compiled, not run: some modules' tests use another's test jar, which -Dmaven.test.skip=true does not
# build. The build's output is shown only when it fails.
log="$(mktemp)"
if ! ./mvnw -B -q -Dweft.targetDir="$target" -pl soak-tests -am -DskipTests package \
  dependency:build-classpath -Dmdep.outputFile="$target/classpath.txt" >"$log" 2>&1; then
  cat "$log" >&2
  rm -f "$log"
  echo "$(basename "$0"): building soak-tests failed (above)" >&2
  exit 1
fi
rm -f "$log"
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xmx2g ${WEFT_SOAK_JAVA_OPTS:-} \
  -cp "$root/soak-tests/$target/classes:$(cat "$root/soak-tests/$target/classpath.txt")" "$main" "$@"
