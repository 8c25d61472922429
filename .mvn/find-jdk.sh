# Sourced (POSIX sh) by ./mvnw and ./weft: exports JAVA_HOME as a JDK >= 25, or exits 3 saying what
# to install. WEFT_JAVA_HOME or JAVA_HOME wins when it is new enough; else the newest JDK >= 25 found
# in the usual install locations.
weft_required_jdk=25

weft_java_major() {
  "$1" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -n 1
}

weft_find_jdk() {
  for weft_c in "${WEFT_JAVA_HOME:-}" "${JAVA_HOME:-}"; do
    [ -n "$weft_c" ] && [ -x "$weft_c/bin/javac" ] || continue
    weft_v="$(weft_java_major "$weft_c/bin/java")"
    if [ -n "$weft_v" ] && [ "$weft_v" -ge "$weft_required_jdk" ]; then echo "$weft_c"; return 0; fi
  done
  weft_best="" weft_best_v=0
  weft_path_jdk=""
  if command -v javac >/dev/null 2>&1; then
    weft_path_jdk="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"
  fi
  for weft_c in /usr/lib/jvm/* /usr/java/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/* "$HOME"/.jdks/* $weft_path_jdk; do
    [ -x "$weft_c/bin/java" ] && [ -x "$weft_c/bin/javac" ] || continue
    weft_v="$(weft_java_major "$weft_c/bin/java")"
    if [ -n "$weft_v" ] && [ "$weft_v" -ge "$weft_required_jdk" ] && [ "$weft_v" -gt "$weft_best_v" ]; then
      weft_best="$weft_c"; weft_best_v="$weft_v"
    fi
  done
  if [ -n "$weft_best" ]; then echo "$weft_best"; return 0; fi
  {
    echo "weft: no JDK $weft_required_jdk or newer found (looked at WEFT_JAVA_HOME, JAVA_HOME, /usr/lib/jvm, /usr/java, /opt/java, ~/.sdkman, ~/.jdks, PATH)."
    echo "weft: install a JDK $weft_required_jdk (e.g. Eclipse Temurin 25 from https://adoptium.net) and run again, or point JAVA_HOME at it."
  } >&2
  return 1
}

JAVA_HOME="$(weft_find_jdk)" || exit 3
export JAVA_HOME
