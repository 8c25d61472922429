package dev.weft.proxy.weave;

import io.netty.buffer.ByteBuf;
import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * Responses go back to a client in the order of its requests (DESIGN §3), also when a later request
 * finished first (another cluster answered sooner, or the proxy answered itself): each request takes
 * a slot; finished slots leave from the head only.
 */
final class ResponseSlots {

    static final class Slot {
        final short apiKey;
        final long startNanos;
        private ByteBuf response;
        private boolean done;

        Slot(short apiKey, long startNanos) {
            this.apiKey = apiKey;
            this.startNanos = startNanos;
        }
    }

    private final ArrayDeque<Slot> slots = new ArrayDeque<>(16);

    Slot open(short apiKey) {
        Slot s = new Slot(apiKey, System.nanoTime());
        slots.add(s);
        return s;
    }

    int size() {
        return slots.size();
    }

    boolean isEmpty() {
        return slots.isEmpty();
    }

    /**
     * Finishes {@code slot} with {@code response} (null: the request gets no response, acks=0) and hands
     * every finished slot at the head to {@code write}, in order.
     *
     * @return how many slots left
     */
    int complete(Slot slot, ByteBuf response, Consumer<Slot> write) {
        slot.response = response;
        slot.done = true;
        int n = 0;
        Slot head;
        while ((head = slots.peek()) != null && head.done) {
            slots.poll();
            write.accept(head);
            n++;
        }
        return n;
    }

    /** The response of a slot being written (the writer takes ownership). */
    static ByteBuf take(Slot slot) {
        ByteBuf r = slot.response;
        slot.response = null;
        return r;
    }

    /** Releases whatever finished responses are still waiting for earlier ones. */
    void releaseAll() {
        Slot s;
        while ((s = slots.poll()) != null) {
            if (s.response != null) {
                s.response.release();
                s.response = null;
            }
        }
    }
}
