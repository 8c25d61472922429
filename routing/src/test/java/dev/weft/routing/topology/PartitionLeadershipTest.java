package dev.weft.routing.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.junit.jupiter.api.Test;

/** Partition leadership learned from Metadata responses: merge, drop, invalidate, lookups. */
class PartitionLeadershipTest {

    static final Uuid ORDERS = new Uuid(0x1111L, 0x2222L);
    static final Uuid CLICKS = new Uuid(0x3333L, 0x4444L);

    /** A partition led by {@code leader} at {@code epoch}, replicas {leader, leader+1, leader+2}, ISR {leader, leader+1}. */
    static MetadataResponsePartition partition(int index, int leader, int epoch) {
        return new MetadataResponsePartition().setPartitionIndex(index).setLeaderId(leader).setLeaderEpoch(epoch)
                .setReplicaNodes(List.of(leader, leader + 1, leader + 2)).setIsrNodes(List.of(leader, leader + 1))
                .setOfflineReplicas(List.of(leader + 2));
    }

    /** A topic whose partition {@code p} is led by {@code leaders[p]}, all at {@code epoch}. */
    static MetadataResponseTopic topic(String name, Uuid id, int epoch, int... leaders) {
        List<MetadataResponsePartition> ps = new ArrayList<>();
        for (int p = 0; p < leaders.length; p++) {
            ps.add(partition(p, leaders[p], epoch));
        }
        return new MetadataResponseTopic().setName(name).setTopicId(id).setPartitions(ps);
    }

    static MetadataResponseData response(MetadataResponseTopic... topics) {
        MetadataResponseData r = new MetadataResponseData();
        for (MetadataResponseTopic t : topics) {
            r.topics().add(t);
        }
        return r;
    }

    static MetadataResponseTopic errorTopic(String name, Uuid id, Errors error) {
        return new MetadataResponseTopic().setName(name).setTopicId(id).setErrorCode(error.code()).setPartitions(List.of());
    }

    @Test
    void aResponseTeachesLeadersEpochsReplicasIsrAndOfflineReplicas() {
        PartitionLeadership s = PartitionLeadership.empty().merge(response(topic("orders", ORDERS, 7, 1, 2, 3)));
        TopicLeaders t = s.topic("orders");
        assertEquals("orders", t.name());
        assertEquals(ORDERS, t.topicId());
        assertEquals(0x1111L, t.topicIdMsb());
        assertEquals(0x2222L, t.topicIdLsb());
        assertEquals(3, t.partitionCount());
        assertEquals(2, t.leader(1));
        assertEquals(7, t.leaderEpoch(1));
        assertEquals(Errors.NONE.code(), t.error(1));
        assertArrayEquals(new int[] {2, 3, 4}, t.replicas(1));
        assertEquals(3, t.replicaCount(1));
        assertEquals(4, t.replica(1, 2));
        assertArrayEquals(new int[] {2, 3}, t.isr(1));
        assertEquals(2, t.isrCount(1));
        assertEquals(3, t.isr(1, 1));
        assertTrue(t.isInSync(1, 3));
        assertFalse(t.isInSync(1, 4));
        assertArrayEquals(new int[] {4}, t.offlineReplicas(1));
        assertFalse(t.needsRefresh());
        assertEquals(1, s.version());
        assertEquals(1, s.topicCount());
    }

    @Test
    void everyMetadataVersionTeachesWhatItCarries() {
        for (short v = ApiKeys.METADATA.oldestVersion(); v <= ApiKeys.METADATA.latestVersion(); v++) {
            MetadataResponseData wire = new MetadataResponseData(
                    MessageUtil.toByteBufferAccessor(response(topic("orders", ORDERS, 7, 1, 2)), v), v);
            PartitionLeadership s = PartitionLeadership.empty().merge(wire);
            TopicLeaders t = s.topic("orders");
            String at = "v" + v;
            assertEquals(2, t.leader(1), at);
            assertArrayEquals(new int[] {2, 3, 4}, t.replicas(1), at);
            assertArrayEquals(new int[] {2, 3}, t.isr(1), at);
            assertEquals(v >= 7 ? 7 : -1, t.leaderEpoch(1), at + ": epochs from v7");
            assertArrayEquals(v >= 5 ? new int[] {4} : new int[0], t.offlineReplicas(1), at + ": offline replicas from v5");
            assertEquals(v >= 10 ? ORDERS : Uuid.ZERO_UUID, t.topicId(), at + ": topic ids from v10");
            assertEquals(v >= 10 ? t : null, s.topic(ORDERS), at);
        }
    }

