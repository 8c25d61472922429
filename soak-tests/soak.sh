#!/usr/bin/env bash
# Builds soak-tests (and what it needs) without tests, then runs dev.weft.soak.SoakRun with the JDK that ./mvnw uses.
# Installs nothing: the haproxy target needs Debian's haproxy (apt-get install haproxy).
# Run from anywhere; relative --out paths are relative to the repository root.
#   soak-tests/soak.sh --help
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. .mvn/find-jdk.sh
target="${WEFT_SOAK_TARGET_DIR:-target-soak}"
# One reactor build: the class path points at the freshly built modules, not at older installed jars.
./mvnw -B -q -Dweft.targetDir="$target" -pl soak-tests -am -Dmaven.test.skip=true package \
  dependency:build-classpath -Dmdep.outputFile="$target/classpath.txt" >/dev/null
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xmx2g ${WEFT_SOAK_JAVA_OPTS:-} \
  -cp "$root/soak-tests/$target/classes:$(cat "$root/soak-tests/$target/classpath.txt")" dev.weft.soak.SoakRun "$@"
