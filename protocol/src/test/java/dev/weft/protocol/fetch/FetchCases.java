package dev.weft.protocol.fetch;

import dev.weft.protocol.skim.TestRecords;
import dev.weft.protocol.skim.TestRewriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchRequestData.ForgottenTopic;
import org.apache.kafka.common.message.FetchRequestData.ReplicaState;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.AbortedTransaction;
import org.apache.kafka.common.message.FetchResponseData.EpochEndOffset;
import org.apache.kafka.common.message.FetchResponseData.LeaderIdAndEpoch;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.message.FetchResponseData.SnapshotId;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/** Random Fetch requests and responses as kafka-clients' {@code *Data}, valid for each version. */
public final class FetchCases {

    static final short FIRST = FetchRequestSkim.OLDEST_VERSION;
    static final short LAST = FetchRequestSkim.LATEST_VERSION;

    private FetchCases() {
    }

    public static short[] versions() {
        short[] out = new short[LAST - FIRST + 1];
        for (int i = 0; i < out.length; i++) {
            out[i] = (short) (FIRST + i);
        }
        return out;
    }

    static boolean flexible(short version) {
        return version >= FetchRequestSkim.FIRST_FLEXIBLE_VERSION;
    }

    static List<RawTaggedField> unknownTags(Random random, short version) {
        List<RawTaggedField> tags = new ArrayList<>();
        if (flexible(version) && random.nextInt(5) == 0) {
            byte[] data = new byte[random.nextInt(6)];
            random.nextBytes(data);
            tags.add(new RawTaggedField(100 + random.nextInt(50), data));
        }
        return tags;
    }

    static String topicName(Random random, int i) {
        return switch (random.nextInt(3)) {
            case 0 -> "events";
            case 1 -> "ünïcode.tópic";
            default -> "y".repeat(1 + random.nextInt(120));
        } + "-" + i;
    }

    public static FetchRequestData request(Random random, short version) {
        FetchRequestData data = new FetchRequestData()
                .setMaxWaitMs(random.nextInt(1000))
                .setMinBytes(random.nextInt(1 << 20))
                .setMaxBytes(random.nextInt(Integer.MAX_VALUE))
                .setIsolationLevel((byte) random.nextInt(2));
        if (version < FetchRequestSkim.FIRST_REPLICA_STATE_VERSION) {
            data.setReplicaId(random.nextBoolean() ? -1 : random.nextInt(5));
        } else if (random.nextBoolean()) {
            data.setReplicaState(new ReplicaState().setReplicaId(random.nextInt(5)).setReplicaEpoch(random.nextInt(1000)));
        }
        if (version >= FetchRequestSkim.FIRST_SESSION_VERSION) {
            data.setSessionId(random.nextBoolean() ? 0 : random.nextInt(Integer.MAX_VALUE))
                    .setSessionEpoch(random.nextInt(100) - 1);
        }
        if (version >= FetchRequestSkim.FIRST_RACK_ID_VERSION) {
            data.setRackId(random.nextBoolean() ? "" : "use1-az" + random.nextInt(3));
        }
        if (flexible(version) && random.nextBoolean()) {
            data.setClusterId(random.nextBoolean() ? null : "cluster-" + random.nextInt(9));
        }
        data.unknownTaggedFields().addAll(unknownTags(random, version));
        int topics = random.nextInt(10) == 0 ? 20 + random.nextInt(20) : random.nextInt(6);
        boolean ids = version >= FetchRequestSkim.FIRST_TOPIC_ID_VERSION;
        for (int t = 0; t < topics; t++) {
            FetchTopic topic = ids ? new FetchTopic().setTopicId(Uuid.randomUuid()) : new FetchTopic().setTopic(topicName(random, t));
            topic.unknownTaggedFields().addAll(unknownTags(random, version));
            Set<Integer> seen = new HashSet<>();
            for (int p = random.nextInt(6); p > 0; p--) {
                int index = random.nextInt(100);
                if (!seen.add(index)) {
                    continue;
                }
                FetchPartition partition = new FetchPartition().setPartition(index)
                        .setFetchOffset(random.nextLong() >>> 3)
                        .setPartitionMaxBytes(random.nextInt(1 << 24));
                if (version >= FetchRequestSkim.FIRST_CURRENT_LEADER_EPOCH_VERSION) {
                    partition.setCurrentLeaderEpoch(random.nextInt(50) - 1);
                }
                if (flexible(version)) {
                    partition.setLastFetchedEpoch(random.nextInt(50) - 1);
                }
                if (version >= FetchRequestSkim.FIRST_LOG_START_OFFSET_VERSION) {
                    partition.setLogStartOffset(random.nextLong() >>> 4);
                }
                if (version >= 17 && random.nextBoolean()) {
                    partition.setReplicaDirectoryId(Uuid.randomUuid());
                }
                if (version >= 18 && random.nextBoolean()) {
                    partition.setHighWatermark(random.nextLong() >>> 5);
                }
                partition.unknownTaggedFields().addAll(unknownTags(random, version));
                topic.partitions().add(partition);
            }
            data.topics().add(topic);
        }
        if (version >= FetchRequestSkim.FIRST_SESSION_VERSION) {
            for (int f = random.nextInt(3); f > 0; f--) {
                ForgottenTopic forgotten = ids ? new ForgottenTopic().setTopicId(Uuid.randomUuid())
                        : new ForgottenTopic().setTopic(topicName(random, 100 + f));
                for (int p = random.nextInt(4); p > 0; p--) {
                    forgotten.partitions().add(random.nextInt(100));
                }
                forgotten.unknownTaggedFields().addAll(unknownTags(random, version));
                data.forgottenTopicsData().add(forgotten);
            }
        }
        return data;
    }

