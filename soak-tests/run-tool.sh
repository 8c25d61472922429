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
./mvnw -B -q -Dweft.targetDir="$target" -pl soak-tests -am -Dmaven.test.skip=true package \
  dependency:build-classpath -Dmdep.outputFile="$target/classpath.txt" >/dev/null
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xmx2g ${WEFT_SOAK_JAVA_OPTS:-} \
  -cp "$root/soak-tests/$target/classes:$(cat "$root/soak-tests/$target/classpath.txt")" "$main" "$@"
