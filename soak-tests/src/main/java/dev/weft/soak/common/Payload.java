package dev.weft.soak.common;

import java.nio.ByteBuffer;

/**
 * Record values: bytes 0-7 the intended send time ({@link System#nanoTime()} of the JVM that produces
 * and consumes), bytes 8-15 a sequence number, the rest zero padding up to the record size.
 */
public final class Payload {

    public static final int HEADER = 16;

    private Payload() {
    }

    public static byte[] create(int size, long intendedNanos, long sequence) {
        byte[] v = new byte[Math.max(size, HEADER)];
        ByteBuffer b = ByteBuffer.wrap(v);
        b.putLong(0, intendedNanos);
        b.putLong(8, sequence);
        return v;
    }

    public static long intendedNanos(byte[] value) {
        return ByteBuffer.wrap(value).getLong(0);
    }

    public static long sequence(byte[] value) {
        return ByteBuffer.wrap(value).getLong(8);
    }
}
