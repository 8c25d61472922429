package dev.weft.proxy.switching;

import dev.weft.testkit.KafkaCluster;
import dev.weft.testkit.KafkaClusterConfig;
import dev.weft.testkit.mirror.MirrorMaker;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ReplicationCatchUp} against a real MirrorMaker 2 replicating east->west: it returns only once
 * west holds every record east had (plain, transactional and empty partitions), and names the
 * partitions behind when MM2 is dead. The kill case runs last.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplicationCatchUpTest {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicationCatchUpTest.class);
    private static final int PARTITIONS = 3;

    @KafkaClusterConfig
    static KafkaCluster east;

    @KafkaClusterConfig
    static KafkaCluster west;

    private static MirrorMaker mirror;

    @BeforeAll
    static void startMirrorMaker() {
        for (String topic : new String[] {"orders", "payments", "quiet"}) {
            east.createTopic(topic, PARTITIONS, 1);
        }
        mirror = MirrorMaker.builder()
            .source("east", east.bootstrapServers())
            .target("west", west.bootstrapServers())
            .topics("orders|payments|quiet")
            .build()
            .start();
    }

    @AfterAll
    static void stopMirrorMaker() {
        if (mirror != null) {
            mirror.close();
        }
    }

    private static ReplicationCatchUp catchUp() {
        return ReplicationCatchUp.between("east", east.clientConfig(), "west", west.clientConfig()).build();
    }

    @Test
    @Order(1)
    void returnsOnceWestHoldsEveryRecordOfTheBurstIncludingPartitionsEndingInATransactionMarker() throws Exception {
        MirrorTestRecords.produce(east, "orders", "burst", 600);
        MirrorTestRecords.produceInTransaction(east, "payments", "tx", 90);
        Map<TopicPartition, Long> eastOrders = MirrorTestRecords.endOffsets(east, "orders", PARTITIONS);
        Map<TopicPartition, Long> eastPayments = MirrorTestRecords.endOffsets(east, "payments", PARTITIONS);

        ReplicationCatchUp.Progress progress = catchUp().await(Set.of("orders", "payments", "quiet"), Duration.ofSeconds(60));

        assertTrue(progress.caughtUp(), progress.toString());
        assertEquals(3 * PARTITIONS, progress.partitions().size());
        // Read right after await returned: west must already have everything (the rule is sound).
        assertEquals(eastOrders, MirrorTestRecords.endOffsets(west, "orders", PARTITIONS), "orders on west");
        Map<TopicPartition, Long> westPayments = MirrorTestRecords.endOffsets(west, "payments", PARTITIONS);
        long copied = westPayments.values().stream().mapToLong(Long::longValue).sum();
        assertEquals(90, copied, "payments records on west (markers are not copied): " + westPayments);
        for (var entry : progress.partitions().entrySet()) {
            ReplicationCatchUp.PartitionProgress p = entry.getValue();
            switch (entry.getKey().topic()) {
                case "quiet" -> assertEquals(-1, p.lastRecordOffset(), p.describe());
                case "payments" -> {
                    assertEquals(eastPayments.get(entry.getKey()), p.sourceEndOffset(), p.describe());
                    if (p.sourceEndOffset() > 0) {
                        // The commit marker holds the last offset: the record before it is the goal.
                        assertEquals(p.sourceEndOffset() - 2, p.lastRecordOffset(), p.describe());
                    }
                }
                default -> assertEquals(p.sourceEndOffset() - 1, p.replicatedUpstreamOffset(), p.describe());
            }
        }
    }

    @Test
    @Order(2)
    void emptyTopicsNeedNothing() throws Exception {
        long started = System.nanoTime();
        ReplicationCatchUp.Progress progress = catchUp().await(Set.of("quiet"), Duration.ofSeconds(30));
        assertTrue(progress.caughtUp());
        assertEquals(PARTITIONS, progress.partitions().size());
        assertTrue(Duration.ofNanos(System.nanoTime() - started).compareTo(Duration.ofSeconds(10)) < 0);
    }

    @Test
    @Order(3)
    void aMissingTopicIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> catchUp().await(Set.of("no-such-topic"), Duration.ofSeconds(10)));
        assertTrue(e.getMessage().contains("east"), e.getMessage());
    }

    @Test
    @Order(4)
    void timesOutNamingEachPartitionBehindAndByHowMuchWhenMirrorMakerIsDead() throws Exception {
        catchUp().await(Set.of("orders"), Duration.ofSeconds(60));
        Map<TopicPartition, Long> before = MirrorTestRecords.endOffsets(east, "orders", PARTITIONS);
        mirror.kill();
        assertFalse(mirror.isAlive());
        MirrorTestRecords.produce(east, "orders", "after-kill", 90);
        Map<TopicPartition, Long> after = MirrorTestRecords.endOffsets(east, "orders", PARTITIONS);

        long started = System.nanoTime();
        MirrorLagException e = assertThrows(MirrorLagException.class,
            () -> catchUp().await(Set.of("orders"), Duration.ofSeconds(4)));
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        assertTrue(took.compareTo(Duration.ofSeconds(4)) >= 0 && took.compareTo(Duration.ofSeconds(15)) < 0, took.toString());

        String message = e.getMessage();
        LOG.info("Catch-up with MM2 dead: {}", message);
        assertTrue(message.startsWith("MirrorMaker 2 (east->west) has not caught up within PT4S"), message);
        long total = 0;
        for (TopicPartition tp : after.keySet()) {
            long grew = after.get(tp) - before.get(tp);
            total += grew;
            if (grew > 0) {
                assertTrue(message.contains(tp + " behind by " + grew + " offsets"), message);
                assertEquals(grew, e.behind().get(tp), message);
            } else {
                assertFalse(e.behind().containsKey(tp), message);
            }
        }
        assertEquals(90, total);
        assertEquals(90, e.behind().values().stream().mapToLong(Long::longValue).sum(), message);
    }
}