    static PartitionData partitionResult(Random random, short version, int index) {
        PartitionData p = new PartitionData().setPartitionIndex(index)
                .setErrorCode(random.nextInt(4) == 0 ? (short) random.nextInt(100) : 0)
                .setHighWatermark(random.nextLong() >>> 2)
                .setLastStableOffset(random.nextLong() >>> 2)
                .setRecords(random.nextInt(15) == 0 ? null : TestRecords.random(random));
        if (version >= FetchRequestSkim.FIRST_LOG_START_OFFSET_VERSION) {
            p.setLogStartOffset(random.nextLong() >>> 3);
        }
        if (random.nextInt(4) == 0) {
            p.setAbortedTransactions(null);
        } else {
            List<AbortedTransaction> aborted = new ArrayList<>();
            for (int k = random.nextInt(3); k > 0; k--) {
                AbortedTransaction a = new AbortedTransaction().setProducerId(random.nextLong() >>> 1)
                        .setFirstOffset(random.nextLong() >>> 1);
                a.unknownTaggedFields().addAll(unknownTags(random, version));
                aborted.add(a);
            }
            p.setAbortedTransactions(aborted);
        }
        if (version >= FetchResponseSkim.FIRST_PREFERRED_READ_REPLICA_VERSION) {
            p.setPreferredReadReplica(random.nextBoolean() ? -1 : random.nextInt(7));
        }
        if (flexible(version)) {
            if (random.nextInt(3) == 0) {
                p.setDivergingEpoch(new EpochEndOffset().setEpoch(random.nextInt(40)).setEndOffset(random.nextLong() >>> 1));
            }
            if (random.nextBoolean()) {
                p.setCurrentLeader(new LeaderIdAndEpoch().setLeaderId(random.nextInt(7)).setLeaderEpoch(random.nextInt(40)));
            }
            if (random.nextInt(3) == 0) {
                p.setSnapshotId(new SnapshotId().setEndOffset(random.nextLong() >>> 1).setEpoch(random.nextInt(40)));
            }
            p.unknownTaggedFields().addAll(unknownTags(random, version));
        }
        return p;
    }

    /** A response to {@code request} (every partition answered, in order). */
    public static FetchResponseData response(Random random, short version, FetchRequestData request) {
        FetchResponseData data = new FetchResponseData().setThrottleTimeMs(random.nextInt(3000));
        if (version >= FetchRequestSkim.FIRST_SESSION_VERSION) {
            data.setSessionId(random.nextBoolean() ? 0 : random.nextInt(1 << 30));
        }
        for (FetchTopic topic : request.topics()) {
            FetchResponseData.FetchableTopicResponse t = new FetchResponseData.FetchableTopicResponse()
                    .setTopic(topic.topic()).setTopicId(topic.topicId());
            for (FetchPartition p : topic.partitions()) {
                t.partitions().add(partitionResult(random, version, p.partition()));
            }
            data.responses().add(t);
        }
        addEndpoints(random, version, data, 0);
        return data;
    }

    static void addEndpoints(Random random, short version, FetchResponseData data, int route) {
        if (version >= FetchResponseSkim.FIRST_NODE_ENDPOINTS_VERSION) {
            for (int node = 0; node < 7; node++) {
                if (random.nextBoolean()) {
                    data.nodeEndpoints().add(new FetchResponseData.NodeEndpoint().setNodeId(node)
                            .setHost("b" + node + ".r" + route + ".upstream").setPort(9092 + node)
                            .setRack(random.nextBoolean() ? null : "az" + node));
                }
            }
        }
    }

    /** An endpoint's fields, for {@link dev.weft.protocol.skim.SkimAsserts}. */
    static TestRewriter.Expected fields(FetchResponseData.NodeEndpoint e) {
        return new TestRewriter.Expected(e.nodeId(), e.host(), e.port(), e.rack());
    }

    static FetchResponseData.NodeEndpoint endpoint(TestRewriter.Expected x) {
        return new FetchResponseData.NodeEndpoint().setNodeId(x.nodeId()).setHost(x.host()).setPort(x.port()).setRack(x.rack());
    }
}
