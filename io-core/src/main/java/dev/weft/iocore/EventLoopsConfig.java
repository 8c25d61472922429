package dev.weft.iocore;

import dev.weft.iocore.affinity.CpuPinning;
import dev.weft.iocore.transport.TransportPreference;
import java.time.Duration;
import java.util.Objects;

/**
 * How to build the process's event loops: which transport, how many loops, whether to pin them.
 *
 * @param transport        {@code auto} (io_uring, else epoll, else NIO) or a forced transport
 * @param loopCount        number of event loops (cores); default {@link Runtime#availableProcessors()}
 * @param pinning          CPU pinning of loop threads; default off
 * @param threadNamePrefix loop threads are named {@code <prefix>-<index>[-cpu<n>]}
 * @param startTimeout     how long {@link EventLoops#start} waits for each loop thread to come up
 * @param zeroCopySendThresholdBytes writes of at least this many bytes go out with the kernel's zero-copy
 *                         send ({@code IORING_OP_SEND_ZC}) where the transport has it (io_uring); 0 = never
 */
public record EventLoopsConfig(
        TransportPreference transport, int loopCount, CpuPinning pinning, String threadNamePrefix, Duration startTimeout,
        int zeroCopySendThresholdBytes) {

    /** More loops than this is a configuration mistake, not a big machine. */
    public static final int MAX_LOOPS = 4096;

    public EventLoopsConfig {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(pinning, "pinning");
        Objects.requireNonNull(threadNamePrefix, "threadNamePrefix");
        Objects.requireNonNull(startTimeout, "startTimeout");
        if (loopCount < 1 || loopCount > MAX_LOOPS) {
            throw new IllegalArgumentException("loopCount: " + loopCount + " is outside 1.." + MAX_LOOPS);
        }
        if (threadNamePrefix.isBlank()) {
            throw new IllegalArgumentException("threadNamePrefix must not be blank");
        }
        if (startTimeout.isNegative() || startTimeout.isZero()) {
            throw new IllegalArgumentException("startTimeout must be positive, was " + startTimeout);
        }
        if (zeroCopySendThresholdBytes < 0) {
            throw new IllegalArgumentException("zeroCopySendThresholdBytes must not be negative, was " + zeroCopySendThresholdBytes);
        }
    }

    /** auto transport, one loop per available processor, no pinning, threads named {@code weft-core-N}. */
    public static EventLoopsConfig defaults() {
        return new EventLoopsConfig(TransportPreference.AUTO, Runtime.getRuntime().availableProcessors(),
                CpuPinning.off(), "weft-core", Duration.ofSeconds(10), 0);
    }

    public EventLoopsConfig withTransport(TransportPreference transport) {
        return new EventLoopsConfig(transport, loopCount, pinning, threadNamePrefix, startTimeout, zeroCopySendThresholdBytes);
    }

    public EventLoopsConfig withLoopCount(int loopCount) {
        return new EventLoopsConfig(transport, loopCount, pinning, threadNamePrefix, startTimeout, zeroCopySendThresholdBytes);
    }

    public EventLoopsConfig withPinning(CpuPinning pinning) {
        return new EventLoopsConfig(transport, loopCount, pinning, threadNamePrefix, startTimeout, zeroCopySendThresholdBytes);
    }

    public EventLoopsConfig withThreadNamePrefix(String threadNamePrefix) {
        return new EventLoopsConfig(transport, loopCount, pinning, threadNamePrefix, startTimeout, zeroCopySendThresholdBytes);
    }

    public EventLoopsConfig withStartTimeout(Duration startTimeout) {
        return new EventLoopsConfig(transport, loopCount, pinning, threadNamePrefix, startTimeout, zeroCopySendThresholdBytes);
    }

    public EventLoopsConfig withZeroCopySendThreshold(int bytes) {
        return new EventLoopsConfig(transport, loopCount, pinning, threadNamePrefix, startTimeout, bytes);
    }
}
