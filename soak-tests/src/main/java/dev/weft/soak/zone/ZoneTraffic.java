package dev.weft.soak.zone;

import dev.weft.soak.common.Args;
import dev.weft.soak.common.Payload;
import dev.weft.soak.common.WeftProcess;
import dev.weft.testkit.KafkaCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.LongSerializer;

/**
 * Cross-zone fetch bytes of one workload read directly and through Weft, in one run (issue #11,
 * rack-aware fetch routing): the fraction of fetch bytes that stayed in the consumer's zone.
 *
 * <p>An in-JVM 3-broker cluster (racks a, b, c), because the brokers' own byte counters
 * ({@link KafkaCluster#bytesSent}) are read from their metrics in this JVM. Clients and replication use
 * separate listeners, so the counters hold only what the brokers served to clients. The consumers
 * stand in zone {@code --weft-rack} (b by default, broker 1); none sets {@code client.rack}, so a direct
 * consumer reads from the leaders and only Weft can keep its fetches in zone.
 */
public final class ZoneTraffic {

    static final String TOPIC = "zone";
    static final String CLIENT_LISTENER = "CLIENT";
    static final List<String> RACKS = List.of("a", "b", "c");
    /** The consumers' zone when Weft is told none: the in-zone share is still measured against it. */
    static final String DEFAULT_ZONE = "b";
    private static final Set<String> FLAGS = Set.of("collapsed", "verbose");
    private static final Set<String> OPTIONS = Set.of("partitions", "records", "record-bytes", "rounds", "weft-rack",
            "collapsed", "out", "weft-jvm-opts", "verbose");

    private ZoneTraffic() {
    }

    /** Parsed options; {@code weftRack} null for {@code --weft-rack none} (no {@code rack} key in Weft's config). */
    record Options(int partitions, int records, int recordBytes, int rounds, String weftRack, boolean collapsed, Path out,
                   String weftJvmOpts, boolean verbose, String command) {

        static Options parse(String[] argv) {
            Args a = new Args(argv, FLAGS);
            a.requireOnly(OPTIONS);
            String rack = a.get("weft-rack", DEFAULT_ZONE);
            if (!rack.equals("none") && !RACKS.contains(rack)) {
                throw new IllegalArgumentException("--weft-rack " + rack + ": expected one of the brokers' racks " + RACKS + " or none");
            }
            Options o = new Options(a.integer("partitions", 12), a.integer("records", 200_000), a.integer("record-bytes", 1024),
                    a.integer("rounds", 3), rack.equals("none") ? null : rack, a.flag("collapsed"),
                    Path.of(a.get("out", "perf-reports/results/zone-traffic-" + LocalDate.now() + ".json")),
                    a.get("weft-jvm-opts", ""), a.flag("verbose"), command(argv));
            if (o.partitions < 1 || o.records < 1 || o.rounds < 1 || o.recordBytes < Payload.HEADER) {
                throw new IllegalArgumentException("--partitions, --records and --rounds must be positive, --record-bytes at least "
                        + Payload.HEADER + " (the value carries the sequence number)");
            }
            o.checkWeftAccepts();
            return o;
        }

        String zone() {
            return weftRack == null ? DEFAULT_ZONE : weftRack;
        }

        int zoneBroker() {
            return RACKS.indexOf(zone());
        }

        String serverYaml() {
            return weftRack == null ? "" : "server:\n  rack: " + weftRack + "\n";
        }

        /**
         * Weft's own config reader on the {@code server:} section, before a cluster is started: a Weft that
         * does not know {@code server.rack} yet fails here in one line, not a minute later at its start.
         */
        private void checkWeftAccepts() {
            List<String> problems = WeftProcess.serverSectionProblems(serverYaml());
            if (!problems.isEmpty()) {
                throw new IllegalArgumentException("--weft-rack " + weftRack + ": Weft refuses its config: "
                        + String.join("; ", problems) + " (--weft-rack none runs Weft without the key)");
            }
        }

        private static String command(String[] argv) {
            return Stream.concat(Stream.of("soak-tests/zone-traffic.sh"), Arrays.stream(argv)
                    .map(s -> s.isEmpty() || s.matches(".*[\\s'\"$;&|*?].*") ? "'" + s.replace("'", "'\\''") + "'" : s))
                    .collect(Collectors.joining(" "));
        }
    }

