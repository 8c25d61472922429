package dev.weft.routing.api;

import java.util.ArrayDeque;

/**
 * Reused {@link RoutePlan}s of one session: a request holds one until its answer is merged, so a
 * pipelining client needs a few; none is allocated once the session is warm. Event loop only.
 */
public final class RoutePlanPool {

    private static final int KEEP = 8;

    private final TopicNameCache names;
    private final ArrayDeque<RoutePlan> free = new ArrayDeque<>(4);

    public RoutePlanPool(TopicNameCache names) {
        this.names = names;
    }

    public RoutePlan acquire() {
        RoutePlan p = free.poll();
        return p != null ? p : new RoutePlan(names);
    }

    public void release(RoutePlan p) {
        if (free.size() < KEEP) {
            free.add(p);
        }
    }

    public void clear() {
        free.clear();
    }
}
