package dev.weft.protocol.produce;

import dev.weft.protocol.skim.TestRecords;
import dev.weft.protocol.skim.TestRewriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/** Random Produce requests, as kafka-clients' {@code *Data}, for every layout the skims must handle. */
public final class ProduceCases {

    static final short FIRST = ProduceRequestSkim.OLDEST_VERSION;
    static final short LAST = ProduceRequestSkim.LATEST_VERSION;

    private ProduceCases() {
    }

    public static short[] versions() {
        short[] out = new short[LAST - FIRST + 1];
        for (int i = 0; i < out.length; i++) {
            out[i] = (short) (FIRST + i);
        }
        return out;
    }

    static String topicName(Random random, int i) {
        String base = switch (random.nextInt(4)) {
            case 0 -> "t";
            case 1 -> "orders.eu-west";
            case 2 -> "tópico_ünïcode";
            default -> "x".repeat(1 + random.nextInt(200));
        };
        return base + "-" + i;
    }

    static List<RawTaggedField> unknownTags(Random random, short version) {
        List<RawTaggedField> tags = new ArrayList<>();
        if (version >= ProduceRequestSkim.FIRST_FLEXIBLE_VERSION && random.nextInt(5) == 0) {
            byte[] data = new byte[random.nextInt(6)];
            random.nextBytes(data);
            tags.add(new RawTaggedField(100 + random.nextInt(50), data));
        }
        return tags;
    }

    public static ProduceRequestData request(Random random, short version) {
        ProduceRequestData data = new ProduceRequestData()
                .setAcks((short) (random.nextInt(3) - 1))
                .setTimeoutMs(random.nextInt(60_000))
                .setTransactionalId(random.nextInt(3) == 0 ? "txn-" + random.nextInt(100) + "-ß" : null);
        data.unknownTaggedFields().addAll(unknownTags(random, version));
        int topics = random.nextInt(6);
        if (random.nextInt(10) == 0) {
            topics = 20 + random.nextInt(30); // many small topics
        }
        Set<Integer> seen = new HashSet<>();
        for (int t = 0; t < topics; t++) {
            TopicProduceData topic = new TopicProduceData();
            if (version >= ProduceRequestSkim.FIRST_TOPIC_ID_VERSION) {
                topic.setTopicId(Uuid.randomUuid());
            } else {
                topic.setName(topicName(random, t));
            }
            topic.unknownTaggedFields().addAll(unknownTags(random, version));
            int partitions = random.nextInt(5) + (random.nextInt(8) == 0 ? 0 : 1) - 1;
            List<PartitionProduceData> list = new ArrayList<>();
            seen.clear();
            for (int p = 0; p < partitions; p++) {
                int index = random.nextInt(64);
                if (!seen.add(index)) {
                    continue;
                }
                PartitionProduceData partition = new PartitionProduceData()
                        .setIndex(index)
                        .setRecords(random.nextInt(20) == 0 ? null : TestRecords.random(random));
                partition.unknownTaggedFields().addAll(unknownTags(random, version));
                list.add(partition);
            }
            topic.setPartitionData(list);
            data.topicData().add(topic);
        }
        return data;
    }

    /** A response answering every partition of a random request (v10+: with node endpoints). */
    public static org.apache.kafka.common.message.ProduceResponseData response(Random random, short version) {
        ProduceRequestData request = request(random, version);
        int[] routeOf = new int[flatten(request).size()];
        return ProduceResponseMergerTest.upstreamResponse(random, version, request, routeOf, 0, new HashSet<>());
    }

    /** All partitions of the request in wire order, as (topic, partition) pairs. */
    static List<PartitionProduceData> flatten(ProduceRequestData data) {
        List<PartitionProduceData> out = new ArrayList<>();
        for (TopicProduceData topic : data.topicData()) {
            out.addAll(topic.partitionData());
        }
        return out;
    }

    /** What a split keeping the partitions whose flat index is selected must equal. */
    static ProduceRequestData subset(ProduceRequestData data, java.util.function.IntPredicate selected) {
        ProduceRequestData out = new ProduceRequestData()
                .setAcks(data.acks()).setTimeoutMs(data.timeoutMs()).setTransactionalId(data.transactionalId());
        out.unknownTaggedFields().addAll(data.unknownTaggedFields());
        int i = 0;
        for (TopicProduceData topic : data.topicData()) {
            List<PartitionProduceData> kept = new ArrayList<>();
            for (PartitionProduceData partition : topic.partitionData()) {
                if (selected.test(i++)) {
                    PartitionProduceData copy = partition.duplicate();
                    copy.unknownTaggedFields().addAll(partition.unknownTaggedFields());
                    kept.add(copy);
                }
            }
            if (!kept.isEmpty()) {
                TopicProduceData copy = new TopicProduceData().setName(topic.name()).setTopicId(topic.topicId())
                        .setPartitionData(kept);
                copy.unknownTaggedFields().addAll(topic.unknownTaggedFields());
                out.topicData().add(copy);
            }
        }
        return out;
    }

    static String utf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** An endpoint's fields, for {@link dev.weft.protocol.skim.SkimAsserts}. */
    static TestRewriter.Expected fields(ProduceResponseData.NodeEndpoint e) {
        return new TestRewriter.Expected(e.nodeId(), e.host(), e.port(), e.rack());
    }

    static ProduceResponseData.NodeEndpoint endpoint(TestRewriter.Expected x) {
        return new ProduceResponseData.NodeEndpoint().setNodeId(x.nodeId()).setHost(x.host()).setPort(x.port()).setRack(x.rack());
    }
}
