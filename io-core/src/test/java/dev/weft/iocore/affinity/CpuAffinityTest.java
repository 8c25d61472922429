package dev.weft.iocore.affinity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.BitSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Pins real threads and reads the result back from the kernel twice: through {@code sched_getaffinity}
 * and through {@code /proc/thread-self/status}. Each case runs on a fresh thread so the test runner's
 * own thread is never pinned.
 */
class CpuAffinityTest {

    @BeforeAll
    static void linuxOnly() {
        assumeTrue(CpuAffinity.isSupported(), () -> "no CPU affinity here: " + CpuAffinity.unsupportedReason());
        assumeTrue(ProcStatus.available(), "/proc/thread-self/status is not readable");
    }

    @Test
    void currentAffinityMatchesProcfs() throws Exception {
        onFreshThread(() -> {
            BitSet kernel = CpuAffinity.currentThreadAffinity();
            assertFalse(kernel.isEmpty());
            assertEquals(ProcStatus.cpusAllowed(), kernel);
            assertEquals(ProcStatus.cpusAllowedListText(), CpuList.format(kernel));
            return null;
        });
    }

    @Test
    void pinningToEachAllowedCpuIsWhatTheKernelReportsBack() throws Exception {
        BitSet allowed = onFreshThread(CpuAffinity::currentThreadAffinity);
        for (int cpu = allowed.nextSetBit(0); cpu >= 0; cpu = allowed.nextSetBit(cpu + 1)) {
            int target = cpu;
            onFreshThread(() -> {
                CpuAffinity.pinCurrentThread(target);
                BitSet expected = new BitSet();
                expected.set(target);
                assertEquals(expected, CpuAffinity.currentThreadAffinity(), "sched_getaffinity");
                assertEquals(expected, ProcStatus.cpusAllowed(), "/proc/thread-self/status");
                assertEquals(Integer.toString(target), ProcStatus.cpusAllowedListText());
                return null;
            });
        }
    }

    @Test
    void pinningAffectsOnlyTheCallingThread() throws Exception {
        BitSet allowed = onFreshThread(CpuAffinity::currentThreadAffinity);
        assumeTrue(allowed.cardinality() > 1, "needs two CPUs to tell pinned from unpinned");
        onFreshThread(() -> {
            CpuAffinity.pinCurrentThread(allowed.nextSetBit(0));
            BitSet other = onFreshThread(CpuAffinity::currentThreadAffinity);
            // A new thread inherits its creator's mask, so compare with a thread the runner started.
            assertEquals(1, CpuAffinity.currentThreadAffinity().cardinality());
            assertEquals(1, other.cardinality(), "threads inherit the mask of the thread that creates them");
            return null;
        });
        assertEquals(allowed, onFreshThread(CpuAffinity::currentThreadAffinity), "the runner's threads stay unpinned");
    }

    @Test
    void setsAMultiCpuMaskAndWidensItAgain() throws Exception {
        BitSet allowed = onFreshThread(CpuAffinity::currentThreadAffinity);
        onFreshThread(() -> {
            CpuAffinity.pinCurrentThread(allowed.previousSetBit(allowed.length()));
            CpuAffinity.setCurrentThreadAffinity(allowed);
            assertEquals(allowed, CpuAffinity.currentThreadAffinity());
            assertEquals(allowed, ProcStatus.cpusAllowed());
            return null;
        });
    }

    @Test
    void pinningToACpuThatDoesNotExistNamesTheCpuAndErrno() throws Exception {
        int missing = 4000; // beyond any CPU this test machine has online, and beyond cpu_set_t's 1024 bits
        CpuAffinityException error = onFreshThread(() ->
                assertThrows(CpuAffinityException.class, () -> CpuAffinity.pinCurrentThread(missing)));
        assertEquals(22, error.errno(), "EINVAL");
        assertTrue(error.getMessage().contains("to cpu 4000"), error.getMessage());
        assertTrue(error.getMessage().contains("errno 22 (EINVAL"), error.getMessage());
    }

    @Test
    void rejectsNegativeCpusAndEmptySets() {
        assertThrows(IllegalArgumentException.class, () -> CpuAffinity.pinCurrentThread(-1));
        assertThrows(IllegalArgumentException.class, () -> CpuAffinity.setCurrentThreadAffinity(new BitSet()));
    }

    private static <T> T onFreshThread(Callable<T> body) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = Thread.ofPlatform().name("affinity-test").start(() -> {
            try {
                result.complete(body.call());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        try {
            return result.get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw (Exception) e.getCause();
        } finally {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        }
    }
}
