package dev.weft.protocol.frame;

import io.netty.handler.codec.DecoderException;

/** A frame's size prefix is negative or over the configured limit: the connection cannot go on. */
public final class FrameSizeException extends DecoderException {

    private final int size;
    private final int limit;

    public FrameSizeException(int size, int limit, String peerRole, String peerAddress) {
        super(size < 0
                ? "invalid frame size " + size + " (negative) from " + peerRole + " " + peerAddress
                        + ": not a Kafka stream, or corrupted"
                : "frame of " + size + " bytes from " + peerRole + " " + peerAddress
                        + " is over the limit of " + limit + " bytes (" + hint(size) + ")");
        this.size = size;
        this.limit = limit;
    }

    /** Frames that decode as ASCII text are usually another protocol talking to the Kafka port. */
    private static String hint(int size) {
        // The first four bytes of an HTTP request: "GET ", "POST", "HEAD", "PUT ", "DELE"(TE),
        // "OPTI"(ONS), "PATC"(H), "CONN"(ECT), and "PRI " (the HTTP/2 preface, e.g. a gRPC client).
        // A TLS record starts 0x16 0x03.
        switch (size) {
            case 0x47455420, 0x504f5354, 0x48454144, 0x50555420, 0x44454c45, 0x4f505449, 0x50415443, 0x434f4e4e,
                    0x50524920 -> {
                return "looks like an HTTP request on the Kafka port";
            }
            default -> {
            }
        }
        if ((size >>> 24) == 0x16 && ((size >>> 16) & 0xff) == 0x03) {
            return "looks like a TLS ClientHello on a plaintext port";
        }
        return "raise maxFrameBytes if the peer really sends frames this large";
    }

    public int size() {
        return size;
    }

    public int limit() {
        return limit;
    }
}
