package dev.weft.routing.topology;

import static dev.weft.routing.topology.PartitionLeadershipTest.response;
import static dev.weft.routing.topology.PartitionLeadershipTest.topic;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData;
import org.junit.jupiter.api.Test;

/** The holder publishes partition snapshots by compare-and-set; readers on other threads see whole ones. */
class TopologyHolderTest {

    private static final Uuid A = new Uuid(1, 1);
    private static final Uuid B = new Uuid(2, 2);
    private static final int PARTITIONS = 16;

    /** Every partition of topics a and b led by node {@code k} at epoch {@code k}: one response, one snapshot. */
    private static MetadataResponseData generation(int k) {
        int[] leaders = new int[PARTITIONS];
        Arrays.fill(leaders, k);
        return response(topic("a", A, k, leaders), topic("b", B, k, leaders));
    }

    @Test
    void offerPartitionsPublishesAndChangesNothingOfTheBrokers() {
        TopologyHolder holder = new TopologyHolder("us-east");
        List<ClusterTopology> told = new ArrayList<>();
        holder.addListener(told::add);
        holder.offer("cid", List.of(new BrokerEndpoint(1, "b1", 9092, "az1")));
        ClusterTopology brokers = holder.current();
        PartitionLeadership before = holder.partitions();
        PartitionLeadership after = holder.offerPartitions(generation(1));
        assertSame(after, holder.partitions());
        assertEquals(before.version() + 1, after.version());
        assertEquals(1, after.topic("a").leader(3));
        assertSame(brokers, holder.current(), "brokers are their own snapshot");
        assertEquals(1, told.size(), "broker listeners hear of broker changes only");
        assertSame(after, holder.offerPartitions(generation(1)), "nothing new: nothing published");
        assertEquals(TopicLeaders.UNKNOWN, holder.invalidate("a", 3).topic("a").leader(3));
        assertSame(holder.partitions(), holder.invalidate(A.getMostSignificantBits(), A.getLeastSignificantBits(), 3));
        assertEquals(9, holder.leaderMoved("a", 3, 9, 2).topic("a").leader(3));
        assertEquals(TopicLeaders.UNKNOWN,
                holder.invalidate(B.getMostSignificantBits(), B.getLeastSignificantBits(), 0).topic("b").leader(0));
        assertEquals(8, holder.leaderMoved(B.getMostSignificantBits(), B.getLeastSignificantBits(), 0, 8, 3)
                .topic(B).leader(0));
    }

    @Test
    void concurrentReadersSeeWholeSnapshots() throws InterruptedException {
        TopologyHolder holder = new TopologyHolder("us-east");
        int generations = 3_000;
        AtomicBoolean done = new AtomicBoolean();
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        AtomicInteger reads = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        Runnable reader = () -> {
            long lastVersion = -1;
            int lastGeneration = 0;
            await(start);
            while (!done.get() || lastGeneration < generations) {
                PartitionLeadership s = holder.partitions();
                if (s.version() < lastVersion) {
                    violations.add("version went back from " + lastVersion + " to " + s.version());
                }
                lastVersion = s.version();
                TopicLeaders a = s.topic("a");
                TopicLeaders b = s.topic(B);
                if (a == null || b == null) {
                    if (a != b) {
                        violations.add("one topic without the other at version " + s.version());
                    }
                    continue;
                }
                int k = a.leader(0);
                for (int p = 0; p < PARTITIONS; p++) {
                    if (a.leader(p) != k || a.leaderEpoch(p) != k || b.leader(p) != k || b.leaderEpoch(p) != k) {
                        violations.add("mixed snapshot at version " + s.version() + ": " + a + " " + b);
                        break;
                    }
                }
                if (k < lastGeneration) {
                    violations.add("generation went back from " + lastGeneration + " to " + k);
                }
                lastGeneration = k;
                reads.incrementAndGet();
            }
        };
        Thread writer = new Thread(() -> {
            await(start);
            for (int k = 1; k <= generations; k++) {
                holder.offerPartitions(generation(k));
            }
            done.set(true);
        }, "writer");
        List<Thread> threads = List.of(writer, new Thread(reader, "reader-1"), new Thread(reader, "reader-2"));
        threads.forEach(Thread::start);
        start.countDown();
        for (Thread t : threads) {
            t.join(60_000);
            assertFalse(t.isAlive(), t.getName() + " did not finish");
        }
        assertTrue(violations.isEmpty(), violations.stream().limit(5).toList().toString());
        assertTrue(reads.get() > 0);
        assertEquals(generations, holder.partitions().topic("a").leader(PARTITIONS - 1));
    }

    @Test
    void concurrentWritersLoseNothing() throws InterruptedException {
        TopologyHolder holder = new TopologyHolder("us-east");
        int perWriter = 300;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> writers = new ArrayList<>();
        for (String prefix : List.of("x", "y")) {
            writers.add(new Thread(() -> {
                await(start);
                for (int i = 0; i < perWriter; i++) {
                    holder.offerPartitions(response(topic(prefix + i, new Uuid(prefix.charAt(0), i + 1), 0, 1, 2)));
                    if (i > 0) {
                        holder.invalidate(prefix + (i - 1), 1);
                    }
                }
            }, "writer-" + prefix));
        }
        writers.forEach(Thread::start);
        start.countDown();
        for (Thread t : writers) {
            t.join(60_000);
            assertFalse(t.isAlive(), t.getName() + " did not finish");
        }
        PartitionLeadership s = holder.partitions();
        assertEquals(2 * perWriter, s.topicCount());
        for (String prefix : List.of("x", "y")) {
            for (int i = 0; i < perWriter; i++) {
                TopicLeaders t = s.topic(prefix + i);
                assertNotNull(t, prefix + i);
                assertSame(t, s.topic(new Uuid(prefix.charAt(0), i + 1)));
                assertEquals(1, t.leader(0));
                assertEquals(i < perWriter - 1 ? TopicLeaders.UNKNOWN : 2, t.leader(1), prefix + i);
            }
        }
        assertEquals(2 * (perWriter - 1), s.needingRefresh().size());
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
