package dev.weft.iocore;

import dev.weft.iocore.affinity.CpuAffinity;
import dev.weft.iocore.affinity.CpuList;
import dev.weft.iocore.affinity.CpuPinning;
import dev.weft.iocore.buffer.BufferPolicy;
import dev.weft.iocore.transport.Transport;
import dev.weft.iocore.transport.TransportSelection;
import dev.weft.iocore.transport.TransportSelector;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process's thread-per-core event loops: one Netty 4.2 {@link MultiThreadIoEventLoopGroup} on the
 * selected transport, each loop a "core" with a stable index.
 *
 * <p>Create one per process at startup with {@link #start}; it logs the transport choice once. Every
 * connection lives on one core: accepted channels are spread over the cores by the group, and upstream
 * connections for a session are opened on the session's own core with {@link #clientBootstrap}.
 *
 * <p>Thread safety: immutable after {@link #start}; every method may be called from any thread.
 */
public final class EventLoops implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EventLoops.class);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final TransportSelection selection;
    private final IoHandlerFactory ioHandlerFactory;
    private final MultiThreadIoEventLoopGroup group;
    private final List<IoEventLoop> cores;
    private final Map<EventExecutor, Integer> coreIndexes;
    private final int[] pinnedCpus;
    /** Bytes from which writes use zero-copy send; 0 when off or when the transport has no such send. */
    private final int zeroCopySendThreshold;

    private EventLoops(TransportSelection selection, IoHandlerFactory ioHandlerFactory, MultiThreadIoEventLoopGroup group,
            List<IoEventLoop> cores, int[] pinnedCpus, int zeroCopySendThreshold) {
        this.selection = selection;
        this.ioHandlerFactory = ioHandlerFactory;
        this.group = group;
        this.cores = List.copyOf(cores);
        Map<EventExecutor, Integer> indexes = new IdentityHashMap<>();
        for (int i = 0; i < cores.size(); i++) {
            indexes.put(cores.get(i), i);
        }
        this.coreIndexes = indexes;
        this.pinnedCpus = pinnedCpus;
        this.zeroCopySendThreshold = zeroCopySendThreshold;
    }

    /**
     * Selects the transport (logging the choice and any fallback reason), creates the loops, starts
     * every loop thread in index order and, when pinning is on, checks from inside each loop that the
     * kernel applied its CPU. Fails fast and releases everything on any error.
     *
     * @throws dev.weft.iocore.transport.TransportUnavailableException when a forced transport is unavailable
     * @throws IllegalStateException when pinning is requested but unsupported, names CPUs this process may
     *                               not use, or a loop does not start in time
     */
    public static EventLoops start(EventLoopsConfig config) {
        TransportSelection selection = TransportSelector.select(config.transport());
        TransportSelector.log(selection);
        int[] cpus = resolvePinning(config.pinning());
        CoreThreadFactory threads = new CoreThreadFactory(config.threadNamePrefix(), cpus);
        Transport transport = selection.transport();
        IoHandlerFactory ioHandlerFactory = transport.newIoHandlerFactory();
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(config.loopCount(), threads, ioHandlerFactory);
        try {
            List<IoEventLoop> cores = new ArrayList<>(config.loopCount());
            for (EventExecutor executor : group) {
                cores.add((IoEventLoop) executor);
            }
            // Sequential start: the n-th thread the factory creates belongs to core n, so core n is
            // pinned to threads.cpuForOrdinal(n).
            int[] pinned = new int[cores.size()];
            for (int i = 0; i < cores.size(); i++) {
                pinned[i] = threads.cpuForOrdinal(i);
                startAndVerify(cores.get(i), i, pinned[i], config.startTimeout());
            }
            if (!threads.pinningFailures().isEmpty()) {
                IllegalStateException failure = new IllegalStateException(
                        "could not pin event loop threads to cpus " + CpuList.format(toBitSet(cpus)) + ": "
                                + threads.pinningFailures().getFirst().getMessage());
                threads.pinningFailures().forEach(failure::addSuppressed);
                throw failure;
            }
            int zeroCopy = config.zeroCopySendThresholdBytes();
            if (zeroCopy > 0 && transport.zeroCopySendThresholdOption() == null) {
                LOG.warn("zero-copy send (threshold {} bytes) is an io_uring feature; {} sends by copying", zeroCopy,
                        transport.configName());
                zeroCopy = 0;
            }
            EventLoops loops = new EventLoops(selection, ioHandlerFactory, group, cores, cpus.length == 0 ? new int[0] : pinned,
                    zeroCopy);
            LOG.info("{} event loops started on {}{}{}", cores.size(), transport.configName(),
                    cpus.length == 0 ? ", not pinned" : ", pinned to cpus " + describePinning(pinned),
                    zeroCopy == 0 ? "" : ", zero-copy send from " + zeroCopy + " bytes");
            return loops;
        } catch (RuntimeException | Error e) {
            group.shutdownGracefully(0, CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            throw e;
        }
    }

    /** What was selected and why (the same text that was logged at startup). */
    public TransportSelection transportSelection() {
        return selection;
    }

    /** The transport the loops run on. */
    public Transport transport() {
        return selection.transport();
    }

    /**
     * The {@code IoHandler} factory the loops were built with (one handler per loop), e.g. to build an
     * extra single loop on the same transport for a test or a side task.
     */
    public IoHandlerFactory ioHandlerFactory() {
        return ioHandlerFactory;
    }

    /** The whole group, e.g. for a {@code ServerBootstrap}'s parent and child groups. */
    public MultiThreadIoEventLoopGroup group() {
        return group;
    }

    /** Number of cores (event loops). */
    public int coreCount() {
        return cores.size();
    }

    /** The event loop of core {@code index} (0-based). */
    public IoEventLoop core(int index) {
        return cores.get(index);
    }

    /** All cores in index order (immutable). */
    public List<IoEventLoop> cores() {
        return cores;
    }

    /** The index of {@code loop}, or -1 when it is not one of these cores. */
    public int coreIndexOf(EventExecutor loop) {
        Integer index = coreIndexes.get(loop);
        return index == null ? -1 : index;
    }

    /** The CPU core {@code index} is pinned to, or -1 when pinning is off. */
    public int pinnedCpu(int index) {
        return pinnedCpus.length == 0 ? -1 : pinnedCpus[index];
    }

    /** The listening channel class for {@link #transport()}. */
    public Class<? extends ServerSocketChannel> serverChannelClass() {
        return selection.transport().serverChannelClass();
    }

    /** The client channel class for {@link #transport()}. */
    public Class<? extends SocketChannel> socketChannelClass() {
        return selection.transport().socketChannelClass();
    }

    /**
     * A server bootstrap accepting on these cores (the group is both parent and child: accepted
     * channels are spread across all cores) with the transport's channel class and the buffer policy.
     * The caller adds its {@code childHandler} and binds.
     */
    public ServerBootstrap serverBootstrap(BufferPolicy buffers) {
        ServerBootstrap b = buffers.applyTo(new ServerBootstrap().group(group).channel(serverChannelClass()));
        return zeroCopySendThreshold == 0 ? b
                : b.childOption(selection.transport().zeroCopySendThresholdOption(), zeroCopySendThreshold);
    }

    /**
     * A client bootstrap whose channels live on {@code core} (pass the session's own loop so upstream
     * connections share its core) with the transport's channel class and the buffer policy.
     *
     * @throws IllegalArgumentException when {@code core} is not one of these cores
     */
    public Bootstrap clientBootstrap(EventLoop core, BufferPolicy buffers) {
        if (coreIndexOf(core) < 0) {
            throw new IllegalArgumentException(core + " is not one of this group's event loops");
        }
        Bootstrap b = buffers.applyTo(new Bootstrap().group(core).channel(socketChannelClass()));
        return zeroCopySendThreshold == 0 ? b
                : b.option(selection.transport().zeroCopySendThresholdOption(), zeroCopySendThreshold);
    }

    /** Starts a graceful shutdown; the future completes when every loop has terminated. */
    public Future<?> shutdownGracefully(Duration quietPeriod, Duration timeout) {
        return group.shutdownGracefully(quietPeriod.toMillis(), timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Shuts down with no quiet period and waits up to 10 s for the loops to terminate.
     *
     * @throws IllegalStateException when the loops did not terminate in time
     */
    @Override
    public void close() {
        Future<?> terminated = shutdownGracefully(Duration.ZERO, CLOSE_TIMEOUT);
        if (!terminated.awaitUninterruptibly(CLOSE_TIMEOUT.toMillis() + 1000)) {
            throw new IllegalStateException("event loops did not terminate within " + CLOSE_TIMEOUT);
        }
    }

    @Override
    public String toString() {
        return "EventLoops[" + cores.size() + " x " + transport().configName() + "]";
    }

    private static void startAndVerify(IoEventLoop core, int index, int expectedCpu, Duration timeout) {
        // Submitting the first task starts the loop thread; reading the mask from inside the loop proves
        // the kernel applied the pin to the thread that will run this core.
        Future<BitSet> started = core.submit(() -> expectedCpu < 0 ? null : CpuAffinity.currentThreadAffinity());
        if (!started.awaitUninterruptibly(timeout.toMillis())) {
            throw new IllegalStateException("event loop " + index + " did not start within " + timeout);
        }
        if (!started.isSuccess()) {
            throw new IllegalStateException("event loop " + index + " failed to start", started.cause());
        }
        BitSet actual = started.getNow();
        if (expectedCpu >= 0 && !(actual.cardinality() == 1 && actual.get(expectedCpu))) {
            throw new IllegalStateException("event loop " + index + " should run on cpu " + expectedCpu
                    + " only, but the kernel allows cpus " + CpuList.format(actual));
        }
    }

    private static int[] resolvePinning(CpuPinning pinning) {
        if (pinning instanceof CpuPinning.Off) {
            return new int[0];
        }
        if (!CpuAffinity.isSupported()) {
            throw new IllegalStateException("cpuPinning: " + pinning + " requested, but CPU affinity is not supported: "
                    + CpuAffinity.unsupportedReason().orElse("unknown reason"));
        }
        BitSet allowed = CpuAffinity.currentThreadAffinity();
        int[] cpus = switch (pinning) {
            case CpuPinning.AllowedCpus ignored -> allowed.stream().toArray();
            case CpuPinning.Cpus list -> list.cpus();
            case CpuPinning.Off ignored -> throw new AssertionError("handled above");
        };
        BitSet outside = toBitSet(cpus);
        outside.andNot(allowed);
        if (!outside.isEmpty()) {
            throw new IllegalStateException("cpuPinning: cpus " + CpuList.format(outside)
                    + " are not available to this process (allowed: " + CpuList.format(allowed) + ")");
        }
        return cpus;
    }

    private static BitSet toBitSet(int[] cpus) {
        BitSet set = new BitSet();
        for (int cpu : cpus) {
            set.set(cpu);
        }
        return set;
    }

    private static String describePinning(int[] pinned) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < pinned.length; i++) {
            out.append(i == 0 ? "" : ", ").append("core ").append(i).append("->").append(pinned[i]);
        }
        return out.toString();
    }
}
