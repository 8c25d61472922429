package dev.weft.jmh.codec;

import dev.weft.protocol.skim.PartitionSkim;
import dev.weft.protocol.skim.UpstreamKeyHash;
import dev.weft.protocol.skim.UpstreamTopicKeys;
import dev.weft.routing.api.RoutePlan;
import dev.weft.routing.api.TopicNameCache;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;

/**
 * Partition weaving for the woven benchmarks ({@link WovenPathBenchmark}, issue #12): every client
 * (logical) topic of the codec frames is cut into segments of {@code segment} virtual partitions (the
 * benchmark's parameter: 5, two segments per 10-partition topic; or 10, the whole topic one segment
 * shifted to physical partitions {@value #WHOLE_TOPIC_SHIFT}.., as a mirrored broker sees a real weave), and
 * the segments alternate between two physical topics, {@code A} (the topic weave's rename:
 * {@code upstream.<name>}, id bits flipped, {@link CodecFrames#upstreamName}) and {@code B}
 * ({@code upstreamB.<name>}, another id). Virtual partition {@code p} of segment {@code s} (first
 * virtual partition {@code first = s * segment}) is physical partition
 * {@code (s / 2) * segment + (p - first)} of {@code s} even ? A : B — for the codec layout (at most 10
 * partitions per topic, so segments 0 and 1) simply {@code p - first}: client partitions 5..9 go
 * upstream as 0..4 of {@code B}, so upstream partition numbers differ from the client's and the keys
 * differ per partition within one client topic. The (key, index) pairs are unique, as in a real weave.
 *
 * <p>The plan is a real {@link RoutePlan} filled the way the partition-weave hot planner fills it:
 * every partition sent to the connection's own broker and {@link RoutePlan#renumber renumbered} under its
 * physical topic's key (one precomputed array per physical topic, as the catalog keeps them).
 */
final class PartitionWeave {

    /**
     * The physical partition a segment starts at when a client topic is one segment (segment size 10, the
     * codec layout's largest topic): the segment takes physical partitions 16.., so every index changes.
     */
    static final int WHOLE_TOPIC_SHIFT = 16;

    /** Per client partition (flat wire index): the key sent upstream (shared per physical topic). */
    final byte[][] keys;
    /** Per client partition: the partition index sent upstream. */
    final int[] indexes;

    private PartitionWeave(byte[][] keys, int[] indexes) {
        this.keys = keys;
        this.indexes = indexes;
    }

    /** The physical topic {@code B}'s name for a client topic named {@code virtualName}. */
    static String otherName(String virtualName) {
        return "upstreamB." + virtualName;
    }

    /** The physical topic {@code B}'s id for a client topic with id {@code virtualId}. */
    static Uuid otherId(Uuid virtualId) {
        return new Uuid(virtualId.getLeastSignificantBits(), ~virtualId.getMostSignificantBits());
    }

    /** The physical partition of client partition {@code p} with segments of {@code segment} partitions. */
    static int upstreamIndex(int p, int segment) {
        int s = p / segment;
        return (s / 2) * segment + (p - s * segment) + (segment >= 10 ? WHOLE_TOPIC_SHIFT : 0);
    }

    static boolean onA(int p, int segment) {
        return (p / segment & 1) == 0;
    }

    /** The weave of a request whose topics are {@code names}/{@code ids} with {@code sizes} partitions (codec layout). */
    private static PartitionWeave of(List<String> names, List<Uuid> ids, List<Integer> sizes, boolean topicIds, int segment) {
        int total = sizes.stream().mapToInt(Integer::intValue).sum();
        byte[][] keys = new byte[total][];
        int[] indexes = new int[total];
        int i = 0;
        for (int t = 0; t < names.size(); t++) {
            byte[] a = CodecFrames.upstreamKey(names.get(t), ids.get(t), topicIds);
            byte[] b = topicIds ? UpstreamTopicKeys.topicIdKey(otherId(ids.get(t))) : UpstreamTopicKeys.nameKey(otherName(names.get(t)));
            for (int p = 0; p < sizes.get(t); p++, i++) {
                keys[i] = onA(p, segment) ? a : b;
                indexes[i] = upstreamIndex(p, segment);
            }
        }
        return new PartitionWeave(keys, indexes);
    }

    static PartitionWeave of(ProduceRequestData data, boolean topicIds, int segment) {
        List<String> names = new ArrayList<>();
        List<Uuid> ids = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        for (TopicProduceData topic : data.topicData()) {
            names.add(topic.name());
            ids.add(topic.topicId());
            sizes.add(topic.partitionData().size());
        }
        return of(names, ids, sizes, topicIds, segment);
    }

