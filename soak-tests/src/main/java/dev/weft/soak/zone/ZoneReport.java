package dev.weft.soak.zone;

import dev.weft.soak.common.Reports;
import dev.weft.soak.common.WeftProcess;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * Per-phase medians over the rounds (each figure its own median: one slow or noisy round moves it less
 * than a mean would), the table, and the {@code weft-zone-traffic/v1} JSON (the load reports' header fields, its own schema).
 */
final class ZoneReport {

    static final String SCHEMA = "weft-zone-traffic/v1";

    private final ZoneTraffic.Options o;
    private final List<TopicPartitionInfo> placement;
    private final List<ZonePhase.Round> rounds;
    private final Map<String, Map<String, Object>> weftLogs = new LinkedHashMap<>();
    /** Phases that did not read exactly the records produced: the tool exits 1. */
    private final List<String> failures = new ArrayList<>();
    /** What may have skewed the figures: printed and reported, the exit code stays 0 (a measurement). */
    private final List<String> warnings = new ArrayList<>();

    ZoneReport(ZoneTraffic.Options o, List<TopicPartitionInfo> placement, List<ZoneTraffic.Phase> phases, List<ZonePhase.Round> rounds) {
        this.o = o;
        this.placement = placement;
        this.rounds = rounds;
        for (ZonePhase.Round r : rounds) {
            if (r.problem() != null) {
                failures.add("round " + r.round() + " " + r.phase() + ": " + r.problem());
            }
        }
        for (TopicPartitionInfo p : placement) {
            if (p.isr().stream().noneMatch(n -> n.id() == o.zoneBroker())) {
                warnings.add("partition " + p.partition() + " had no in-sync replica in zone " + o.zone() + " when the phases started");
            }
        }
        for (ZoneTraffic.Phase p : phases) {
            if (p.weft() != null) {
                Map<String, Object> logged = p.weft().problems();
                weftLogs.put(p.name(), logged);
                long lines = ((Number) logged.get("warnLines")).longValue() + ((Number) logged.get("errorLines")).longValue();
                if (lines > 0) {
                    warnings.add(p.name() + ": Weft logged " + logged.get("warnLines") + " WARN and " + logged.get("errorLines")
                            + " ERROR lines, first: " + ((List<?>) logged.get("firstLines")).getFirst());
                }
            }
        }
    }

    /** The phases in the order they ran. */
    private List<String> phases() {
        return rounds.stream().map(ZonePhase.Round::phase).distinct().toList();
    }

    private double median(String phase, ToDoubleFunction<ZonePhase.Round> figure) {
        double[] v = rounds.stream().filter(r -> r.phase().equals(phase)).mapToDouble(figure).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private long crossZoneBytes(ZonePhase.Round r) {
        return r.totalBytes() - r.inZoneBytes(o.zoneBroker());
    }

    List<String> failures() {
        return failures;
    }

    void print(PrintStream out) {
        out.printf("zone-traffic: %,d records of %,d B, %d partitions, RF 3, brokers 0/1/2 in zones a/b/c; consumers in zone %s"
                        + " (broker %d), Weft %s; medians of %d round(s), MB = 10^6 B served to clients%n",
                o.records(), o.recordBytes(), o.partitions(), o.zone(), o.zoneBroker(),
                o.weftRack() == null ? "without a rack" : "with server.rack " + o.weftRack(), o.rounds());
        String[] zones = ZoneTraffic.RACKS.toArray(String[]::new);
        out.printf("%-15s %12s %12s %12s %9s %14s%n", "phase", "broker 0 (" + zones[0] + ")", "broker 1 (" + zones[1] + ")",
                "broker 2 (" + zones[2] + ")", "in-zone", "cross-zone MB");
        for (String phase : phases()) {
            out.printf("%-15s %12.2f %12.2f %12.2f %9.4f %14.2f%n", phase,
                    median(phase, r -> r.bytesByBroker()[0]) / 1e6, median(phase, r -> r.bytesByBroker()[1]) / 1e6,
                    median(phase, r -> r.bytesByBroker()[2]) / 1e6, median(phase, r -> r.inZoneFraction(o.zoneBroker())),
                    median(phase, r -> crossZoneBytes(r)) / 1e6);
        }
        warnings.forEach(w -> out.println("zone-traffic: WARNING: " + w));
        failures.forEach(f -> out.println("zone-traffic: FAILED: " + f));
    }

    void write() throws IOException {
        Map<String, Object> report = Reports.header("zone-traffic",
                "Cross-zone fetch bytes, direct vs through Weft (" + (o.weftRack() == null ? "no rack" : "server.rack " + o.weftRack()) + ")",
                o.command());
        // Bytes by zone, not throughput: a schema of its own, so perf-reports' compare (which reads the
        // load tool's weft-report/v1 results) does not take it for a load run without results.
        report.put("schema", SCHEMA);
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("records", o.records());
        config.put("recordBytes", o.recordBytes());
        config.put("partitions", o.partitions());
        config.put("replicationFactor", ZoneTraffic.RACKS.size());
        config.put("rounds", o.rounds());
        config.put("brokerRacks", ZoneTraffic.RACKS);
        config.put("consumerZone", o.zone());
        config.put("zoneBroker", o.zoneBroker());
        config.put("weftRack", o.weftRack() == null ? "none" : o.weftRack());
        config.put("weftJvmOptions", String.join(" ", WeftProcess.launcherJvmOptions(o.weftJvmOpts())));
        config.put("consumer", "kafka-clients, a fresh group per phase and round, no client.rack, auto.offset.reset=earliest");
        config.put("bytesServed", "each broker's socket-server outgoing-byte-total on its client listener (replication has its own),"
                + " before the consumer starts and after it has left its group");
        config.put("placement", placement.stream().map(p -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("partition", p.partition());
            m.put("leader", p.leader().id());
            m.put("replicas", p.replicas().stream().map(Node::id).toList());
            m.put("isr", p.isr().stream().map(Node::id).toList());
            return m;
        }).toList());
        report.put("config", config);
        // results holds the throughput/latency figures of load reports; this tool measures bytes (below)
        report.put("results", List.of());
        List<Object> phases = new ArrayList<>();
        for (String phase : phases()) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("phase", phase);
            Map<String, Object> median = new LinkedHashMap<>();
            Map<String, Object> byBroker = new LinkedHashMap<>();
            for (int b = 0; b < ZoneTraffic.RACKS.size(); b++) {
                int broker = b;
                byBroker.put(Integer.toString(b), median(phase, r -> r.bytesByBroker()[broker]));
            }
            median.put("bytesServedByBroker", byBroker);
            median.put("inZoneFraction", median(phase, r -> r.inZoneFraction(o.zoneBroker())));
            median.put("crossZoneBytes", median(phase, r -> crossZoneBytes(r)));
            median.put("totalBytes", median(phase, r -> r.totalBytes()));
            median.put("seconds", median(phase, ZonePhase.Round::seconds));
            p.put("median", median);
            p.put("rounds", rounds.stream().filter(r -> r.phase().equals(phase)).map(this::round).toList());
            phases.add(p);
        }
        report.put("phases", phases);
        report.put("weftLogProblems", weftLogs);
        report.put("warnings", warnings);
        report.put("failures", failures);
        Reports.write(o.out(), report);
    }

    private Map<String, Object> round(ZonePhase.Round r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("round", r.round());
        Map<String, Object> byBroker = new LinkedHashMap<>();
        for (int b = 0; b < r.bytesByBroker().length; b++) {
            byBroker.put(Integer.toString(b), r.bytesByBroker()[b]);
        }
        m.put("bytesServedByBroker", byBroker);
        m.put("inZoneFraction", r.inZoneFraction(o.zoneBroker()));
        m.put("crossZoneBytes", crossZoneBytes(r));
        m.put("totalBytes", r.totalBytes());
        m.put("recordsRead", r.recordsRead());
        m.put("distinctRecords", r.distinctRecords());
        m.put("seconds", r.seconds());
        if (r.weft() != null) {
            // Weft's own view, next to the brokers': weft_upstream_requests_total{api="Fetch"} and
            // weft_upstream_fetch_bytes_total by zone over the phase
            m.put("weftFetchRequestsByBroker", r.weft().fetchRequestsByBroker());
            m.put("weftFetchBytesByZone", r.weft().fetchBytesByZone());
        }
        m.put("problem", r.problem());
        return m;
    }
}
