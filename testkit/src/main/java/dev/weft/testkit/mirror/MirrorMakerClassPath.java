package dev.weft.testkit.mirror;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the class path of Kafka's MirrorMaker 2 (Kafka 4.1.1 and its dependencies), which module
 * {@code mm2-runtime} writes to {@code mm2-runtime/<build dir>/mm2-classpath.txt}. Those jars stay off
 * every Weft class path, so they are only ever loaded in the child JVM.
 *
 * <p>Looked up, in order: the file named by system property {@value #FILE_PROPERTY} (surefire sets it
 * from the root pom), then {@code mm2-runtime/target/mm2-classpath.txt} in the working directory or any
 * directory above it (a test run from an IDE).
 */
final class MirrorMakerClassPath {

    static final String FILE_PROPERTY = "weft.mm2.classpathFile";
    private static final Path FALLBACK = Path.of("mm2-runtime", "target", "mm2-classpath.txt");

    private MirrorMakerClassPath() {
    }

    /** MM2's jars, then the code location of {@link MirrorMakerMain}, joined with the path separator. */
    static String resolve() {
        Path file = classPathFile();
        String jars;
        try {
            jars = Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read MirrorMaker 2's class path from " + file, e);
        }
        if (jars.isEmpty()) {
            throw new IllegalStateException(file + " is empty: rebuild module mm2-runtime");
        }
        return jars + File.pathSeparator + launcherLocation();
    }

    private static Path classPathFile() {
        String configured = System.getProperty(FILE_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            Path file = Path.of(configured);
            if (Files.isRegularFile(file)) {
                return file;
            }
            throw new IllegalStateException("MirrorMaker 2's class path file " + file + " (system property "
                + FILE_PROPERTY + ") does not exist: build module mm2-runtime first (./mvnw -pl testkit -am ...)");
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve(FALLBACK);
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("cannot find MirrorMaker 2's class path: set system property " + FILE_PROPERTY
            + " or build module mm2-runtime (it writes " + FALLBACK + ")");
    }

    /** Where testkit's classes are (a directory or a jar): the child needs {@link MirrorMakerMain} only. */
    private static String launcherLocation() {
        try {
            return Path.of(MirrorMakerMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate testkit's classes", e);
        }
    }
}
