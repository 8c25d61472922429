package dev.weft.protocol.frame;

import dev.weft.iocore.buffer.CoreByteBudget;
import dev.weft.iocore.time.NanoClock;
import java.util.Objects;

/**
 * What bounds the incomplete frame of one connection: how long it may take to arrive, and the memory
 * budget of the core the connection lives on (see {@link KafkaFrameDecoder} for the policy).
 *
 * @param budget the budget of the connection's own event loop; used only on that loop
 * @param timeoutNanos how long after its first byte a frame must be complete
 * @param clock where "now" comes from (a manual clock in tests)
 */
public record PartialFrameLimits(CoreByteBudget budget, long timeoutNanos, NanoClock clock) {

    public PartialFrameLimits {
        Objects.requireNonNull(budget, "budget");
        Objects.requireNonNull(clock, "clock");
        if (timeoutNanos <= 0) {
            throw new IllegalArgumentException("timeoutNanos must be positive, was " + timeoutNanos);
        }
    }
}