    @Test
    void aTopicIsFoundByNameAndByIdAsTheSameObject() {
        PartitionLeadership s = PartitionLeadership.empty().merge(response(topic("orders", ORDERS, 0, 1), topic("clicks", CLICKS, 0, 2)));
        assertSame(s.topic("orders"), s.topic(ORDERS.getMostSignificantBits(), ORDERS.getLeastSignificantBits()));
        assertSame(s.topic("clicks"), s.topic(CLICKS));
        assertNull(s.topic("nope"));
        assertNull(s.topic((String) null));
        assertNull(s.topic(Uuid.randomUuid()));
        assertNull(s.topic(0L, 0L), "the zero id names no topic");
        assertNull(s.topic((Uuid) null));
    }

    @Test
    void aResponseForSomeTopicsKeepsTheOthers() {
        PartitionLeadership s = PartitionLeadership.empty().merge(response(topic("orders", ORDERS, 0, 1, 2), topic("clicks", CLICKS, 0, 3)));
        PartitionLeadership next = s.merge(response(topic("clicks", CLICKS, 1, 4)));
        assertEquals(4, next.topic("clicks").leader(0));
        assertSame(s.topic("orders"), next.topic("orders"), "an unmentioned topic is kept, shared between snapshots");
        assertSame(next.topic("orders"), next.topic(ORDERS), "the id index still finds it");
        assertEquals(3, s.topic("clicks").leader(0), "the old snapshot never changes");
        assertEquals(s.version() + 1, next.version());
    }

    @Test
    void anUnknownTopicIsDroppedByNameOrById() {
        PartitionLeadership s = PartitionLeadership.empty().merge(response(topic("orders", ORDERS, 0, 1), topic("clicks", CLICKS, 0, 2)));
        PartitionLeadership byName = s.merge(response(errorTopic("orders", Uuid.ZERO_UUID, Errors.UNKNOWN_TOPIC_OR_PARTITION)));
        assertNull(byName.topic("orders"));
        assertNull(byName.topic(ORDERS), "gone from the id index too");
        assertSame(s.topic("clicks"), byName.topic("clicks"));
        assertSame(byName.topic("clicks"), byName.topic(CLICKS));
        // Metadata v12+ asked by id: the name is null in the answer
        PartitionLeadership byId = s.merge(response(errorTopic(null, CLICKS, Errors.UNKNOWN_TOPIC_ID)));
        assertNull(byId.topic("clicks"));
        assertNull(byId.topic(CLICKS));
        assertEquals(1, byId.topicCount());
        assertSame(s, s.merge(response(errorTopic("never-known", Uuid.ZERO_UUID, Errors.UNKNOWN_TOPIC_OR_PARTITION))),
                "dropping a topic not known changes nothing");
    }

    @Test
    void otherTopicErrorsKeepWhatIsKnown() {
        PartitionLeadership s = PartitionLeadership.empty().merge(response(topic("orders", ORDERS, 0, 1)));
        for (Errors e : List.of(Errors.TOPIC_AUTHORIZATION_FAILED, Errors.LEADER_NOT_AVAILABLE, Errors.INVALID_TOPIC_EXCEPTION)) {
            assertSame(s, s.merge(response(errorTopic("orders", ORDERS, e))), e.name());
        }
    }

    @Test
    void leaderlessPartitionsAreRecordedWithTheirError() {
        MetadataResponseTopic t = topic("orders", ORDERS, 4, 1, 2, 3, 4);
        t.partitions().get(0).setLeaderId(-1).setErrorCode(Errors.LEADER_NOT_AVAILABLE.code()).setIsrNodes(List.of());
        t.partitions().get(1).setErrorCode(Errors.LISTENER_NOT_FOUND.code()); // a leader id, but not reachable
        t.partitions().get(2).setErrorCode(Errors.REPLICA_NOT_AVAILABLE.code()); // leader fine, a replica is not
        TopicLeaders leaders = PartitionLeadership.empty().merge(response(t)).topic("orders");
        assertEquals(TopicLeaders.NO_LEADER, leaders.leader(0));
        assertEquals(Errors.LEADER_NOT_AVAILABLE.code(), leaders.error(0));
        assertEquals(4, leaders.leaderEpoch(0));
        assertEquals(TopicLeaders.NO_LEADER, leaders.leader(1));
        assertEquals(Errors.LISTENER_NOT_FOUND.code(), leaders.error(1));
        assertEquals(3, leaders.leader(2));
        assertEquals(Errors.REPLICA_NOT_AVAILABLE.code(), leaders.error(2));
        assertEquals(4, leaders.leader(3));
        assertTrue(leaders.needsRefresh(0));
        assertTrue(leaders.needsRefresh(1));
        assertFalse(leaders.needsRefresh(2));
        assertArrayEquals(new int[] {0, 1}, leaders.partitionsNeedingRefresh());
    }

