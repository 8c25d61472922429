package dev.weft.routing.topology;

import static dev.weft.routing.topology.ReplicaSnapshots.broker;
import static dev.weft.routing.topology.ReplicaSnapshots.leadership;
import static dev.weft.routing.topology.ReplicaSnapshots.metadata;
import static dev.weft.routing.topology.ReplicaSnapshots.partition;
import static dev.weft.routing.topology.ReplicaSnapshots.racked;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.junit.jupiter.api.Test;

/**
 * Rack-aware fetch's corrections to the topology cache: a follower that served a read badly leaves the
 * partition's ISR ({@link PartitionLeadership#outOfSync}), an unreachable one leaves every ISR
 * ({@link PartitionLeadership#replicaUnreachable}), until a Metadata answer lists it in sync again; and
 * the racks of brokers ({@link ClusterTopology#rack}, {@link ClusterTopology#inRack}).
 */
class ReplicaDemotionTest {

    private static final Uuid ORDERS = new Uuid(0x0A, 1);
    private static final Uuid CLICKS = new Uuid(0x0B, 2);

    /** orders p0: leader 0, ISR {0, 1, 2}; p1: leader 1, ISR {1, 0, 2}. */
    private static final MetadataResponseTopic ORDERS_IN_SYNC = ReplicaSnapshots.topic("orders", ORDERS,
            partition(0, 0, 0, 1, 2), partition(1, 1, 1, 0, 2));
    /** clicks p0: leader 2, ISR {2, 1, 0}. */
    private static final MetadataResponseTopic CLICKS_IN_SYNC = ReplicaSnapshots.topic("clicks", CLICKS, partition(0, 2, 2, 1, 0));

    private static PartitionLeadership inSync() {
        return leadership(ORDERS_IN_SYNC, CLICKS_IN_SYNC);
    }

    private static PartitionLeadership outOfSyncById(PartitionLeadership s, Uuid topic, int partition, int nodeId) {
        return s.outOfSync(topic.getMostSignificantBits(), topic.getLeastSignificantBits(), partition, nodeId);
    }

    private static void assertIsr(PartitionLeadership s, String topic, int partition, int... isr) {
        assertArrayEquals(isr, s.topic(topic).isr(partition), topic + "-" + partition + " ISR in " + s);
    }

    @Test
    void aReplicaOutOfSyncByNameLeavesThatPartitionsIsrOnly() {
        PartitionLeadership before = inSync();
        PartitionLeadership after = before.outOfSync("orders", 0, 1);
        assertIsr(after, "orders", 0, 0, 2);
        assertFalse(after.topic("orders").isInSync(0, 1));
        assertIsr(after, "orders", 1, 1, 0, 2);
        assertArrayEquals(new int[] {0, 1, 2}, after.topic("orders").replicas(0), "still a replica, only not in sync");
        assertEquals(0, after.topic("orders").leader(0));
        assertEquals(ReplicaSnapshots.EPOCH, after.topic("orders").leaderEpoch(0));
        assertSame(before.topic("clicks"), after.topic("clicks"), "other topics are shared");
        assertIsr(before, "orders", 0, 0, 1, 2);
    }

    @Test
    void aReplicaOutOfSyncByIdLeavesThatPartitionsIsrOnly() {
        PartitionLeadership after = outOfSyncById(inSync(), ORDERS, 0, 2);
        assertIsr(after, "orders", 0, 0, 1);
        assertSame(after.topic("orders"), after.topic(ORDERS), "the name and the id find the same demoted topic");
        assertIsr(after, "orders", 1, 1, 0, 2);
    }

    @Test
    void theLeaderIsNeverTakenOut() {
        PartitionLeadership s = inSync();
        assertSame(s, s.outOfSync("orders", 0, 0));
        assertSame(s, outOfSyncById(s, ORDERS, 1, 1));
        PartitionLeadership unreachable = s.replicaUnreachable(1);
        assertEquals(1, unreachable.topic("orders").leader(1));
        assertTrue(unreachable.topic("orders").isInSync(1, 1), "broker 1 leads orders p1: its ISR keeps it");
    }

    @Test
    void nothingToTakeOutReturnsTheSameSnapshot() {
        PartitionLeadership s = inSync().outOfSync("orders", 0, 1);
        assertSame(s, s.outOfSync("orders", 0, 1), "already out");
        assertSame(s, s.outOfSync("orders", 0, 7), "not a replica");
        assertSame(s, s.outOfSync("orders", 9, 1), "no such partition");
        assertSame(s, s.outOfSync("orders", -1, 1), "no such partition");
        assertSame(s, s.outOfSync("ghost", 0, 1), "unknown topic");
        assertSame(s, outOfSyncById(s, new Uuid(0x0D, 4), 0, 1), "unknown topic id");
        assertSame(s, s.replicaUnreachable(7), "follows nothing");
        PartitionLeadership empty = PartitionLeadership.empty();
        assertSame(empty, empty.replicaUnreachable(1));
        assertSame(empty, empty.outOfSync("orders", 0, 1));
    }

