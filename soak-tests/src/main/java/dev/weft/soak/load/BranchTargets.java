package dev.weft.soak.load;

import dev.weft.soak.common.Payload;
import dev.weft.soak.common.Procs;
import dev.weft.soak.common.WeftProcess;
import dev.weft.testkit.KafkaCluster;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The load tool's branch targets (stream branching, issue #13): Weft over a {@code type: branch} router whose
 * primary route is the main cluster (the brokers of {@code direct} and {@code weft}) and whose one branch route
 * is the second forked cluster (the woven targets' second cluster), topic {@code load-<target>} copied to
 * {@code shadow.load-<target>}:
 *
 * <ul>
 *   <li>{@code branch-copy}: pure copies (Produce around the client's batches, no transform);</li>
 *   <li>{@code branch-redact}: the same plus {@code transforms: [ { redact: { value-fields: ["$.customer.email"],
 *       with: hash, salt: "load" } } ]} (the branch's writer thread, its own producer).</li>
 * </ul>
 *
 * Both send JSON values ({@link Payload#json}) of {@code --record-bytes}. A target {@code NAME!kill} or
 * {@code NAME!stop} is the same setup (a Weft process and topics of its own) whose slices SIGKILL (then
 * restart) or SIGSTOP (then SIGCONT) every broker of the branch cluster {@code --branch-fault-at} after the
 * slice's first send, for {@code --branch-fault-for}: faulted and healthy slices side by side in one
 * interleaved run.
 */
final class BranchTargets {

    static final String COPY = "branch-copy";
    static final String REDACT = "branch-redact";
    static final List<String> FAULTS = List.of("kill", "stop");
    static final String PREFIX = "shadow.";
    /** Route names: the primary (main cluster), the branch (second cluster); the metrics' {@code branch} label. */
    static final List<String> ROUTES = List.of("primary", "branch");
    static final String REDACT_STEP = "{ redact: { value-fields: [\"$.customer.email\"], with: hash, salt: \"load\" } }";

    private BranchTargets() {
    }

    /** A branch target: {@code base} = branch-copy or branch-redact, {@code fault} = null, kill or stop. */
    record Spec(String target, String base, String fault) {

        /** The spec of {@code target}, or null when it is not a branch target; one-line error for an unknown fault. */
        static Spec of(String target) {
            int bang = target.indexOf('!');
            String base = bang < 0 ? target : target.substring(0, bang);
            if (!base.equals(COPY) && !base.equals(REDACT)) {
                if (bang >= 0) {
                    throw new IllegalArgumentException("target '" + target + "': only " + COPY + " and " + REDACT + " take a !kill or !stop fault");
                }
                return null;
            }
            String fault = bang < 0 ? null : target.substring(bang + 1);
            if (fault != null && !FAULTS.contains(fault)) {
                throw new IllegalArgumentException("target '" + target + "': the branch fault after '!' is kill or stop");
            }
            return new Spec(target, base, fault);
        }

        boolean redact() {
            return base.equals(REDACT);
        }

        /** The primary topic clients use (and its real name on the main cluster): {@code load-branch-copy-kill}. */
        String topic() {
            return "load-" + target.replace('!', '-');
        }

        /** The copy's topic on the branch cluster. */
        String branchTopic() {
            return PREFIX + topic();
        }

        /** The branch route's keys (after name and target), indented 8. */
        String routeYaml() {
            return "        topics: { include: [\"" + topic() + "\"] }\n"
                    + "        naming: { prefix: \"" + PREFIX + "\" }\n"
                    + (redact() ? "        transforms: [ " + REDACT_STEP + " ]\n" : "");
        }

        String describe() {
            return "type: branch router: route " + ROUTES.get(0) + " = the main cluster (the primary), route " + ROUTES.get(1)
                    + " = the second cluster, topics { include: [" + topic() + "] }, naming { prefix: " + PREFIX + " }"
                    + (redact() ? ", transforms [ " + REDACT_STEP + " ]" : ", pure copies")
                    + "; JSON values; branch topic " + branchTopic() + " created directly on the second cluster before Weft started"
                    + (fault == null ? "" : "; every slice: " + (fault.equals("kill") ? "SIGKILL of the branch cluster's broker(s), restarted after the pause"
                            : "SIGSTOP of the branch cluster's broker(s), SIGCONT after the pause"));
        }
    }

    static Spec spec(String target) {
        return Spec.of(target);
    }

    /** The Weft process of branch target {@code s}: primary {@code primary}, branch {@code branch}. */
    static WeftProcess weft(Spec s, String primary, String branch, int brokers, Path dir, List<String> jvm, boolean quiet) {
        return WeftProcess.branch(ROUTES, List.of(primary, branch), s.routeYaml(), brokers, dir, jvm, quiet);
    }

    /**
     * The branch counters of Weft's /metrics for route {@code branch} (cumulative): {@code copies} =
     * {@code weft_branch_copies_total} by {@code outcome}, {@code records} = {@code weft_branch_records_total}
     * by {@code stage} (a transforming branch's writer), {@code copyBytes} = {@code weft_branch_copy_bytes_total}.
     */
    static Map<String, Object> counters(WeftProcess w) throws Exception {
        Map<String, Object> c = new LinkedHashMap<>();
        Map<String, List<WeftProcess.Sample>> scraped = w.scrape();
        c.put("copies", byLabel(scraped, "weft_branch_copies_total", "outcome"));
        c.put("records", byLabel(scraped, "weft_branch_records_total", "stage"));
        long bytes = 0;
        for (WeftProcess.Sample s : scraped.getOrDefault("weft_branch_copy_bytes_total", List.of())) {
            if (ROUTES.get(1).equals(s.labels().get("branch"))) {
                bytes += (long) s.value();
            }
        }
        c.put("copyBytes", bytes);
        return c;
    }

    private static Map<String, Object> byLabel(Map<String, List<WeftProcess.Sample>> scraped, String metric, String label) {
        Map<String, Object> m = new TreeMap<>();
        for (WeftProcess.Sample s : scraped.getOrDefault(metric, List.of())) {
            if (ROUTES.get(1).equals(s.labels().get("branch"))) {
                m.merge(s.labels().get(label), (long) s.value(), (x, y) -> (Long) x + (Long) y);
            }
        }
        return m;
    }

    /** The end offsets of {@code topic}'s {@code partitions} on {@code cluster}. */
    static Map<TopicPartition, Long> endOffsets(KafkaCluster cluster, String topic, int partitions) throws Exception {
        Map<TopicPartition, OffsetSpec> q = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            q.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> out = new HashMap<>();
        cluster.admin().listOffsets(q).all().get(30, TimeUnit.SECONDS).forEach((tp, r) -> out.put(tp, r.offset()));
        return out;
    }

    static long sum(Map<TopicPartition, Long> offsets) {
        return offsets.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * The branch topic's end offsets once they stopped growing (unchanged over 1 s, at most {@code max}):
     * copies of a slice arrive after the primary's acknowledgements.
     */
    static Map<TopicPartition, Long> settledEndOffsets(KafkaCluster cluster, String topic, int partitions, Duration max) throws Exception {
        long deadline = System.nanoTime() + max.toNanos();
        Map<TopicPartition, Long> last = endOffsets(cluster, topic, partitions);
        while (System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(1000);
            Map<TopicPartition, Long> now = endOffsets(cluster, topic, partitions);
            if (now.equals(last)) {
                return now;
            }
            last = now;
        }
        return last;
    }

    /** Deletes the branch topic's records before {@code offsets} (earlier slices: disk stays bounded); best effort. */
    static void deleteBefore(KafkaCluster cluster, Map<TopicPartition, Long> offsets) {
        Map<TopicPartition, RecordsToDelete> d = new HashMap<>();
        offsets.forEach((tp, o) -> {
            if (o > 0) {
                d.put(tp, RecordsToDelete.beforeOffset(o));
            }
        });
        if (d.isEmpty()) {
            return;
        }
        try {
            cluster.admin().deleteRecords(d).all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            System.err.println("load: could not delete earlier records of the branch topic: " + e);
        }
    }

    /**
     * A fault of the branch cluster during one slice: {@code kill} = SIGKILL of every broker, restarted (the
     * restart returns when the broker is visible to clients again) after {@code length}; {@code stop} = SIGSTOP of
     * every broker, SIGCONT after {@code length}. Starts {@code at} after the slice's first send, on a thread of
     * its own; {@link #finish} waits for it and says when it happened.
     */
    static final class Fault {
        final String kind;
        final KafkaCluster cluster;
        final Duration at;
        final Duration length;
        volatile long sliceStart;
        volatile long faultStart;
        volatile long recovered;
        volatile String detail = "not run";
        volatile Throwable failure;
        private Thread thread;
        private final List<Long> stopped = new ArrayList<>();
        private final Thread cont = new Thread(this::resumeStopped, "load-branch-fault-sigcont");

        Fault(String kind, KafkaCluster cluster, Duration at, Duration length) {
            this.kind = kind;
            this.cluster = cluster;
            this.at = at;
            this.length = length;
        }

        /** Schedules the fault; {@code start} = the slice's first send ({@link System#nanoTime()}). */
        void start(long start) {
            sliceStart = start;
            Runtime.getRuntime().addShutdownHook(cont);
            thread = new Thread(this::run, "load-branch-fault");
            thread.setDaemon(true);
            thread.start();
        }

        private void run() {
            try {
                long wait = sliceStart + at.toNanos() - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                List<Integer> ids = cluster.brokerIds();
                List<Long> pids = new ArrayList<>();
                for (int id : ids) {
                    pids.add(cluster.pid(id).orElse(-1));
                }
                if (kind.equals("kill")) {
                    faultStart = System.nanoTime();
                    for (int id : ids) {
                        cluster.killBroker(id);
                    }
                    TimeUnit.NANOSECONDS.sleep(length.toNanos());
                    long restartFrom = System.nanoTime();
                    // Together: with several combined nodes one alone has no controller quorum to come back to.
                    List<Thread> restarts = new ArrayList<>();
                    List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
                    for (int id : ids) {
                        Thread t = new Thread(() -> {
                            try {
                                cluster.restartBroker(id);
                            } catch (Throwable e) {
                                errors.add(e);
                            }
                        }, "load-branch-restart-" + id);
                        t.start();
                        restarts.add(t);
                    }
                    for (Thread t : restarts) {
                        t.join();
                    }
                    if (!errors.isEmpty()) {
                        throw errors.getFirst();
                    }
                    recovered = System.nanoTime();
                    List<Long> newPids = new ArrayList<>();
                    for (int id : ids) {
                        newPids.add(cluster.pid(id).orElse(-1));
                    }
                    detail = "branch cluster broker(s) " + ids + " (pid " + pids + ") SIGKILL, " + length.toMillis() + " ms later restarted (pid "
                            + newPids + "), visible to clients again " + Math.round((recovered - restartFrom) / 1e6) + " ms after the restart began";
                } else {
                    faultStart = System.nanoTime();
                    synchronized (stopped) {
                        for (long pid : pids) {
                            Procs.signal(pid, "STOP");
                            stopped.add(pid);
                        }
                    }
                    try {
                        TimeUnit.NANOSECONDS.sleep(length.toNanos());
                    } finally {
                        resumeStopped();
                    }
                    recovered = System.nanoTime();
                    detail = "branch cluster broker(s) " + ids + " (pid " + pids + ") SIGSTOP for " + length.toMillis() + " ms, then SIGCONT";
                }
            } catch (Throwable e) {
                failure = e;
                resumeStopped();
            }
        }

        private void resumeStopped() {
            synchronized (stopped) {
                for (long pid : stopped) {
                    try {
                        Procs.signal(pid, "CONT");
                    } catch (RuntimeException e) {
                        System.err.println("load: SIGCONT " + pid + ": " + e.getMessage());
                    }
                }
                stopped.clear();
            }
        }

        /** Waits for the fault (and the restart) to be over; its times in seconds after the slice's first send. */
        Map<String, Object> finish() throws InterruptedException {
            if (thread != null) {
                thread.join();
            }
            try {
                Runtime.getRuntime().removeShutdownHook(cont);
            } catch (IllegalStateException e) {
                // shutting down
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("kind", kind);
            m.put("faultAtSec", faultStart == 0 ? null : secs(faultStart - sliceStart));
            m.put("recoveredAtSec", recovered == 0 ? null : secs(recovered - sliceStart));
            m.put("faultSec", faultStart == 0 || recovered == 0 ? null : secs(recovered - faultStart));
            m.put("detail", failure == null ? detail : "failed: " + failure);
            return m;
        }
    }

    /**
     * Reads the branch topic from {@code from} to {@code to} directly on the branch cluster and counts its
     * records by the intended send time in their value: produced before the fault, during it (before the
     * branch was back), after the recovery; beside the primary's records sent in each window (fixed mode:
     * record i is due at start + i / rate, so the count is exact; null in max mode). {@code gotNewRecordsAfterRecovery}
     * = some record produced after the recovery reached the branch; {@code firstAfterRecoveryMs} = how long after
     * the recovery the first of them had been produced.
     */
    static Map<String, Object> catchUp(KafkaCluster branch, Map<TopicPartition, Long> from, Map<TopicPartition, Long> to,
                                       Fault f, long sent, int rate, boolean fixed, Duration duration) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (f.faultStart == 0 || f.recovered == 0) {
            m.put("error", "the fault did not complete: " + (f.failure == null ? f.detail : f.failure.toString()));
            return m;
        }
        long before = 0;
        long during = 0;
        long after = 0;
        long unreadable = 0;
        long firstAfter = Long.MAX_VALUE;
        long lastBefore = Long.MIN_VALUE;
        long want = 0;
        for (var e : to.entrySet()) {
            want += Math.max(0, e.getValue() - from.getOrDefault(e.getKey(), 0L));
        }
        Map<String, Object> cc = new HashMap<>(branch.consumerConfig());
        cc.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        cc.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        cc.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 64 << 20);
        cc.put(ConsumerConfig.CLIENT_ID_CONFIG, "load-branch-reader");
        cc.remove(ConsumerConfig.GROUP_ID_CONFIG);
        long read = 0;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(cc, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>(to.keySet());
            c.assign(tps);
            for (TopicPartition tp : tps) {
                c.seek(tp, from.getOrDefault(tp, 0L));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (read < want && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    if (r.offset() >= to.get(tp)) {
                        continue;
                    }
                    read++;
                    long t;
                    try {
                        t = Payload.intendedNanos(r.value());
                    } catch (RuntimeException ex) {
                        unreadable++;
                        continue;
                    }
                    if (t < f.faultStart) {
                        before++;
                        lastBefore = Math.max(lastBefore, t);
                    } else if (t < f.recovered) {
                        during++;
                    } else {
                        after++;
                        firstAfter = Math.min(firstAfter, t);
                    }
                }
            }
        }
        m.put("branchRecordsRead", read);
        m.put("branchRecordsInSlice", want);
        Map<String, Object> branchBy = new LinkedHashMap<>();
        branchBy.put("beforeFault", before);
        branchBy.put("duringFault", during);
        branchBy.put("afterRecovery", after);
        if (unreadable > 0) {
            branchBy.put("unreadable", unreadable);
        }
        m.put("branchRecordsProduced", branchBy);
        if (fixed) {
            long period = Math.max(1, 1_000_000_000L / rate);
            long a = dueBefore(f.faultStart, f.sliceStart, period, sent);
            long b = dueBefore(f.recovered, f.sliceStart, period, sent);
            Map<String, Object> primaryBy = new LinkedHashMap<>();
            primaryBy.put("beforeFault", a);
            primaryBy.put("duringFault", b - a);
            primaryBy.put("afterRecovery", sent - b);
            m.put("primarySentProduced", primaryBy);
        } else {
            m.put("primarySentProduced", null);
        }
        // A restart slower than the rest of the slice: nothing was produced after it in this slice (the next
        // slice of the target, whose records before its own fault reach the branch or not, tells).
        m.put("recoveredBeforeProduceEnd", f.recovered < f.sliceStart + duration.toNanos());
        m.put("gotNewRecordsAfterRecovery", after > 0);
        m.put("firstAfterRecoveryMs", after > 0 ? Math.round((firstAfter - f.recovered) / 1e5) / 10.0 : null);
        m.put("lastBeforeFaultMsBeforeFault", lastBefore == Long.MIN_VALUE ? null : Math.round((f.faultStart - lastBefore) / 1e5) / 10.0);
        return m;
    }

    /** Records of a fixed-rate slice (record i due at start + i × period) due before {@code t}, at most {@code sent}. */
    static long dueBefore(long t, long start, long period, long sent) {
        if (t <= start) {
            return 0;
        }
        return Math.min(sent, (t - start + period - 1) / period);
    }

    private static double secs(long nanos) {
        return Math.round(nanos / 1e6) / 1000.0;
    }

    /** One line per faulted slice whose branch got nothing produced after the recovery. */
    @SuppressWarnings("unchecked")
    static List<String> problems(List<Map<String, Object>> slices) {
        List<String> out = new ArrayList<>();
        for (Map<String, Object> s : slices) {
            if (s.get("branchCatchUp") instanceof Map<?, ?> c && !Boolean.TRUE.equals(c.get("gotNewRecordsAfterRecovery"))) {
                out.add(s.get("target") + " round " + s.get("round") + ": the branch got no record produced after it came back"
                        + (Boolean.FALSE.equals(c.get("recoveredBeforeProduceEnd"))
                                ? " (it came back only after the slice's producer had stopped: a longer --duration, or see the next slice's branchRecords)"
                                : "") + " " + c);
            }
            if (s.get("branchFault") instanceof Map<?, ?> f && String.valueOf(f.get("detail")).startsWith("failed")) {
                out.add(s.get("target") + " round " + s.get("round") + ": branch fault " + f.get("detail"));
            }
        }
        return out;
    }
}
