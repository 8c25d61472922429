package dev.weft.iocore.affinity;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;

/** Reads the calling thread's allowed CPUs the way the kernel reports them to humans: procfs. */
final class ProcStatus {

    private static final Path THREAD_STATUS = Path.of("/proc/thread-self/status");

    private ProcStatus() {
    }

    /** {@code Cpus_allowed_list} of the calling thread, as text (e.g. {@code 0-1}). */
    static String cpusAllowedListText() {
        try {
            for (String line : Files.readAllLines(THREAD_STATUS)) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    return line.substring("Cpus_allowed_list:".length()).trim();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new AssertionError(THREAD_STATUS + " has no Cpus_allowed_list line");
    }

    /** {@code Cpus_allowed_list} of the calling thread, parsed. */
    static BitSet cpusAllowed() {
        return CpuList.parse(cpusAllowedListText());
    }

    static boolean available() {
        return Files.isReadable(THREAD_STATUS);
    }
}
