package dev.weft.proxy.admin;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code weft_topic_collisions_total{virtual_cluster}}: topic-name collisions found while a woven
 * virtual cluster runs that hide topics (policy {@code reject}, or a qualified name already taken).
 * Each is also logged at ERROR, once.
 */
public final class TopicCollisionCollector implements MultiCollector {

    static final String NAME = "weft_topic_collisions";

    static final String SEGMENTS = "weft_woven_segment_problems";

    private final Supplier<Map<String, Long>> counts;
    private final Supplier<Map<String, Long>> segmentProblems;

    /**
     * @param counts per woven virtual cluster, the collisions counted so far (read at each scrape)
     * @param segmentProblems per virtual cluster with partition-woven topics, the segment problems found after start
     */
    public TopicCollisionCollector(Supplier<Map<String, Long>> counts, Supplier<Map<String, Long>> segmentProblems) {
        this.counts = counts;
        this.segmentProblems = segmentProblems;
    }

    @Override
    public MetricSnapshots collect() {
        CounterSnapshot.Builder counter = CounterSnapshot.builder().name(NAME)
                .help("Topic-name collisions between clusters of a woven virtual cluster that hide topics");
        counts.get().forEach((vc, n) -> counter.dataPoint(CounterDataPointSnapshot.builder()
                .labels(Labels.of("virtual_cluster", vc)).value(n).build()));
        CounterSnapshot.Builder segments = CounterSnapshot.builder().name(SEGMENTS)
                .help("Segments of partition-woven topics found broken after start: the physical topic vanished or has fewer partitions than the segment takes");
        segmentProblems.get().forEach((vc, n) -> segments.dataPoint(CounterDataPointSnapshot.builder()
                .labels(Labels.of("virtual_cluster", vc)).value(n).build()));
        return MetricSnapshots.of(counter.build(), segments.build());
    }
}
