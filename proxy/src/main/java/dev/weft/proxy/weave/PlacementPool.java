package dev.weft.proxy.weave;

import java.util.ArrayDeque;

/**
 * Reused {@link TopicPlacement}s of one session: a request holds one until its answer is merged, so a
 * pipelining client needs a few; none is allocated once the session is warm. Event loop only.
 */
final class PlacementPool {

    private static final int KEEP = 8;

    private final TopicNameCache names;
    private final ArrayDeque<TopicPlacement> free = new ArrayDeque<>(4);

    PlacementPool(TopicNameCache names) {
        this.names = names;
    }

    TopicPlacement acquire() {
        TopicPlacement p = free.poll();
        return p != null ? p : new TopicPlacement(names);
    }

    void release(TopicPlacement p) {
        if (free.size() < KEEP) {
            free.add(p);
        }
    }

    void clear() {
        free.clear();
    }
}
