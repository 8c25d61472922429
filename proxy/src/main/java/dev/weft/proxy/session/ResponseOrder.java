package dev.weft.proxy.session;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * Responses go back to a client in the order of its requests (DESIGN §3), also when a later request
 * finished first (another upstream answered sooner, the proxy answered itself, a split request waited
 * for its slowest part): each request takes a slot, a sequence number; finished slots leave from the
 * head only.
 *
 * <p>A primitive ring indexed by {@code slot & mask}: no object per request. It starts small and grows
 * (doubling) when a client pipelines more; the session's in-flight cap bounds it. Sized to the cap up
 * front it cost 21 KiB of heap per connection (1,024 slots), idle ones included; most clients keep a
 * handful of requests in flight. Event loop only.
 */
final class ResponseOrder {

    /** Slots a session starts with: a producer's in-flight limit (5) and its fetches, with room. */
    static final int INITIAL_SLOTS = 16;

    /** Hands a finished slot's response (may be null: no response is due) to the client, in order. */
    @FunctionalInterface
    interface Writer {
        void write(int slot, ByteBuf response);
    }

    private short[] apiKeys;
    private short[] versions;
    private int[] correlationIds;
    private long[] startNanos;
    private boolean[] done;
    private ByteBuf[] responses;
    private int mask;
    private int head;
    private int size;

    ResponseOrder(int expected) {
        allocate(Integer.highestOneBit(Math.max(4, expected - 1)) << 1);
    }

    private void allocate(int capacity) {
        apiKeys = new short[capacity];
        versions = new short[capacity];
        correlationIds = new int[capacity];
        startNanos = new long[capacity];
        done = new boolean[capacity];
        responses = new ByteBuf[capacity];
        mask = capacity - 1;
    }

    /** Opens the next slot for a request; returns its number. */
    int open(short apiKey, short version, int correlationId, long nowNanos) {
        if (size == apiKeys.length) {
            grow();
        }
        int slot = head + size;
        int i = slot & mask;
        apiKeys[i] = apiKey;
        versions[i] = version;
        correlationIds[i] = correlationId;
        startNanos[i] = nowNanos;
        done[i] = false;
        responses[i] = null;
        size++;
        return slot;
    }

    short apiKey(int slot) {
        return apiKeys[slot & mask];
    }

    short version(int slot) {
        return versions[slot & mask];
    }

    /** The client's correlation id of the slot's request. */
    int correlationId(int slot) {
        return correlationIds[slot & mask];
    }

    long startNanos(int slot) {
        return startNanos[slot & mask];
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /**
     * Finishes {@code slot} with {@code response} (null: the request gets no response, acks=0; takes
     * ownership) and hands every finished slot at the head to {@code writer}, in order.
     */
    void complete(int slot, ByteBuf response, Writer writer) {
        int i = slot & mask;
        responses[i] = response;
        done[i] = true;
        while (size > 0 && done[head & mask]) {
            int h = head & mask;
            ByteBuf r = responses[h];
            responses[h] = null;
            done[h] = false;
            int finished = head;
            head++;
            size--;
            writer.write(finished, r);
        }
    }

    /** Releases whatever finished responses are still waiting for earlier ones; empties the ring. */
    void releaseAll() {
        for (int k = 0; k < size; k++) {
            int i = (head + k) & mask;
            if (responses[i] != null) {
                responses[i].release();
                responses[i] = null;
            }
            done[i] = false;
        }
        head += size;
        size = 0;
    }

    private void grow() {
        short[] keys = apiKeys;
        short[] vers = versions;
        int[] ids = correlationIds;
        long[] starts = startNanos;
        boolean[] dones = done;
        ByteBuf[] resp = responses;
        int oldMask = mask;
        allocate(keys.length * 2);
        for (int k = 0; k < size; k++) {
            int from = (head + k) & oldMask;
            int to = (head + k) & mask;
            apiKeys[to] = keys[from];
            versions[to] = vers[from];
            correlationIds[to] = ids[from];
            startNanos[to] = starts[from];
            done[to] = dones[from];
            responses[to] = resp[from];
        }
        Arrays.fill(resp, null);
    }
}