    static PartitionWeave of(FetchRequestData data, boolean topicIds, int segment) {
        List<String> names = new ArrayList<>();
        List<Uuid> ids = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        for (FetchTopic topic : data.topics()) {
            names.add(topic.topic());
            ids.add(topic.topicId());
            sizes.add(topic.partitions().size());
        }
        return of(names, ids, sizes, topicIds, segment);
    }

    /**
     * A plan for the client's request skimmed in {@code skim}, filled as the partition-weave planner
     * does: one target (route 0, the connection's own broker), every partition sent there and renumbered.
     */
    RoutePlan plan(PartitionSkim skim) {
        RoutePlan plan = new RoutePlan(new TopicNameCache()).reset(skim);
        int target = plan.target(0, RoutePlan.OWN_BROKER);
        plan.send(0, skim.partitionCount(), target);
        for (int i = 0; i < skim.partitionCount(); i++) {
            plan.renumber(skim.partitionTopic(i), i, indexes[i], keys[i], UpstreamKeyHash.of(keys[i])); // the catalog precomputes it
        }
        return plan;
    }

    /**
     * The client's Produce as the upstream sees it woven (one topic entry per (client topic, physical
     * topic) in the order its first partition comes, partitions renumbered): what the rebuilt request
     * stands for, and what the broker's answer is built from.
     */
    static ProduceRequestData upstream(ProduceRequestData data, boolean topicIds, int segment) {
        ProduceRequestData out = new ProduceRequestData().setAcks(data.acks()).setTimeoutMs(data.timeoutMs())
                .setTransactionalId(data.transactionalId());
        for (TopicProduceData topic : data.topicData()) {
            TopicProduceData a = new TopicProduceData();
            TopicProduceData b = new TopicProduceData();
            if (topicIds) {
                a.setTopicId(CodecFrames.upstreamId(topic.topicId()));
                b.setTopicId(otherId(topic.topicId()));
            } else {
                a.setName(CodecFrames.upstreamName(topic.name()));
                b.setName(otherName(topic.name()));
            }
            for (PartitionProduceData p : topic.partitionData()) {
                (onA(p.index(), segment) ? a : b).partitionData()
                        .add(new PartitionProduceData().setIndex(upstreamIndex(p.index(), segment)).setRecords(p.records()));
            }
            for (TopicProduceData u : List.of(a, b)) {
                if (!u.partitionData().isEmpty()) {
                    out.topicData().add(u);
                }
            }
        }
        return out;
    }

    /** The same for a Fetch (partition fields as the client's, index renumbered). */
    static FetchRequestData upstream(FetchRequestData data, boolean topicIds, int segment) {
        FetchRequestData out = data.duplicate().setTopics(new ArrayList<>());
        for (FetchTopic topic : data.topics()) {
            FetchTopic a = new FetchTopic();
            FetchTopic b = new FetchTopic();
            if (topicIds) {
                a.setTopicId(CodecFrames.upstreamId(topic.topicId()));
                b.setTopicId(otherId(topic.topicId()));
            } else {
                a.setTopic(CodecFrames.upstreamName(topic.topic()));
                b.setTopic(otherName(topic.topic()));
            }
            for (FetchPartition p : topic.partitions()) {
                (onA(p.partition(), segment) ? a : b).partitions().add(p.duplicate().setPartition(upstreamIndex(p.partition(), segment)));
            }
            for (FetchTopic u : List.of(a, b)) {
                if (!u.partitions().isEmpty()) {
                    out.topics().add(u);
                }
            }
        }
        return out;
    }

    /**
     * Sanity: the rebuilt request {@code up} carries, for every client partition, exactly its (key,
     * index) of the weave, and one topic entry per distinct physical topic.
     */
    void checkRebuilt(PartitionSkim up, String what) {
        if (up.partitionCount() != keys.length) {
            throw new IllegalStateException(what + ": " + up.partitionCount() + " partitions, not " + keys.length);
        }
        Set<String> expected = new HashSet<>();
        Set<String> distinctKeys = new HashSet<>();
        for (int i = 0; i < keys.length; i++) {
            expected.add(Arrays.toString(keys[i]) + "/" + indexes[i]);
            distinctKeys.add(Arrays.toString(keys[i]));
        }
        Set<String> sent = new HashSet<>();
        for (int j = 0; j < up.partitionCount(); j++) {
            int t = up.partitionTopic(j);
            byte[] key = up.usesTopicIds() ? UpstreamTopicKeys.topicIdKey(up.topicId(t)) : UpstreamTopicKeys.nameKey(up.topicName(t));
            sent.add(Arrays.toString(key) + "/" + up.partitionIndex(j));
        }
        if (!sent.equals(expected)) {
            throw new IllegalStateException(what + ": not renumbered as woven");
        }
        if (up.topicCount() != distinctKeys.size()) {
            throw new IllegalStateException(what + ": " + up.topicCount() + " topics, not " + distinctKeys.size());
        }
    }
}
