package dev.weft.iocore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.qos.logback.classic.Level;
import dev.weft.iocore.affinity.CpuAffinity;
import dev.weft.iocore.affinity.CpuAffinityException;
import dev.weft.iocore.affinity.CpuList;
import dev.weft.iocore.affinity.CpuPinning;
import dev.weft.iocore.buffer.BufferPolicy;
import dev.weft.iocore.testing.LogCapture;
import dev.weft.iocore.transport.Transport;
import dev.weft.iocore.transport.TransportPreference;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.channel.IoEventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class EventLoopsTest {

    @Test
    void defaultsToOneLoopPerAvailableProcessor() throws Exception {
        EventLoopsConfig config = EventLoopsConfig.defaults();
        assertEquals(Runtime.getRuntime().availableProcessors(), config.loopCount());
        assertSame(TransportPreference.AUTO, config.transport());
        assertTrue(config.pinning() instanceof CpuPinning.Off, "pinning is off by default");
        try (LogCapture log = LogCapture.of(EventLoops.class); EventLoops loops = EventLoops.start(config)) {
            assertEquals(config.loopCount(), loops.coreCount());
            if (IoUring.isAvailable()) {
                assertSame(Transport.IO_URING, loops.transport(), "io_uring is the default where the kernel has it");
                assertSame(IoUringServerSocketChannel.class, loops.serverChannelClass());
                assertSame(IoUringSocketChannel.class, loops.socketChannelClass());
            }
            assertEquals(List.of(loops.coreCount() + " event loops started on " + loops.transport().configName()
                    + ", not pinned"), log.messages(Level.INFO));
            for (int i = 0; i < loops.coreCount(); i++) {
                IoEventLoop core = loops.core(i);
                assertEquals(i, loops.coreIndexOf(core));
                assertEquals(-1, loops.pinnedCpu(i));
                String name = core.submit(() -> Thread.currentThread().getName()).get(5, TimeUnit.SECONDS);
                assertEquals("weft-core-" + i, name);
            }
        }
    }

    @Test
    void startLogsTheTransportChoiceOnce() {
        try (LogCapture log = LogCapture.of(dev.weft.iocore.transport.TransportSelector.class);
                EventLoops loops = EventLoops.start(EventLoopsConfig.defaults().withLoopCount(1))) {
            List<String> lines = log.events().stream().map(e -> e.getFormattedMessage()).toList();
            assertEquals(1, lines.size(), lines.toString());
            assertEquals(loops.transportSelection().describe(), lines.getFirst());
            assertTrue(lines.getFirst().startsWith("transport " + loops.transport().configName() + " selected"));
        }
    }

    @Test
    void coreIndexOfAndClientBootstrapRejectForeignLoops() {
        MultiThreadIoEventLoopGroup foreign = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (EventLoops loops = EventLoops.start(EventLoopsConfig.defaults().withLoopCount(2))) {
            IoEventLoop stranger = foreign.next();
            assertEquals(-1, loops.coreIndexOf(stranger));
            IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                    () -> loops.clientBootstrap(stranger, BufferPolicy.defaults()));
            assertTrue(error.getMessage().endsWith("is not one of this group's event loops"), error.getMessage());
            assertEquals(2, loops.cores().size());
            assertEquals(2, loops.group().executorCount());
        } finally {
            foreign.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void closeTerminatesEveryLoop() {
        EventLoops loops = EventLoops.start(EventLoopsConfig.defaults().withLoopCount(2));
        loops.close();
        assertTrue(loops.group().isTerminated());
        for (IoEventLoop core : loops.cores()) {
            assertTrue(core.isTerminated());
        }
    }

    @Test
    void pinsEachLoopThreadToItsCpuAsSeenFromInsideTheLoop() throws Exception {
        assumeTrue(CpuAffinity.isSupported(), () -> "no CPU affinity: " + CpuAffinity.unsupportedReason());
        BitSet allowed = CpuAffinity.currentThreadAffinity();
        int[] cpus = allowed.stream().toArray();
        // One loop more than CPUs: the last one wraps around to the first CPU.
        EventLoopsConfig config = EventLoopsConfig.defaults().withLoopCount(cpus.length + 1)
                .withPinning(CpuPinning.allowedCpus());
        try (LogCapture log = LogCapture.of(EventLoops.class); EventLoops loops = EventLoops.start(config)) {
            for (int i = 0; i < loops.coreCount(); i++) {
                int expected = cpus[i % cpus.length];
                assertEquals(expected, loops.pinnedCpu(i));
                CompletableFuture<String> seen = new CompletableFuture<>();
                IoEventLoop core = loops.core(i);
                core.execute(() -> {
                    // Inside the loop: what does the kernel say about this very thread?
                    try {
                        seen.complete(Thread.currentThread().getName() + " sched=" + CpuList.format(
                                CpuAffinity.currentThreadAffinity()) + " proc=" + procCpusAllowedList());
                    } catch (Throwable t) {
                        seen.completeExceptionally(t);
                    }
                });
                assertEquals("weft-core-" + i + "-cpu" + expected + " sched=" + expected + " proc=" + expected,
                        seen.get(5, TimeUnit.SECONDS));
            }
            assertTrue(log.messages(Level.INFO).getFirst().contains(", pinned to cpus core 0->" + cpus[0]),
                    log.messages(Level.INFO).toString());
        }
    }

    @Test
    void pinningToCpusThisProcessMayNotUseFailsBeforeStartingAnything() {
        assumeTrue(CpuAffinity.isSupported(), () -> "no CPU affinity: " + CpuAffinity.unsupportedReason());
        BitSet allowed = CpuAffinity.currentThreadAffinity();
        BitSet bogus = new BitSet();
        bogus.set(allowed.nextSetBit(0));
        bogus.set(4000);
        IllegalStateException error = assertThrows(IllegalStateException.class, () -> EventLoops.start(
                EventLoopsConfig.defaults().withLoopCount(1).withPinning(CpuPinning.cpus(bogus))));
        assertEquals("cpuPinning: cpus 4000 are not available to this process (allowed: " + CpuList.format(allowed)
                + ")", error.getMessage());
    }

    @Test
    void threadFactoryRecordsAPinningFailureAndStillRunsTheLoopBody() throws Exception {
        assumeTrue(CpuAffinity.isSupported(), () -> "no CPU affinity: " + CpuAffinity.unsupportedReason());
        CoreThreadFactory factory = new CoreThreadFactory("pin-fail", new int[] {4000});
        CompletableFuture<String> ran = new CompletableFuture<>();
        Thread thread = factory.newThread(() -> ran.complete(Thread.currentThread().getName()));
        thread.start();
        assertEquals("pin-fail-0-cpu4000", ran.get(5, TimeUnit.SECONDS));
        thread.join(5_000);
        assertEquals(1, factory.pinningFailures().size());
        CpuAffinityException failure = (CpuAffinityException) factory.pinningFailures().getFirst();
        assertEquals(22, failure.errno());
    }

    @Test
    void rejectsNonsenseConfiguration() {
        EventLoopsConfig defaults = EventLoopsConfig.defaults();
        assertThrows(IllegalArgumentException.class, () -> defaults.withLoopCount(0));
        assertThrows(IllegalArgumentException.class, () -> defaults.withLoopCount(EventLoopsConfig.MAX_LOOPS + 1));
        assertThrows(IllegalArgumentException.class, () -> defaults.withThreadNamePrefix(" "));
        assertThrows(IllegalArgumentException.class, () -> defaults.withStartTimeout(java.time.Duration.ZERO));
    }

    private static String procCpusAllowedList() throws java.io.IOException {
        for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return line.substring("Cpus_allowed_list:".length()).trim();
            }
        }
        throw new AssertionError("no Cpus_allowed_list");
    }
}