    @Test
    void aPartitionOutsideTheKnownRangeReadsUnknown() {
        TopicLeaders t = PartitionLeadership.empty().merge(response(topic("orders", ORDERS, 0, 1, 2))).topic("orders");
        for (int p : new int[] {-1, 2, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
            assertEquals(TopicLeaders.UNKNOWN, t.leader(p));
            assertEquals(-1, t.leaderEpoch(p));
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), t.error(p));
            assertTrue(t.needsRefresh(p));
            assertEquals(0, t.replicaCount(p));
            assertEquals(0, t.isrCount(p));
            assertFalse(t.isInSync(p, 1));
            assertArrayEquals(new int[0], t.replicas(p));
        }
        assertFalse(t.needsRefresh(), "partitions past the end are not listed: only the topic's known partitions");
    }

    @Test
    void anOlderLeaderEpochIsIgnoredAndOneWithoutEpochsApplies() {
        PartitionLeadership s = PartitionLeadership.empty().merge(response(topic("orders", ORDERS, 5, 1, 2)));
        MetadataResponseTopic stale = topic("orders", ORDERS, 4, 3, 3);
        assertSame(s, s.merge(response(stale)), "a broker with older metadata does not move leaders back");
        MetadataResponseTopic mixed = topic("orders", ORDERS, 6, 3, 3);
        mixed.partitions().get(1).setLeaderEpoch(4);
        TopicLeaders t = s.merge(response(mixed)).topic("orders");
        assertEquals(3, t.leader(0));
        assertEquals(6, t.leaderEpoch(0));
        assertEquals(2, t.leader(1), "per partition: the older one is ignored");
        assertEquals(5, t.leaderEpoch(1));
        // Metadata below v7 carries no epoch (-1): it cannot be compared, so it is taken
        TopicLeaders noEpoch = s.merge(response(topic("orders", ORDERS, -1, 4, 4))).topic("orders");
        assertEquals(4, noEpoch.leader(0));
        assertEquals(-1, noEpoch.leaderEpoch(0));
    }

    @Test
    void partitionsTheResponseLeavesOutAreKeptAndNewOnesGrowTheTopic() {
        PartitionLeadership s = PartitionLeadership.empty().merge(response(topic("orders", ORDERS, 0, 1, 2)));
        MetadataResponseTopic partial = new MetadataResponseTopic().setName("orders").setTopicId(ORDERS)
                .setPartitions(List.of(partition(3, 9, 0)));
        TopicLeaders t = s.merge(response(partial)).topic("orders");
        assertEquals(4, t.partitionCount());
        assertEquals(1, t.leader(0));
        assertEquals(2, t.leader(1));
        assertEquals(TopicLeaders.UNKNOWN, t.leader(2), "a gap nobody described yet");
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), t.error(2));
        assertEquals(9, t.leader(3));
        assertArrayEquals(new int[] {2}, t.partitionsNeedingRefresh());
    }

    @Test
    void aTopicCreatedAgainUnderTheSameNameReplacesEverything() {
        PartitionLeadership s = PartitionLeadership.empty().merge(response(topic("orders", ORDERS, 9, 1, 2, 3)));
        Uuid recreated = new Uuid(0x5555L, 0x6666L);
        PartitionLeadership next = s.merge(response(topic("orders", recreated, 0, 4)));
        TopicLeaders t = next.topic("orders");
        assertEquals(recreated, t.topicId());
        assertEquals(1, t.partitionCount(), "nothing of the deleted topic carries over");
        assertEquals(4, t.leader(0));
        assertEquals(0, t.leaderEpoch(0), "epochs restart: not compared with the deleted topic's");
        assertNull(next.topic(ORDERS));
        assertSame(t, next.topic(recreated));
    }

    @Test
    void aTopicIdLearnedLaterIsIndexedAndAnAnswerWithoutIdsKeepsIt() {
        // Metadata v0-v9 carry no topic id
        PartitionLeadership v9 = PartitionLeadership.empty().merge(response(topic("orders", Uuid.ZERO_UUID, 1, 1)));
        assertFalse(v9.topic("orders").hasTopicId());
        assertNull(v9.topic(ORDERS));
        PartitionLeadership v10 = v9.merge(response(topic("orders", ORDERS, 1, 1)));
        assertTrue(v10.topic("orders").hasTopicId());
        assertSame(v10.topic("orders"), v10.topic(ORDERS));
        PartitionLeadership again = v10.merge(response(topic("orders", Uuid.ZERO_UUID, 2, 3)));
        assertEquals(ORDERS, again.topic("orders").topicId(), "an answer without ids is the same topic");
        assertSame(again.topic("orders"), again.topic(ORDERS));
        assertEquals(3, again.topic("orders").leader(0));
    }

    @Test
    void anUnchangedAnswerPublishesNothing() {
        PartitionLeadership s = PartitionLeadership.empty().merge(response(topic("orders", ORDERS, 3, 1, 2), topic("clicks", CLICKS, 3, 2)));
        assertSame(s, s.merge(response(topic("orders", ORDERS, 3, 1, 2), topic("clicks", CLICKS, 3, 2))));
        assertSame(s, s.merge(response()));
        PartitionLeadership next = s.merge(response(topic("orders", ORDERS, 4, 1, 2)));
        assertNotSame(s, next);
        assertSame(s.topic("clicks"), next.topic("clicks"));
    }

    @Test
    void aTopicListedTwiceOrDroppedAndAddedInOneAnswerEndsAsItsLastEntry() {
        PartitionLeadership s = PartitionLeadership.empty().merge(response(topic("orders", ORDERS, 0, 1)));
        PartitionLeadership twice = PartitionLeadership.empty().merge(response(topic("clicks", CLICKS, 0, 1),
                topic("clicks", CLICKS, 1, 2)));
        assertEquals(2, twice.topic("clicks").leader(0));
        assertEquals(1, twice.topicCount());
        PartitionLeadership readded = s.merge(response(errorTopic("orders", Uuid.ZERO_UUID, Errors.UNKNOWN_TOPIC_OR_PARTITION),
                topic("orders", ORDERS, 0, 5)));
        assertEquals(5, readded.topic("orders").leader(0));
        assertSame(readded.topic("orders"), readded.topic(ORDERS));
        PartitionLeadership addedThenDropped = s.merge(response(topic("clicks", CLICKS, 0, 1),
                errorTopic("clicks", Uuid.ZERO_UUID, Errors.UNKNOWN_TOPIC_OR_PARTITION)));
        assertNull(addedThenDropped.topic("clicks"));
        assertNull(addedThenDropped.topic(CLICKS));
    }

    @Test
    void invalidateMarksTheLeaderUnknownUntilTheNextAnswer() {
        PartitionLeadership s = PartitionLeadership.empty().merge(response(topic("orders", ORDERS, 5, 1, 2, 3), topic("clicks", CLICKS, 0, 1)));
        PartitionLeadership moved = s.invalidate("orders", 1);
        TopicLeaders t = moved.topic("orders");
        assertEquals(TopicLeaders.UNKNOWN, t.leader(1));
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), t.error(1));
        assertEquals(5, t.leaderEpoch(1), "the last epoch is kept: a newer answer must carry at least it");
        assertArrayEquals(new int[] {2, 3, 4}, t.replicas(1), "last known replicas stay for rack-aware reads");
        assertEquals(1, t.leader(0));
        assertEquals(2, s.topic("orders").leader(1), "the old snapshot never changes");
        assertEquals(List.of(t), moved.needingRefresh());
        assertArrayEquals(new int[] {1}, t.partitionsNeedingRefresh());
        assertSame(moved, moved.invalidate("orders", 1), "already unknown");
        assertSame(moved, moved.invalidate("orders", 7), "out of range: already reads unknown");
        assertSame(moved, moved.invalidate("nope", 0));
        PartitionLeadership byId = moved.invalidate(ORDERS.getMostSignificantBits(), ORDERS.getLeastSignificantBits(), 2);
        assertArrayEquals(new int[] {1, 2}, byId.topic("orders").partitionsNeedingRefresh());
        assertSame(byId.topic("orders"), byId.topic(ORDERS));
        assertSame(moved.topic("clicks"), byId.topic("clicks"));
        // the refresh answers with the same epoch (the new leader's view had not moved yet) or a newer one
        PartitionLeadership refreshed = byId.merge(response(topic("orders", ORDERS, 5, 1, 2, 3)));
        assertEquals(2, refreshed.topic("orders").leader(1));
        assertEquals(Errors.NONE.code(), refreshed.topic("orders").error(1));
        assertTrue(refreshed.needingRefresh().isEmpty());
    }

    @Test
    void aLeaderNamedByTheUpstreamIsTakenWhenItsEpochIsNewer() {
        PartitionLeadership s = PartitionLeadership.empty().merge(response(topic("orders", ORDERS, 5, 1, 2)));
        PartitionLeadership moved = s.leaderMoved("orders", 0, 7, 6);
        assertEquals(7, moved.topic("orders").leader(0));
        assertEquals(6, moved.topic("orders").leaderEpoch(0));
        assertSame(s, s.leaderMoved("orders", 0, 7, 4), "an older epoch is ignored");
        assertSame(s, s.leaderMoved("orders", 0, 7, 5), "the same epoch cannot name another leader");
        assertSame(s, s.leaderMoved("orders", 0, 1, 5), "nothing new");
        assertSame(s, s.leaderMoved("orders", 9, 7, 6), "a partition not known waits for Metadata");
        assertSame(s, s.leaderMoved("nope", 0, 7, 6));
        PartitionLeadership invalidated = s.invalidate("orders", 1);
        PartitionLeadership restored = invalidated.leaderMoved(ORDERS.getMostSignificantBits(), ORDERS.getLeastSignificantBits(), 1, 2, 5);
        assertEquals(2, restored.topic("orders").leader(1), "an unknown leader takes the same epoch");
        assertEquals(Errors.NONE.code(), restored.topic("orders").error(1));
        assertEquals(TopicLeaders.UNKNOWN, s.leaderMoved("orders", 0, -1, 9).topic("orders").leader(0),
                "no leader named: invalidated");
    }

    @Test
    void needingRefreshListsEveryTopicWithALeaderlessOrUnknownPartition() {
        MetadataResponseTopic clicks = topic("clicks", CLICKS, 0, 1, 2);
        clicks.partitions().get(1).setLeaderId(-1).setErrorCode(Errors.LEADER_NOT_AVAILABLE.code());
        PartitionLeadership s = PartitionLeadership.empty().merge(response(topic("orders", ORDERS, 0, 1, 2), clicks,
                topic("fine", Uuid.randomUuid(), 0, 3)));
        s = s.invalidate("orders", 0);
        assertEquals(List.of("orders", "clicks"), s.needingRefresh().stream().map(TopicLeaders::name).toList());
        assertArrayEquals(new int[] {0}, s.topic("orders").partitionsNeedingRefresh());
        assertArrayEquals(new int[] {1}, s.topic("clicks").partitionsNeedingRefresh());
    }

    @Test
    void lookupsAllocateNothing() {
        PartitionLeadership s = PartitionLeadership.empty().merge(response(topic("orders", ORDERS, 0, 1, 2, 3),
                topic("clicks", CLICKS, 0, 4, 5)));
        long msb = ORDERS.getMostSignificantBits();
        long lsb = ORDERS.getLeastSignificantBits();
        String name = "clicks";
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sum = lookups(s, name, msb, lsb, 10_000); // warm up
        long before = threads.getCurrentThreadAllocatedBytes();
        sum += lookups(s, name, msb, lsb, 100_000);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < 4096, "100k lookups allocated " + allocated + " bytes (sum " + sum + ")");
    }

    private static long lookups(PartitionLeadership s, String name, long msb, long lsb, int rounds) {
        long sum = 0;
        for (int i = 0; i < rounds; i++) {
            TopicLeaders byName = s.topic(name);
            TopicLeaders byId = s.topic(msb, lsb);
            int p = i & 3;
            sum += byName.leader(p) + byName.leaderEpoch(p) + byId.leader(p) + byId.replicaCount(p) + byId.error(p)
                    + (byId.isInSync(p, 2) ? 1 : 0) + byId.partitionCount();
        }
        return sum;
    }

    @Test
    void manyTopicsAreAllFoundByNameAndId() {
        MetadataResponseData r = new MetadataResponseData();
        List<Uuid> ids = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            Uuid id = new Uuid(i * 31L, i + 1); // clustered ids probe the open-addressing table
            ids.add(id);
            r.topics().add(topic("t" + i, id, i, i % 7));
        }
        PartitionLeadership s = PartitionLeadership.empty().merge(r);
        assertEquals(1000, s.topicCount());
        for (int i = 0; i < 1000; i++) {
            assertSame(s.topic("t" + i), s.topic(ids.get(i)), "t" + i);
            assertEquals(i % 7, s.topic(ids.get(i)).leader(0));
        }
        PartitionLeadership fewer = s.merge(response(errorTopic("t500", Uuid.ZERO_UUID, Errors.UNKNOWN_TOPIC_OR_PARTITION)));
        assertEquals(999, fewer.topicCount());
        for (int i = 0; i < 1000; i++) {
            assertSame(fewer.topic("t" + i), fewer.topic(ids.get(i)), "t" + i);
        }
        assertNull(fewer.topic("t500"));
    }
}
