package dev.weft.soak.common;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Weft's JVM options as the tools start it: the launcher's resource {@code dev/weft/proxy/jvm.options} (read
 * from the class path, comments dropped, the class-data archive placeholder replaced), then the extras; and
 * the class path without directories.
 */
class WeftProcessOptionsTest {

    @Test
    void launcherJvmOptionsReadTheRealResource() throws Exception {
        List<String> opts = WeftProcess.launcherJvmOptions(null);
        Path archive = WeftProcess.cdsArchive();
        // the archive: <the tool's target dir>/weft.jsa, absolute, next to the classes/ this test runs from
        assertTrue(archive.isAbsolute(), archive.toString());
        assertEquals("weft.jsa", archive.getFileName().toString());
        assertEquals(WeftProcess.toolTargetDir(), archive.getParent());
        assertTrue(Files.isDirectory(WeftProcess.toolTargetDir().resolve("classes")), WeftProcess.toolTargetDir().toString());

        assertTrue(opts.contains("-XX:SharedArchiveFile=" + archive), opts.toString());
        assertTrue(opts.contains("-XX:+AutoCreateSharedArchive"), opts.toString());
        // what WeftProcess used to hard-code now comes from the file
        assertTrue(opts.contains("--enable-native-access=ALL-UNNAMED"), opts.toString());
        assertTrue(opts.contains("--sun-misc-unsafe-memory-access=allow"), opts.toString());
        assertTrue(opts.contains("-Dio.netty.leakDetection.level=disabled"), opts.toString());
        for (String o : opts) {
            assertFalse(o.isBlank() || o.contains("#") || o.contains("${") || o.contains(" "), "'" + o + "' in " + opts);
        }
        // exactly the file's option lines, in order (the launcher's sed: '#...' and blank lines dropped)
        String text;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(WeftProcess.JVM_OPTIONS_RESOURCE)) {
            assertNotNull(in, WeftProcess.JVM_OPTIONS_RESOURCE);
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<String> lines = text.lines().map(String::trim).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        assertEquals(lines.size(), opts.size(), opts.toString());
        assertEquals(lines.stream().map(l -> l.replace(WeftProcess.CDS_PLACEHOLDER, archive.toString())).toList(), opts);
    }

    @Test
    void extrasComeLastSoTheyOverride() {
        List<String> base = WeftProcess.launcherJvmOptions(null);
        assertEquals(base, WeftProcess.launcherJvmOptions(""));
        assertEquals(base, WeftProcess.launcherJvmOptions("  \t "));
        List<String> more = WeftProcess.launcherJvmOptions("  -Xmx2g \t -XX:+UseG1GC ");
        assertEquals(base.size() + 2, more.size());
        assertEquals(base, more.subList(0, base.size()));
        assertEquals(List.of("-Xmx2g", "-XX:+UseG1GC"), more.subList(base.size(), more.size()));
    }

    @Test
    void parsesLikeTheLauncher() {
        String text = "# comment\r\n\r\n-Xms8m   # trailing comment\n  -XX:SharedArchiveFile=${WEFT_CDS_ARCHIVE}\n\t\n-Da=1 -Db=2\n#-Xmx9g\n";
        assertEquals(List.of("-Xms8m", "-XX:SharedArchiveFile=/x/weft.jsa", "-Da=1", "-Db=2"),
                WeftProcess.parseJvmOptions(text, Path.of("/x/weft.jsa")));
        assertEquals(List.of("-Xms8m"), WeftProcess.withoutCds(List.of("-XX:+AutoCreateSharedArchive", "-Xms8m", "-XX:SharedArchiveFile=/x")));
    }

    /**
     * JDK 25 does not rebuild an archive written for another class path (a rebuilt jar is one), so the tool
     * deletes such an archive before Weft starts; the record next to it says what it was written for.
     */
    @Test
    void staleArchivesAreDeletedBeforeTheStart(@TempDir Path dir) throws Exception {
        Path archive = dir.resolve("t/weft.jsa");
        Path a = Files.writeString(dir.resolve("a.jar"), "a");
        Path b = Files.writeString(dir.resolve("b.jar"), "b");
        List<String> cp = List.of(a.toString(), b.toString());
        assertEquals(archive, CdsArchive.of(List.of("-XX:SharedArchiveFile=/elsewhere.jsa", "-Xmx1g", "-XX:SharedArchiveFile=" + archive)));
        assertEquals(null, CdsArchive.of(List.of("-Xmx1g")));

        assertEquals(null, CdsArchive.prepare(archive, cp)); // none yet: the class path it will be written for is recorded
        assertEquals(CdsArchive.fingerprint(cp), Files.readString(CdsArchive.record(archive)));
        Files.writeString(archive, "an archive"); // what the JVM writes at exit
        assertEquals(null, CdsArchive.prepare(archive, cp));
        assertTrue(Files.exists(archive), "same class path: kept");

        Files.setLastModifiedTime(b, java.nio.file.attribute.FileTime.fromMillis(Files.getLastModifiedTime(b).toMillis() + 5_000));
        assertNotNull(CdsArchive.prepare(archive, cp)); // a rebuilt jar
        assertFalse(Files.exists(archive), "stale: deleted");
        assertEquals(CdsArchive.fingerprint(cp), Files.readString(CdsArchive.record(archive)));

        Files.writeString(archive, "an archive");
        assertNotNull(CdsArchive.prepare(archive, List.of(a.toString())), "another class path");
        assertFalse(Files.exists(archive));
        Files.writeString(archive, "an archive");
        Files.delete(CdsArchive.record(archive));
        assertNotNull(CdsArchive.prepare(archive, List.of(a.toString())), "no record of what it was written for");
        assertFalse(Files.exists(archive));

        // after the start: an archive the process did not map is deleted for the next start
        Files.writeString(archive, "an archive");
        assertNotNull(CdsArchive.afterStart(archive, ProcessHandle.current().pid()));
        assertFalse(Files.exists(archive));
        assertEquals(null, CdsArchive.afterStart(archive, ProcessHandle.current().pid()), "none: nothing to do");
    }

    @Test
    void classPathHasNoDirectories(@TempDir Path dir) throws Exception {
        Path extraDir = Files.createDirectories(dir.resolve("classes"));
        Files.writeString(extraDir.resolve("x.txt"), "non-empty");
        Path jar = Files.writeString(dir.resolve("some.jar"), "not really a jar");
        String cp = String.join(File.pathSeparator, extraDir.toString(), System.getProperty("java.class.path"), jar.toString(),
                dir.resolve("missing.jar").toString());
        WeftProcess.WeftClassPath w = WeftProcess.weftClassPath(cp);
        assertTrue(w.entries().contains(jar.toString()), w.toString());
        assertFalse(w.entries().contains(dir.resolve("missing.jar").toString()), w.toString());
        for (String e : w.entries()) {
            assertFalse(Path.of(e).toAbsolutePath().normalize().startsWith(WeftProcess.toolTargetDir()), "the tool's own classes: " + e);
        }
        if (w.jarsOnly()) {
            // a build that packaged the modules (verify, package): only JAR files, so the JVM can write the archive
            for (String e : w.entries()) {
                assertTrue(Files.isRegularFile(Path.of(e)), e);
            }
            assertTrue(w.weftMainFrom().endsWith(".jar"), w.weftMainFrom());
        } else {
            // `test` phase: the modules are classes/ directories; those stay (Weft needs them), the archive goes
            assertTrue(Files.isDirectory(Path.of(w.weftMainFrom())), w.weftMainFrom());
        }
    }
}
