#!/usr/bin/env bash
# Assembles the image's file system (everything but Weft's jars, which Jib adds as layers of their own):
#   /opt/java                a JRE jlinked from the build's JDK (the modules below), with its default CDS archive
#   /lib/x86_64-linux-gnu    glibc (ld.so, libc, libm, libdl, libpthread, librt) from Debian's libc6 package:
#                            all the JVM, Netty's io_uring/epoll/tcnative, zstd-jni and snappy-java natives need
#   /lib64/ld-linux-x86-64.so.2, /etc/passwd + group (user weft, 65532), /etc/nsswitch.conf, /tmp, /etc/weft
#   /opt/weft/jvm.options    the java argument file: proxy's jvm.options minus the class-data archive lines
# Run by the image module's pom (profile "image"); usage: rootfs.sh JAVA_HOME JVM_OPTIONS OUT_DIR CACHE_DIR
# WEFT_IMAGE_LIBC6_DEB=/path/to/libc6_*.deb uses that package instead of `apt-get download libc6`.
set -euo pipefail
java_home="$1" jvm_options="$2" out="$3" cache="$4"

# The JDK modules Weft's class path needs: `jdeps --print-module-deps` over proxy/target/lib (kafka-clients,
# Netty, logback, the embedded Kafka of testkit), plus what is loaded by name at run time: jdk.management
# (com.sun.management MXBeans), jdk.crypto.ec, jdk.naming.dns, jdk.zipfs, jdk.charsets, and jdk.jcmd for
# diagnostics (`jcmd 1 Thread.print` in the container).
modules=java.base,java.compiler,java.desktop,java.management,java.naming,java.net.http,java.rmi,java.scripting
modules+=,java.security.jgss,java.security.sasl,java.sql,jdk.httpserver,jdk.jfr,jdk.unsupported
modules+=,jdk.management,jdk.crypto.ec,jdk.naming.dns,jdk.zipfs,jdk.charsets,jdk.jcmd

rm -rf "$out"
mkdir -p "$out/opt" "$out/opt/weft" "$out/lib/x86_64-linux-gnu" "$out/lib64" "$out/etc/weft" "$out/tmp" "$cache"

# Uncompressed modules (zip-0): larger on disk (129 against 95 MiB before the removals below) but smaller
# gzipped, as image layers are (41 against 49 MiB; the finished layer with glibc is 37 MiB), and no
# inflating at class load. Measured 2026-12-04 with Temurin 25 (tar czf of each jlink output).
"$java_home/bin/jlink" --add-modules "$modules" --output "$out/opt/java" \
  --strip-debug --no-man-pages --no-header-files --compress=zip-0 --generate-cds-archive
# The CDS archive for heaps without compressed oops (> 32 GiB) is never used at Weft's -Xmx512m, and
# AWT's X11 and ALSA libraries cannot load without libX11/libasound (java.desktop is there for java.beans).
rm -f "$out/opt/java/lib/server/classes_nocoops.jsa" "$out/opt/java/lib/libawt_xawt.so" \
  "$out/opt/java/lib/libsplashscreen.so" "$out/opt/java/lib/libjsound.so"
rm -rf "$out/opt/java/legal"   # the JDK's licence texts stay in the JDK; keep the release file
mkdir -p "$out/opt/java/legal" && cp "$java_home/NOTICE" "$out/opt/java/legal/" 2>/dev/null || true

deb="${WEFT_IMAGE_LIBC6_DEB:-}"
if [ -z "$deb" ]; then
  command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null || {
    echo "rootfs.sh: the image takes glibc from Debian's libc6 package; this host has no apt-get/dpkg-deb." >&2
    echo "rootfs.sh: download libc6 for amd64 (https://packages.debian.org/bookworm/libc6) and set WEFT_IMAGE_LIBC6_DEB." >&2
    exit 1
  }
  rm -f "$cache"/libc6_*.deb
  if ! (cd "$cache" && apt-get download -qq libc6 >/dev/null 2>&1); then
    # A fresh machine may have no package lists yet: read them once (as root), then try again.
    [ "$(id -u)" = 0 ] && apt-get update -qq >/dev/null 2>&1 || true
    (cd "$cache" && apt-get download -qq libc6) || {
      echo "rootfs.sh: apt-get download libc6 failed (no Debian mirror?); set WEFT_IMAGE_LIBC6_DEB to a libc6 .deb" >&2
      exit 1
    }
  fi
  deb="$(ls "$cache"/libc6_*.deb | head -n 1)"
fi
x="$cache/libc6"
rm -rf "$x" && dpkg-deb -x "$deb" "$x"
libdir="$x/lib/x86_64-linux-gnu"; [ -d "$libdir" ] || libdir="$x/usr/lib/x86_64-linux-gnu"
for lib in ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1; do
  cp -L "$libdir/$lib" "$out/lib/x86_64-linux-gnu/$lib"
done
cp -L "$libdir/ld-linux-x86-64.so.2" "$out/lib64/ld-linux-x86-64.so.2"
libc_version="$(dpkg-deb -f "$deb" Version)"
echo "libc6 $libc_version ($(basename "$deb"))" > "$out/opt/weft/base.txt"
"$java_home/bin/java" -version 2>&1 | head -n 2 | sed 's/^/jre: /' >> "$out/opt/weft/base.txt"
echo "jre modules: $modules" >> "$out/opt/weft/base.txt"

cat > "$out/etc/passwd" <<'P'
root:x:0:0:root:/root:/sbin/nologin
weft:x:65532:65532:weft:/tmp:/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin
P
cat > "$out/etc/group" <<'G'
root:x:0:
weft:x:65532:
nogroup:x:65534:
G
echo "hosts: files dns" > "$out/etc/nsswitch.conf"

# Proxy's jvm.options as a java argument file, one option per line, comments dropped. The class-data
# archive lines (-XX:+AutoCreateSharedArchive, -XX:SharedArchiveFile=${WEFT_CDS_ARCHIVE}) are left out:
# a container starts from a fresh file system, so the archive would be written (seconds, at every stop)
# and never mapped; the JRE's own CDS archive of JDK classes (jlink --generate-cds-archive) is used.
sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^[[:space:]]*$/d' \
    -e '/AutoCreateSharedArchive/d' -e '/SharedArchiveFile/d' "$jvm_options" > "$out/opt/weft/jvm.options"
if grep -q '\${' "$out/opt/weft/jvm.options"; then
  echo "rootfs.sh: $jvm_options has a \${VARIABLE} the image does not set: $(grep '\${' "$out/opt/weft/jvm.options")" >&2
  exit 1
fi
echo "rootfs.sh: $(du -sh "$out" | cut -f1) in $out in ${SECONDS} s (jre $(du -sh "$out/opt/java" | cut -f1), libc6 $libc_version)"
