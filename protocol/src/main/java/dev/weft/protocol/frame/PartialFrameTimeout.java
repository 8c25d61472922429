package dev.weft.protocol.frame;

/**
 * The user event a {@link KafkaFrameDecoder} with {@link PartialFrameLimits} fires when a frame is still
 * incomplete when its time is up; the decoder closes the connection right after, so a handler only has
 * to log and count it.
 *
 * @param bufferedBytes bytes of the frame received (size prefix included)
 * @param frameBytes the whole frame's size as its prefix declares it (prefix included), or -1 when even
 *     the 4-byte prefix is incomplete
 * @param ageNanos since the frame's first byte arrived
 * @param timeoutNanos the limit
 * @param waitingForBudget true when the connection was not reading because its core's budget could not
 *     take the frame yet (it waited, it did not stall); false when the client itself was too slow
 * @param grantedBytes what the frame held of its core's budget (0 while waiting or before the prefix)
 * @param coreGrantedBytes what the whole core had granted, this frame included
 * @param coreLimitBytes the core's budget
 * @param largeAboveBytes frames above this are assembled one at a time per core
 * @param largeGrantTaken whether some frame of the core held that one large turn
 */
public record PartialFrameTimeout(
        int bufferedBytes,
        long frameBytes,
        long ageNanos,
        long timeoutNanos,
        boolean waitingForBudget,
        long grantedBytes,
        long coreGrantedBytes,
        long coreLimitBytes,
        long largeAboveBytes,
        boolean largeGrantTaken) {

    /** Whether the frame is larger than what a frame may take without the core's large turn. */
    public boolean large() {
        return frameBytes > largeAboveBytes;
    }
}
