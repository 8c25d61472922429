package dev.weft.soak.zone;

import dev.weft.soak.common.Payload;
import dev.weft.soak.common.WeftProcess;
import dev.weft.testkit.KafkaCluster;
import java.io.IOException;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.LongDeserializer;

/**
 * One measured read of the whole topic: a consumer in a fresh group (no {@code client.rack}) reads every
 * record through one phase's bootstrap, and each broker's count of bytes served to clients is taken
 * before the consumer starts and after it has left its group, so its group traffic counts too.
 */
final class ZonePhase {

    /** Give up on a phase after this long without a record. */
    private static final Duration STALL = Duration.ofSeconds(60);

    private ZonePhase() {
    }

    /**
     * One phase of one round. {@code bytesByBroker[i]}: what broker {@code i} served on the client listener
     * during the phase; {@code weft}: Weft's own counts over the phase (null for direct), to check the
     * brokers' figures against: the Fetch requests it sent to each broker and its answer bytes by zone;
     * {@code problem}: null when exactly the records produced were read.
     */
    record Round(String phase, int round, long[] bytesByBroker, long recordsRead, long distinctRecords, double seconds,
                 WeftCounts weft, String problem) {

        long totalBytes() {
            long t = 0;
            for (long b : bytesByBroker) {
                t += b;
            }
            return t;
        }

        long inZoneBytes(int zoneBroker) {
            return bytesByBroker[zoneBroker];
        }

        double inZoneFraction(int zoneBroker) {
            return totalBytes() == 0 ? 0 : (double) inZoneBytes(zoneBroker) / totalBytes();
        }
    }

    static Round run(KafkaCluster cluster, ZoneTraffic.Phase phase, int round, ZoneTraffic.Options o) {
        Map<String, Object> c = cluster.consumerConfig("zone-" + phase.name() + "-" + round + "-" + System.nanoTime());
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, phase.bootstrap());
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, "zone-" + phase.name());
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        Tally tally = new Tally(o.records(), o.recordBytes());
        long[] before = bytesServed(cluster);
        WeftCounts weftBefore = weftCounts(phase.weft());
        long t0 = System.nanoTime();
        try (KafkaConsumer<Long, byte[]> consumer = new KafkaConsumer<>(c)) {
            consumer.subscribe(List.of(ZoneTraffic.TOPIC));
            long lastRecord = t0;
            while (tally.distinct() < o.records() && System.nanoTime() - lastRecord < STALL.toNanos()) {
                var records = consumer.poll(Duration.ofMillis(500));
                if (!records.isEmpty()) {
                    lastRecord = System.nanoTime();
                }
                for (ConsumerRecord<Long, byte[]> r : records) {
                    tally.add(r.key(), r.value());
                }
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        long[] after = bytesServed(cluster);
        WeftCounts weft = phase.weft() == null ? null : weftCounts(phase.weft()).since(weftBefore);
        long[] served = new long[after.length];
        for (int i = 0; i < after.length; i++) {
            served[i] = after[i] - before[i];
        }
        String problem = tally.problem();
        System.err.printf("zone-traffic:   %s read %,d records in %.1f s; bytes served by broker 0/1/2: %,d / %,d / %,d%s%n",
                phase.name(), tally.count, seconds, served[0], served[1], served[2],
                (weft == null ? "" : "; Weft's Fetch requests by broker " + weft.fetchRequestsByBroker()
                        + ", its Fetch answer bytes by zone " + weft.fetchBytesByZone())
                        + (problem == null ? "" : "; " + problem));
        return new Round(phase.name(), round, served, tally.count, tally.distinct(), seconds, weft, problem);
    }

    private static long[] bytesServed(KafkaCluster cluster) {
        long[] b = new long[ZoneTraffic.RACKS.size()];
        for (int id = 0; id < b.length; id++) {
            b[id] = cluster.bytesSent(id, ZoneTraffic.CLIENT_LISTENER);
        }
        return b;
    }

    /** Weft's Fetch requests to each upstream broker and the Fetch answer bytes it counted per zone (in / cross / unknown). */
    private static WeftCounts weftCounts(WeftProcess weft) {
        if (weft == null) {
            return new WeftCounts(Map.of(), Map.of());
        }
        Map<String, Long> fetches = new TreeMap<>();
        Map<String, Long> bytes = new TreeMap<>();
        try {
            for (WeftProcess.Sample s : weft.metrics("weft_upstream_requests_total")) {
                if ("Fetch".equals(s.labels().get("api"))) {
                    fetches.merge(s.labels().getOrDefault("broker", "?"), (long) s.value(), Long::sum);
                }
            }
            for (WeftProcess.Sample s : weft.metrics("weft_upstream_fetch_bytes_total")) {
                bytes.merge(s.labels().getOrDefault("zone", "?"), (long) s.value(), Long::sum);
            }
        } catch (IOException e) {
            System.err.println("zone-traffic: Weft's /metrics: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new WeftCounts(fetches, bytes);
    }

    /** Two scrapes of Weft's counters; {@link #since} is what happened between them. */
    record WeftCounts(Map<String, Long> fetchRequestsByBroker, Map<String, Long> fetchBytesByZone) {

        WeftCounts since(WeftCounts before) {
            return new WeftCounts(minus(fetchRequestsByBroker, before.fetchRequestsByBroker),
                    minus(fetchBytesByZone, before.fetchBytesByZone));
        }

        private static Map<String, Long> minus(Map<String, Long> after, Map<String, Long> before) {
            Map<String, Long> d = new TreeMap<>();
            after.forEach((k, n) -> {
                long v = n - before.getOrDefault(k, 0L);
                if (v != 0) {
                    d.put(k, v);
                }
            });
            return d;
        }
    }

    /**
     * Which sequence numbers were read, and how often: a set of them catches a loss hidden by a duplicate,
     * which a count or a sum alone would not.
     */
    private static final class Tally {
        private final int expected;
        private final int recordBytes;
        private final BitSet seen;
        long count;
        long malformed;

        Tally(int expected, int recordBytes) {
            this.expected = expected;
            this.recordBytes = recordBytes;
            this.seen = new BitSet(expected);
        }

        void add(Long key, byte[] value) {
            count++;
            if (key == null || key < 0 || key >= expected || value == null || value.length != recordBytes
                    || Payload.sequence(value) != key) {
                malformed++;
                return;
            }
            seen.set((int) (long) key);
        }

        int distinct() {
            return seen.cardinality();
        }

        String problem() {
            int distinct = distinct();
            if (count == expected && distinct == expected && malformed == 0) {
                return null;
            }
            return String.format("read %,d records (%,d distinct, %,d malformed) of the %,d produced", count, distinct, malformed, expected);
        }
    }
}
