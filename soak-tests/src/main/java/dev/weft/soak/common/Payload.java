package dev.weft.soak.common;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Record values. Binary ({@link #create}): bytes 0-7 the intended send time ({@link System#nanoTime()} of
 * the JVM that produces and consumes), bytes 8-15 a sequence number, the rest zero padding up to the
 * record size. JSON ({@link #json}, the load tool's branch targets, whose redacting branch reads the value
 * as JSON): one object of the record size,
 * {@code {"t":"<intended send time, 16 hex digits>","seq":N,"customer":{"id":N,"email":"user-N@example.com"},"pad":"xx..."}};
 * {@link #intendedNanos} reads either (a value starting with <code>{"t":"</code> is JSON).
 */
public final class Payload {

    public static final int HEADER = 16;
    private static final byte[] JSON_START = "{\"t\":\"".getBytes(StandardCharsets.US_ASCII);

    private Payload() {
    }

    public static byte[] create(int size, long intendedNanos, long sequence) {
        byte[] v = new byte[Math.max(size, HEADER)];
        ByteBuffer b = ByteBuffer.wrap(v);
        b.putLong(0, intendedNanos);
        b.putLong(8, sequence);
        return v;
    }

    /** A JSON object of {@code size} bytes (more when the fields alone are longer) with a {@code customer.email}. */
    public static byte[] json(int size, long intendedNanos, long sequence) {
        String head = "{\"t\":\"" + String.format("%016x", intendedNanos) + "\",\"seq\":" + sequence
                + ",\"customer\":{\"id\":" + sequence + ",\"email\":\"user-" + sequence + "@example.com\"},\"pad\":\"";
        int pad = Math.max(0, size - head.length() - 2);
        byte[] v = new byte[head.length() + pad + 2];
        for (int i = 0; i < head.length(); i++) {
            v[i] = (byte) head.charAt(i);
        }
        java.util.Arrays.fill(v, head.length(), head.length() + pad, (byte) 'x');
        v[v.length - 2] = '"';
        v[v.length - 1] = '}';
        return v;
    }

    /** The intended send time of a binary or a JSON value (see the class comment). */
    public static long intendedNanos(byte[] value) {
        if (isJson(value)) {
            return Long.parseUnsignedLong(new String(value, JSON_START.length, 16, StandardCharsets.US_ASCII), 16);
        }
        return ByteBuffer.wrap(value).getLong(0);
    }

    public static long sequence(byte[] value) {
        return ByteBuffer.wrap(value).getLong(8);
    }

    private static boolean isJson(byte[] value) {
        if (value.length < JSON_START.length + 16) {
            return false;
        }
        for (int i = 0; i < JSON_START.length; i++) {
            if (value[i] != JSON_START[i]) {
                return false;
            }
        }
        return true;
    }
}