    @Test
    void anUnreachableReplicaLeavesEveryIsrItFollowsIn() {
        PartitionLeadership after = inSync().replicaUnreachable(1);
        assertIsr(after, "orders", 0, 0, 2);
        assertIsr(after, "orders", 1, 1, 0, 2);
        assertIsr(after, "clicks", 0, 2, 0);
        assertSame(after, after.replicaUnreachable(1), "nothing left to take out");
    }

    @Test
    void aMetadataAnswerListingTheReplicaInSyncRestoresIt() {
        PartitionLeadership demoted = outOfSyncById(inSync().outOfSync("orders", 0, 1), CLICKS, 0, 1);
        PartitionLeadership unrelated = demoted.merge(metadata(ReplicaSnapshots.topic("other", new Uuid(0x0E, 5),
                partition(0, 0, 0))));
        assertIsr(unrelated, "orders", 0, 0, 2);
        assertIsr(unrelated, "clicks", 0, 2, 0);
        PartitionLeadership stillOut = unrelated.merge(metadata(ReplicaSnapshots.topic("orders", ORDERS, partition(0, 0, 0, 2))));
        assertSame(unrelated, stillOut, "the answer agrees the replica is out: nothing changes");
        PartitionLeadership restored = stillOut.merge(metadata(ORDERS_IN_SYNC, CLICKS_IN_SYNC));
        assertIsr(restored, "orders", 0, 0, 1, 2);
        assertIsr(restored, "clicks", 0, 2, 1, 0);
        assertTrue(restored.topic(ORDERS).isInSync(0, 1));
    }

    @Test
    void aMetadataAnswerRestoresAnUnreachableReplica() {
        PartitionLeadership restored = inSync().replicaUnreachable(1).merge(metadata(ORDERS_IN_SYNC, CLICKS_IN_SYNC));
        assertIsr(restored, "orders", 0, 0, 1, 2);
        assertIsr(restored, "clicks", 0, 2, 1, 0);
    }

    @Test
    void everyDemotionGrowsTheVersion() {
        PartitionLeadership s = inSync();
        PartitionLeadership byName = s.outOfSync("orders", 0, 1);
        PartitionLeadership byId = outOfSyncById(byName, CLICKS, 0, 0);
        PartitionLeadership unreachable = byId.replicaUnreachable(2);
        PartitionLeadership restored = unreachable.merge(metadata(ORDERS_IN_SYNC, CLICKS_IN_SYNC));
        assertEquals(List.of(s.version() + 1, s.version() + 2, s.version() + 3, s.version() + 4),
                List.of(byName.version(), byId.version(), unreachable.version(), restored.version()));
    }

    @Test
    void theHolderPublishesDemotions() {
        TopologyHolder holder = new TopologyHolder(ReplicaSnapshots.CLUSTER);
        holder.offerPartitions(metadata(ORDERS_IN_SYNC, CLICKS_IN_SYNC));
        PartitionLeadership byName = holder.outOfSync("orders", 0, 1);
        assertSame(byName, holder.partitions());
        assertIsr(byName, "orders", 0, 0, 2);
        PartitionLeadership byId = holder.outOfSync(CLICKS.getMostSignificantBits(), CLICKS.getLeastSignificantBits(), 0, 1);
        assertSame(byId, holder.partitions());
        assertIsr(byId, "clicks", 0, 2, 0);
        PartitionLeadership unreachable = holder.replicaUnreachable(2);
        assertSame(unreachable, holder.partitions());
        assertIsr(unreachable, "orders", 0, 0);
        assertSame(unreachable, holder.replicaUnreachable(2), "nothing new: nothing published");
        assertSame(unreachable, holder.outOfSync("orders", 0, 0), "the leader stays");
    }

    @Test
    void racksOfKnownUnknownAndRacklessBrokers() {
        ClusterTopology brokers = racked().withBrokers(ReplicaSnapshots.CLUSTER,
                List.of(broker(2, "c"), broker(0, "a"), broker(5, null), broker(1, "b")));
        assertEquals("a", brokers.rack(0));
        assertEquals("b", brokers.rack(1));
        assertEquals("c", brokers.rack(2), "listed out of order: found all the same");
        assertTrue(brokers.inRack(1, "b"));
        assertFalse(brokers.inRack(1, "a"));
        assertFalse(brokers.inRack(1, null));
        assertNull(brokers.rack(5), "no broker.rack");
        assertFalse(brokers.inRack(5, null), "a rack-less broker is in no rack, not in the null one");
        assertFalse(brokers.inRack(5, "b"));
        for (int unknown : new int[] {3, 4, 6, -1, Integer.MAX_VALUE}) {
            assertNull(brokers.rack(unknown), "broker " + unknown);
            assertFalse(brokers.inRack(unknown, "b"), "broker " + unknown);
        }
        assertNull(ClusterTopology.empty().rack(0));
        assertFalse(ClusterTopology.empty().inRack(0, "a"));
    }

    @Test
    void aNewBrokerListReplacesTheRacks() {
        ClusterTopology before = racked();
        ClusterTopology after = before.withBrokers(ReplicaSnapshots.CLUSTER, List.of(broker(0, "b"), broker(1, "b")));
        assertEquals("b", after.rack(0));
        assertNull(after.rack(2), "broker 2 is gone");
        assertEquals("a", before.rack(0), "the older snapshot is unchanged");
    }
}