    /** One way of reading the topic: where the consumer connects, and the Weft process behind it (null: direct). */
    record Phase(String name, String bootstrap, WeftProcess weft) {
    }

    public static void main(String[] argv) throws Exception {
        Options o;
        try {
            if (List.of(argv).contains("--help")) {
                throw new IllegalArgumentException("options:");
            }
            o = Options.parse(argv);
        } catch (IllegalArgumentException e) {
            System.err.println("zone-traffic: " + e.getMessage());
            System.err.println("usage: zone-traffic.sh [--partitions 12] [--records 200000] [--record-bytes 1024] [--rounds 3]"
                    + " [--weft-rack a|b|c|none (default b)] [--collapsed] [--out FILE] [--weft-jvm-opts 'OPTS'] [--verbose]");
            System.exit(2);
            return;
        }
        System.exit(run(o) ? 0 : 1);
    }

    /** True when every phase of every round read exactly the records produced. */
    static boolean run(Options o) throws Exception {
        // The brokers live in this JVM and die with it; the Weft processes would not.
        List<WeftProcess> wefts = new CopyOnWriteArrayList<>();
        Thread hook = new Thread(() -> wefts.forEach(WeftProcess::terminate), "zone-traffic-stop-weft");
        Runtime.getRuntime().addShutdownHook(hook);
        Path tmp = Files.createTempDirectory("weft-zone-");
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(RACKS.size()).rack(RACKS::get)
                .listener(CLIENT_LISTENER, SecurityProtocol.PLAINTEXT)
                .listener("REPLICATION", SecurityProtocol.PLAINTEXT)
                .interBrokerListener("REPLICATION")
                .build().start()) {
            cluster.createTopic(TOPIC, o.partitions(), RACKS.size());
            produce(cluster, o);
            List<TopicPartitionInfo> placement = placement(cluster, o);
            List<ZonePhase.Round> rounds = new ArrayList<>();
            try {
                List<Phase> phases = phases(cluster, o, tmp, wefts);
                for (int r = 1; r <= o.rounds(); r++) {
                    for (Phase p : phases) {
                        System.err.printf("zone-traffic: round %d/%d phase %s%n", r, o.rounds(), p.name());
                        rounds.add(ZonePhase.run(cluster, p, r, o));
                    }
                }
                ZoneReport report = new ZoneReport(o, placement, phases, rounds);
                report.print(System.out);
                report.write();
                System.out.println("zone-traffic: report written to " + o.out());
                return report.failures().isEmpty();
            } finally {
                // before the brokers stop, so that Weft drains against live upstreams
                WeftProcess.closeAll(wefts);
            }
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is already shutting down: the hook runs
            }
            deleteQuietly(tmp);
        }
    }

    private static List<Phase> phases(KafkaCluster cluster, Options o, Path tmp, List<WeftProcess> wefts) throws Exception {
        List<String> jvm = WeftProcess.launcherJvmOptions(o.weftJvmOpts());
        List<Phase> phases = new ArrayList<>();
        phases.add(new Phase("direct", cluster.bootstrapServers(), null));
        WeftProcess mirrored = new WeftProcess(cluster.bootstrapServers(), o.serverYaml(), RACKS.size() - 1,
                tmp.resolve("weft"), jvm, !o.verbose());
        wefts.add(mirrored);
        mirrored.start();
        phases.add(new Phase("weft", mirrored.bootstrap(), mirrored));
        if (o.collapsed()) {
            WeftProcess collapsed = WeftProcess.collapsed(cluster.bootstrapServers(), o.serverYaml(), tmp.resolve("collapsed"), jvm,
                    !o.verbose());
            wefts.add(collapsed);
            collapsed.start();
            phases.add(new Phase("weft-collapsed", collapsed.bootstrap(), collapsed));
        }
        for (Phase p : phases) {
            if (p.weft() != null) {
                System.err.printf("zone-traffic: %s = Weft pid %d at %s, %s%n", p.name(), p.weft().pid(), p.bootstrap(),
                        o.weftRack() == null ? "no rack in its config" : "server.rack " + o.weftRack());
            }
        }
        return phases;
    }

    /**
     * Record {@code i} goes to partition {@code i mod partitions} (an equal share each, so a leader-only read
     * takes exactly its brokers' share of the partitions), key {@code i}, and a value that carries {@code i}
     * again (a consumer can tell a record read whole from one that is not).
     */
    private static void produce(KafkaCluster cluster, Options o) throws Exception {
        Map<String, Object> c = cluster.producerConfig();
        c.put(ProducerConfig.ACKS_CONFIG, "all");
        c.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        c.put(ProducerConfig.BATCH_SIZE_CONFIG, 64 * 1024);
        c.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
        c.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, LongSerializer.class.getName());
        c.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        AtomicReference<Exception> failed = new AtomicReference<>();
        long t0 = System.nanoTime();
        try (KafkaProducer<Long, byte[]> producer = new KafkaProducer<>(c)) {
            for (long i = 0; i < o.records() && failed.get() == null; i++) {
                producer.send(new ProducerRecord<>(TOPIC, (int) (i % o.partitions()), i, Payload.create(o.recordBytes(), 0, i)),
                        (md, e) -> {
                            if (e != null) {
                                failed.compareAndSet(null, e);
                            }
                        });
            }
            producer.flush();
        }
        if (failed.get() != null) {
            throw new IllegalStateException("producing the topic failed: " + failed.get(), failed.get());
        }
        System.err.printf("zone-traffic: produced %,d records of %,d B to %d partitions in %.1f s%n", o.records(), o.recordBytes(),
                o.partitions(), (System.nanoTime() - t0) / 1e9);
    }

    /**
     * The topic's leaders and in-sync replicas, once every replica is in sync: a replica that is not cannot
     * serve a rack-aware Fetch, and would make Weft's in-zone share depend on when the phase ran.
     */
    private static List<TopicPartitionInfo> placement(KafkaCluster cluster, Options o) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<TopicPartitionInfo> parts;
        do {
            TopicDescription d = cluster.admin().describeTopics(List.of(TOPIC)).allTopicNames().get(10, TimeUnit.SECONDS).get(TOPIC);
            parts = d.partitions().stream().sorted(Comparator.comparingInt(TopicPartitionInfo::partition)).toList();
            if (parts.stream().allMatch(p -> p.isr().size() == RACKS.size())) {
                break;
            }
            Thread.sleep(500); // followers catching up after the produce
        } while (System.nanoTime() < deadline);
        StringBuilder leaders = new StringBuilder();
        int[] led = new int[RACKS.size()];
        for (TopicPartitionInfo p : parts) {
            led[p.leader().id()]++;
            leaders.append(" p").append(p.partition()).append("->").append(p.leader().id()).append('(').append(RACKS.get(p.leader().id())).append(')');
            if (p.isr().size() < RACKS.size()) {
                leaders.append("[isr ").append(p.isr().stream().map(Node::id).toList()).append(']');
            }
        }
        System.err.println("zone-traffic: partition leaders:" + leaders);
        System.err.printf("zone-traffic: partitions led by broker 0 (a) %d, 1 (b) %d, 2 (c) %d; consumers' zone %s (broker %d)%n",
                led[0], led[1], led[2], o.zone(), o.zoneBroker());
        return parts;
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind
        }
    }
}
