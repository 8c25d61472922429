package dev.weft.protocol.wire;

/** A frame that does not parse as the Kafka message its header claims: truncated, or lengths that lie. */
public final class MalformedFrameException extends RuntimeException {
    public MalformedFrameException(String message) {
        super(message);
    }

    /** Wraps what a decoder underneath (kafka-clients' generated readers) threw, keeping it as the cause. */
    public MalformedFrameException(String message, Throwable cause) {
        super(message, cause);
    }
}
