package dev.weft.routing.branch.transform;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code derive: {count: {interval: 10s}}}: records and bytes (key plus value lengths) per topic and
 * client id per window, windows being [k * interval, (k + 1) * interval) from the epoch. A batch counts
 * in the window of its acknowledgement time. A window is emitted once, when it has ended: on the first
 * {@link #tick} at or past its end, or when a batch of a later window comes. A batch of a window already
 * emitted (the writer ran behind the ticks) counts in the window after it rather than emitting that one
 * twice; a batch older than the open window counts in the open one. Empty windows emit nothing.
 *
 * <p>One record per (topic, client id) seen in the window, in first-seen order: key
 * {@code <topic>|<client_id>} (empty client id when none), value
 * {@code {"replica","topic","client_id","records","bytes","window_start","window_end"}}, timestamp the
 * window end.
 */
final class CountStep implements DeriveStep {

    private static final long NO_WINDOW = Long.MIN_VALUE;

    private record TopicClient(String topic, String clientId) {
    }

    /** Mutable so that counting a batch costs no allocation once its (topic, client id) is known. */
    private static final class Tally {
        long records;
        long bytes;
    }

    private final String replicaId;
    private final long intervalMs;
    private final Map<TopicClient, Tally> open = new LinkedHashMap<>();
    private long openStart = NO_WINDOW;
    /** The end of the last window emitted: nothing is counted before it again. */
    private long emittedUntil = NO_WINDOW;

    CountStep(String replicaId, long intervalMs) {
        this.replicaId = replicaId;
        this.intervalMs = intervalMs;
    }

    @Override
    public void onBatch(BatchContext batch, List<BranchRecord> reached, List<BranchRecord> derived) {
        long windowStart = Math.floorDiv(Math.max(batch.timeMs(), emittedUntil), intervalMs) * intervalMs;
        if (openStart != NO_WINDOW && windowStart > openStart) {
            flush(derived);
        }
        if (reached.isEmpty()) {
            return;
        }
        if (openStart == NO_WINDOW) {
            openStart = windowStart;
        }
        Tally tally = open.computeIfAbsent(new TopicClient(batch.topic(), batch.clientId()), k -> new Tally());
        for (int i = 0; i < reached.size(); i++) {
            BranchRecord record = reached.get(i);
            tally.records++;
            tally.bytes += length(record.key()) + length(record.value());
        }
    }

    @Override
    public void tick(long nowMs, List<BranchRecord> derived) {
        if (openStart != NO_WINDOW && nowMs - (openStart + intervalMs) >= 0) {
            flush(derived);
        }
    }

    private void flush(List<BranchRecord> derived) {
        long end = openStart + intervalMs;
        for (Map.Entry<TopicClient, Tally> e : open.entrySet()) {
            TopicClient which = e.getKey();
            ObjectNode value = Json.object();
            value.put("replica", replicaId);
            value.put("topic", which.topic());
            value.put("client_id", which.clientId());
            value.put("records", e.getValue().records);
            value.put("bytes", e.getValue().bytes);
            value.put("window_start", openStart);
            value.put("window_end", end);
            String clientId = which.clientId() == null ? "" : which.clientId();
            byte[] key = (which.topic() + "|" + clientId).getBytes(StandardCharsets.UTF_8);
            derived.add(BranchRecord.of(key, Json.write(value), end));
        }
        open.clear();
        openStart = NO_WINDOW;
        emittedUntil = end;
    }

    private static int length(byte[] bytes) {
        return bytes == null ? 0 : bytes.length;
    }
}
