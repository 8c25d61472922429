package dev.weft.soak.common;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Keeps Weft's class-data archive ({@link WeftProcess#cdsArchive()}) usable across rebuilds.
 *
 * <p>{@code -XX:+AutoCreateSharedArchive} writes the archive at exit when there is none (or it is damaged,
 * or from another JDK), but on JDK 25 <em>not</em> when it was written for another class path, and a
 * rebuilt jar (new modification time) counts as another class path: the JVM prints {@code [error][cds]
 * shared class paths mismatch}, runs without it and never replaces it. So next to the archive a file
 * {@code <archive>.classpath} records what it was written for (the JDK, and every class path entry with
 * its size and modification time); before Weft starts, an archive whose record differs is deleted, so that
 * this Weft process writes a new one as it exits. After the start, an archive the JVM still did not map is
 * deleted too (for the next start).
 */
final class CdsArchive {

    private CdsArchive() {
    }

    /** The archive a JVM with {@code options} uses: the last {@code -XX:SharedArchiveFile=}, or null. */
    static Path of(List<String> options) {
        Path archive = null;
        for (String o : options) {
            if (o.startsWith("-XX:SharedArchiveFile=")) {
                archive = Path.of(o.substring("-XX:SharedArchiveFile=".length()));
            }
        }
        return archive;
    }

    static Path record(Path archive) {
        return archive.resolveSibling(archive.getFileName() + ".classpath");
    }

    /** What an archive depends on: the JDK, and each class path entry with its size and modification time. */
    static String fingerprint(List<String> classPath) {
        StringBuilder b = new StringBuilder("java.home=").append(System.getProperty("java.home"))
                .append("\njava.vm.version=").append(System.getProperty("java.vm.version")).append('\n');
        for (String e : classPath) {
            Path p = Path.of(e);
            long size = -1;
            long mtime = -1;
            try {
                size = Files.size(p);
                mtime = Files.getLastModifiedTime(p).toMillis();
            } catch (IOException ex) {
                // gone: recorded as -1
            }
            b.append(e).append(' ').append(size).append(' ').append(mtime).append('\n');
        }
        return b.toString();
    }

    /**
     * Before a Weft process with {@code classPath} starts: deletes an archive written for another class
     * path (or with no record of it), and records {@code classPath} when there is no archive (the one this
     * process will write at exit). Returns what it did, for a log line, or null.
     */
    static synchronized String prepare(Path archive, List<String> classPath) {
        String fp = fingerprint(classPath);
        Path record = record(archive);
        try {
            String recorded = Files.exists(record) ? Files.readString(record) : null;
            String did = null;
            if (Files.exists(archive) && !fp.equals(recorded)) {
                Files.delete(archive);
                did = "class-data archive " + archive + " was written for another class path or a jar changed since: deleted;"
                        + " this Weft process writes a new one when it exits";
            }
            if (!Files.exists(archive) && !fp.equals(recorded)) {
                Files.createDirectories(archive.getParent());
                Files.writeString(record, fp);
            }
            return did;
        } catch (IOException e) {
            throw new UncheckedIOException("class-data archive " + archive + ": " + e.getMessage(), e);
        }
    }

    /**
     * After the start of process {@code pid}: if the archive exists but the JVM did not map it (rejected it
     * for a reason the record does not cover), deletes it so that the next start writes a new one. Returns
     * what it did, or null.
     */
    static synchronized String afterStart(Path archive, long pid) {
        if (!Files.exists(archive) || WeftProcess.maps(pid, archive)) {
            return null;
        }
        try {
            Files.deleteIfExists(archive);
            Files.deleteIfExists(record(archive));
        } catch (IOException e) {
            return "class-data archive " + archive + " not used by the JVM, and cannot be deleted: " + e.getMessage();
        }
        return "class-data archive " + archive + " exists but the JVM did not use it (its [cds] lines say why): deleted;"
                + " the next Weft process writes a new one";
    }
}
