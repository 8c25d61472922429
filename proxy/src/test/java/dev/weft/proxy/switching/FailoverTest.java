package dev.weft.proxy.switching;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.SwitchedProxy;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.testkit.KafkaCluster;
import dev.weft.testkit.KafkaClusterConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Automatic failover: east's only broker (a JVM of its own) is SIGKILLed under an idempotent producer
 * (acks=all) writing through the switch; after {@code failover.afterMs} the switch moves to west by
 * itself, and the same producer — never restarted — goes on being acknowledged, by west, under a producer
 * id the fleet state (on a third cluster, which outlives east) agreed for it. The client-visible outage
 * is the longest gap between two acknowledgements.
 */
class FailoverTest {

    private static final String TOPIC = "orders";
    private static final Duration FAILOVER_AFTER = Duration.ofSeconds(3);

    @KafkaClusterConfig(forked = true)
    static KafkaCluster east;

    @KafkaClusterConfig
    static KafkaCluster west;

    @KafkaClusterConfig
    static KafkaCluster witness;

    @Test
    void theSwitchMovesToWestByItselfWhenEastDiesAndTheProducerGoesOn() throws Exception {
        east.createTopic(TOPIC, 2, 1);
        west.createTopic(TOPIC, 2, 1);
        try (WeftProxy proxy = SwitchedProxy.start(east.bootstrapServers(), west.bootstrapServers(),
                "  witness: { bootstrap: \"" + witness.bootstrapServers() + "\" }", """
                    state: { cluster: witness, leaseMs: 2000 }
                    cutover: { drainTimeoutMs: 1000 }
                    failover: { to: west, afterMs: %d }
                """.formatted(FAILOVER_AFTER.toMillis()))) {
            ConcurrentLinkedQueue<Long> ackNanos = new ConcurrentLinkedQueue<>();
            AtomicInteger acked = new AtomicInteger();
            AtomicInteger failed = new AtomicInteger();
            AtomicReference<Exception> firstFailure = new AtomicReference<>();
            AtomicBoolean producing = new AtomicBoolean(true);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, ProxyFixture.bootstrap(proxy), ProducerConfig.ACKS_CONFIG, "all",
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000,
                    ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000, ProducerConfig.METADATA_MAX_AGE_CONFIG, 5_000,
                    ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                    ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class))) {
                Thread writer = Thread.ofPlatform().name("failover-test-producer").start(() -> {
                    int i = 0;
                    while (producing.get()) {
                        producer.send(new ProducerRecord<>(TOPIC, "r-" + i++), (md, e) -> {
                            if (e == null) {
                                ackNanos.add(System.nanoTime());
                                acked.incrementAndGet();
                            } else {
                                failed.incrementAndGet();
                                firstFailure.compareAndSet(null, e);
                            }
                        });
                        try {
                            Thread.sleep(5);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                });
                Poll.until(Duration.ofSeconds(60), "300 records acknowledged by east", () -> acked.get() >= 300,
                        () -> acked.get() + " acknowledged");
                long killed = System.nanoTime();
                east.killBroker(east.brokerIds().getFirst());
                SwitchController alias = proxy.switches().get("alias");
                Poll.until(Duration.ofSeconds(60), "the switch to fail over to west", () -> alias.status().activeRoute().equals("west"),
                        () -> alias.status().toString());
                long movedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
                int ackedAtFailover = acked.get();
                Poll.until(Duration.ofSeconds(120), "300 more records acknowledged by west", () -> acked.get() >= ackedAtFailover + 300,
                        () -> acked.get() + " acknowledged, " + failed.get() + " failed: " + firstFailure.get());
                producing.set(false);
                writer.join(130_000);
                producer.flush();
                List<Long> times = new ArrayList<>(ackNanos);
                times.sort(Long::compare);
                long longestGap = 0;
                for (int i = 1; i < times.size(); i++) {
                    longestGap = Math.max(longestGap, times.get(i) - times.get(i - 1));
                }
                long outageMs = TimeUnit.NANOSECONDS.toMillis(longestGap);
                System.out.printf("[failover] east killed; switch on west after %d ms (failover.afterMs %d); longest gap between"
                        + " acknowledgements (client-visible outage) %d ms; %d acknowledged, %d failed; last cutover: %s%n",
                        movedAfterMs, FAILOVER_AFTER.toMillis(), outageMs, acked.get(), failed.get(), alias.status().last().message());
                assertEquals(0, failed.get(), "sends that failed: " + firstFailure.get());
                assertTrue(movedAfterMs >= FAILOVER_AFTER.toMillis(), "not before failover.afterMs: " + movedAfterMs);
                assertTrue(outageMs < 30_000, "outage " + outageMs + " ms");
                assertTrue(alias.status().last().switched(), alias.status().last().message());
            }
        }
    }
}
