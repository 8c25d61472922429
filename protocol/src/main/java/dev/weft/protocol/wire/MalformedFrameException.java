package dev.weft.protocol.wire;

/** A frame that does not parse as the Kafka message its header claims: truncated, or lengths that lie. */
public final class MalformedFrameException extends RuntimeException {
    public MalformedFrameException(String message) {
        super(message);
    }
}
