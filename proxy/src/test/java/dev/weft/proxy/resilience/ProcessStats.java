package dev.weft.proxy.resilience;

import dev.weft.iocore.buffer.BufferPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * What this JVM holds right now: resident set size, open file descriptors, and the direct memory of
 * the proxy's shared buffer pool. The proxy runs inside the test JVM (with the embedded brokers and the
 * test's own clients), so RSS and descriptors are the whole process's.
 */
final class ProcessStats {

    private ProcessStats() {
    }

    /** VmRSS from /proc/self/status, in KiB. */
    static long rssKiB() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }

    static long openFileDescriptors() {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Direct memory the proxy's pooled allocator has taken from the OS (chunks in use by its arenas). */
    static long proxyPoolDirectBytes() {
        return BufferPolicy.sharedPooledDirect().metric().usedDirectMemory();
    }

    static String mib(long bytes) {
        return String.format("%.1f MiB", bytes / (1024.0 * 1024.0));
    }
}
