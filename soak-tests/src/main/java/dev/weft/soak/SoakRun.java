package dev.weft.soak;

import dev.weft.soak.common.Args;
import dev.weft.soak.common.Payload;
import dev.weft.soak.common.ProcStat;
import dev.weft.soak.common.Procs;
import dev.weft.soak.common.Reports;
import dev.weft.soak.common.WeftProcess;
import dev.weft.testkit.KafkaCluster;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.HdrHistogram.Recorder;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A soak run: steady produce and consume through Weft (its own process) in front of a forked 3-broker
 * cluster (RF 3, min.insync.replicas 2), with faults on a schedule, cycling through: a broker killed
 * with SIGKILL and restarted, a broker frozen with SIGSTOP for longer than the clients' request timeout
 * and then SIGCONT, and Weft itself killed with SIGKILL and started again on the same ports (every
 * upstream and client connection of the proxy drops). Checks that every acknowledged record is consumed
 * (lost = 0), counts duplicates in the log (a sequence number at two offsets) apart from consumer
 * redelivery (the same offset seen twice, after a rebalance), and measures how quickly the end-to-end
 * p99 returns near its pre-fault baseline. Writes a weft-report/v1 JSON and two HdrHistogram logs.
 */
public final class SoakRun {

    private static final Set<String> OPTIONS = Set.of("duration", "smoke", "rate", "record-bytes", "partitions", "out",
            "first-fault", "fault-gap", "sigstop", "recovery-factor", "recovery-window", "drain-timeout", "verbose", "faults");

    /** Parsed options. */
    public record Options(Duration duration, boolean smoke, int rate, int recordBytes, int partitions, Path out,
                          Duration firstFault, Duration faultGap, Duration sigstop, double recoveryFactor,
                          Duration recoveryWindow, Duration drainTimeout, List<String> faults, boolean verbose, String command) {

        public static Options parse(String[] argv) {
            Args a = new Args(argv, Set.of("smoke", "verbose"));
            a.requireOnly(OPTIONS);
            boolean smoke = a.flag("smoke");
            String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd-HHmm"));
            return new Options(
                    a.duration("duration", smoke ? Duration.ofSeconds(60) : Duration.ofMinutes(10)), smoke,
                    a.integer("rate", 500), a.integer("record-bytes", 512), a.integer("partitions", 6),
                    Path.of(a.get("out", "perf-reports/results/soak-" + (smoke ? "smoke-" : "") + stamp + ".json")),
                    a.duration("first-fault", smoke ? Duration.ofSeconds(10) : Duration.ofSeconds(60)),
                    a.duration("fault-gap", smoke ? Duration.ofSeconds(5) : Duration.ofSeconds(90)),
                    a.duration("sigstop", Duration.ofSeconds(8)),
                    Double.parseDouble(a.get("recovery-factor", "3")),
                    a.duration("recovery-window", smoke ? Duration.ofSeconds(3) : Duration.ofSeconds(10)),
                    a.duration("drain-timeout", smoke ? Duration.ofSeconds(40) : Duration.ofSeconds(150)),
                    List.of(a.get("faults", "broker-kill,broker-stop,proxy-restart").split(",")),
                    a.flag("verbose"), "SoakRun " + String.join(" ", argv));
        }
    }

    /** Client request timeout; the SIGSTOP fault lasts longer than this. */
    static final int REQUEST_TIMEOUT_MS = 5000;
    private static final String TOPIC = "soak";

    private SoakRun() {
    }

    public static void main(String[] args) throws Exception {
        Options o;
        try {
            if (java.util.Arrays.asList(args).contains("--help")) {
                throw new IllegalArgumentException("options:");
            }
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("soak: " + e.getMessage());
            System.err.println("usage: soak.sh [--smoke] [--duration 10m] [--rate 500] [--record-bytes 512] [--faults broker-kill,broker-stop,proxy-restart]"
                    + " [--first-fault 60s] [--fault-gap 90s] [--sigstop 8s] [--recovery-factor 3] [--recovery-window 10s] [--out FILE]");
            System.exit(2);
            return;
        }
        Map<String, Object> report = run(o);
        @SuppressWarnings("unchecked") Map<String, Object> integrity = (Map<String, Object>) report.get("integrity");
        System.out.println("soak: report written to " + o.out() + "; integrity " + integrity);
        System.exit(((Number) integrity.get("lost")).longValue() == 0 ? 0 : 1);
    }

    /** Consumer-side bookkeeping (consumer thread only, read after it stopped or under the lock). */
    private static final class Seen {
        byte[] countBySeq = new byte[1 << 16];
        final Map<Integer, BitSet> offsets = new HashMap<>();
        long distinct;
        long duplicates;
        long redelivered;
        long records;

        synchronized void record(int partition, long offset, long seq) {
            records++;
            BitSet seen = offsets.computeIfAbsent(partition, p -> new BitSet());
            if (offset > Integer.MAX_VALUE) {
                throw new IllegalStateException("offset beyond 2^31 in a soak run");
            }
            if (seen.get((int) offset)) {
                redelivered++;
                return;
            }
            seen.set((int) offset);
            if (seq >= countBySeq.length) {
                countBySeq = Arrays.copyOf(countBySeq, (int) Math.max(seq + 1, countBySeq.length * 2L));
            }
            int c = countBySeq[(int) seq];
            if (c == 0) {
                distinct++;
            } else {
                duplicates++;
            }
            countBySeq[(int) seq] = (byte) Math.min(c + 1, 100);
        }

        synchronized boolean consumed(int seq) {
            return seq < countBySeq.length && countBySeq[seq] > 0;
        }
    }

    /** One second of the run. */
    private record Second(double t, long acked, Histogram e2e, Histogram produce) {
    }

    public static Map<String, Object> run(Options o) throws Exception {
        Path tmp = Files.createTempDirectory("weft-soak-");
        Path out = o.out().toAbsolutePath();
        String base = out.getFileName().toString().replaceFirst("\\.json$", "");
        Path produceLog = out.resolveSibling(base + "-produce.hlog");
        Path e2eLog = out.resolveSibling(base + "-e2e.hlog");
        Files.createDirectories(out.getParent());

        Recorder produceRec = new Recorder(3_600_000_000L, 3);
        Recorder e2eRec = new Recorder(3_600_000_000L, 3);
        Histogram produceAll = Reports.micros();
        Histogram e2eAll = Reports.micros();
        BitSet acked = new BitSet();
        AtomicLong ackedCount = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        Seen seen = new Seen();
        List<Second> seconds = new CopyOnWriteArrayList<>();
        List<Map<String, Object>> faults = new CopyOnWriteArrayList<>();
        long[] stopped = {-1};
        WeftProcess weft = null;
        Thread hook = null;
        long t0 = System.nanoTime();

        KafkaCluster cluster = KafkaCluster.builder().brokers(3).forked(true)
                .brokerProperty("min.insync.replicas", "2")
                .brokerProperty("default.replication.factor", "3")
                .brokerProperty("auto.create.topics.enable", "false")
                .build();
        try {
            cluster.start();
            hook = new Thread(() -> {
                if (stopped[0] > 0) {
                    Procs.signal(stopped[0], "CONT");
                }
            });
            Runtime.getRuntime().addShutdownHook(hook);
            cluster.createTopic(TOPIC, o.partitions(), 3, Map.of("min.insync.replicas", "2"));
            // The launcher's JVM options (jvm.options: -Xmx512m among them), nothing added.
            weft = new WeftProcess(cluster.bootstrapServers(), 2, tmp.resolve("weft"), WeftProcess.launcherJvmOptions(null), !o.verbose());
            weft.start();
            String bootstrap = weft.bootstrap();
            final WeftProcess proxy = weft;

            Map<String, Object> pc = new HashMap<>();
            pc.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            pc.put(ProducerConfig.ACKS_CONFIG, "all");
            pc.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
            pc.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
            pc.put(ProducerConfig.RETRIES_CONFIG, Integer.MAX_VALUE);
            pc.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, REQUEST_TIMEOUT_MS);
            pc.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
            pc.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            pc.put(ProducerConfig.CLIENT_ID_CONFIG, "soak-producer");
            Map<String, Object> cc = new HashMap<>();
            cc.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            cc.put(ConsumerConfig.GROUP_ID_CONFIG, "soak");
            cc.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            cc.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, true);
            cc.put(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, 1000);
            cc.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, REQUEST_TIMEOUT_MS);
            cc.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            cc.put(ConsumerConfig.CLIENT_ID_CONFIG, "soak-consumer");

            volatileState state = new volatileState();
            Thread consumerThread = new Thread(() -> {
                try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cc, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                    consumer.subscribe(List.of(TOPIC));
                    while (!state.stopConsumer) {
                        try {
                            var records = consumer.poll(Duration.ofMillis(200));
                            if (!state.consumerAssigned && !consumer.assignment().isEmpty()) {
                                state.consumerAssigned = true;
                            }
                            for (ConsumerRecord<byte[], byte[]> r : records) {
                                long now = System.nanoTime();
                                long lat = Math.max(0, (now - Payload.intendedNanos(r.value())) / 1000);
                                e2eRec.recordValue(Math.min(lat, 3_600_000_000L));
                                seen.record(r.partition(), r.offset(), Payload.sequence(r.value()));
                            }
                        } catch (RuntimeException e) {
                            System.err.println("soak: consumer: " + e);
                        }
                    }
                }
            }, "soak-consumer");
            consumerThread.start();

            KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pc, new ByteArraySerializer(), new ByteArraySerializer());
            // The clock starts once both clients are working: the producer knows the partitions and the
            // consumer has its assignment (a busy machine can take many seconds for the first join).
            producer.partitionsFor(TOPIC);
            long readyDeadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (!state.consumerAssigned && System.nanoTime() < readyDeadline) {
                TimeUnit.MILLISECONDS.sleep(50); // waiting for the consumer group's first assignment
            }
            if (!state.consumerAssigned) {
                throw new IllegalStateException("the consumer got no assignment within 90 s");
            }
            long runStart = System.nanoTime();
            state.runEnd = runStart + o.duration().toNanos();
            Thread sender = new Thread(() -> {
                long period = 1_000_000_000L / o.rate();
                for (long seq = 0; ; seq++) {
                    long intended = runStart + seq * period;
                    if (intended >= state.runEnd && state.faultsDone) {
                        return;
                    }
                    long wait = intended - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    final int s = (int) seq;
                    byte[] key = ByteBuffer.allocate(8).putLong(0, seq).array();
                    try {
                        producer.send(new ProducerRecord<>(TOPIC, key, Payload.create(o.recordBytes(), intended, seq)), (md, ex) -> {
                            if (ex != null) {
                                if (failed.incrementAndGet() <= 5) {
                                    System.err.println("soak: send " + s + " failed: " + ex);
                                }
                                return;
                            }
                            long lat = (System.nanoTime() - intended) / 1000;
                            produceRec.recordValue(Math.min(lat, 3_600_000_000L));
                            synchronized (acked) {
                                acked.set(s);
                            }
                            ackedCount.incrementAndGet();
                        });
                    } catch (RuntimeException e) {
                        if (failed.incrementAndGet() <= 5) {
                            System.err.println("soak: send " + s + " failed: " + e);
                        }
                    }
                }
            }, "soak-sender");
            sender.start();

            // Per-second sampler: interval histograms into the logs and the timeline.
            Thread sampler = new Thread(() -> {
                try (PrintStream pl = new PrintStream(Files.newOutputStream(produceLog));
                     PrintStream el = new PrintStream(Files.newOutputStream(e2eLog))) {
                    HistogramLogWriter pw = new HistogramLogWriter(pl);
                    HistogramLogWriter ew = new HistogramLogWriter(el);
                    long startMs = System.currentTimeMillis();
                    for (HistogramLogWriter w : List.of(pw, ew)) {
                        w.outputLogFormatVersion();
                        w.outputComment("Weft soak run, microseconds, " + (w == pw ? "produce (intended send to ack)" : "end-to-end (intended send to consume)"));
                        w.outputStartTime(startMs);
                        w.setBaseTime(startMs);
                        w.outputLegend();
                    }
                    long lastAcked = 0;
                    long next = System.nanoTime() + 1_000_000_000L;
                    while (!state.stopSampler) {
                        long wait = next - System.nanoTime();
                        if (wait > 0) {
                            LockSupport.parkNanos(wait);
                            continue;
                        }
                        next += 1_000_000_000L;
                        Histogram p = produceRec.getIntervalHistogram();
                        Histogram e = e2eRec.getIntervalHistogram();
                        pw.outputIntervalHistogram(p);
                        ew.outputIntervalHistogram(e);
                        produceAll.add(p);
                        e2eAll.add(e);
                        long a = ackedCount.get();
                        seconds.add(new Second((System.nanoTime() - runStart) / 1e9, a - lastAcked, e, p));
                        lastAcked = a;
                    }
                } catch (IOException ex) {
                    System.err.println("soak: histogram log: " + ex);
                }
            }, "soak-sampler");
            sampler.start();

            // Faults, one after another, cycling through the configured kinds.
            long nextFault = runStart + o.firstFault().toNanos();
            int k = 0;
            long room = o.recoveryWindow().toNanos() * 2 + Duration.ofSeconds(3).toNanos();
            while (true) {
                long wait = nextFault - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait); // the fault schedule
                }
                // Leave room for the fault and a recovery window before the run ends; the smoke runs every
                // fault kind once even if that takes longer than its 60 s (a slow machine restarts slowly).
                boolean everyKindDone = k >= o.faults().size();
                if (System.nanoTime() + room > state.runEnd && (!o.smoke() || everyKindDone)) {
                    break;
                }
                String kind = o.faults().get(k++ % o.faults().size()).trim();
                Map<String, Object> f = new LinkedHashMap<>();
                f.put("t", round((System.nanoTime() - runStart) / 1e9));
                f.put("kind", kind);
                System.err.println("soak: fault " + kind + " at " + f.get("t") + " s");
                switch (kind) {
                    case "broker-kill" -> {
                        int id = 1;
                        long pid = cluster.pid(id).orElse(-1);
                        cluster.killBroker(id);
                        f.put("killedAt", round((System.nanoTime() - runStart) / 1e9));
                        cluster.restartBroker(id);
                        f.put("detail", "broker " + id + " (pid " + pid + ") SIGKILL, restarted (pid "
                                + cluster.pid(id).orElse(-1) + ") and visible to clients again");
                    }
                    case "broker-stop" -> {
                        int id = 2;
                        long pid = cluster.pid(id).orElseThrow();
                        Procs.signal(pid, "STOP");
                        stopped[0] = pid;
                        try {
                            TimeUnit.NANOSECONDS.sleep(o.sigstop().toNanos()); // the fault's length
                        } finally {
                            Procs.signal(pid, "CONT");
                            stopped[0] = -1;
                        }
                        f.put("detail", "broker " + id + " (pid " + pid + ") SIGSTOP for " + o.sigstop().toMillis()
                                + " ms (client request.timeout.ms " + REQUEST_TIMEOUT_MS + "), then SIGCONT");
                    }
                    case "proxy-restart" -> {
                        long pid = proxy.pid();
                        proxy.killAndRestart();
                        f.put("detail", "Weft (pid " + pid + ") SIGKILL: all client and upstream connections dropped; restarted on the same ports (pid "
                                + proxy.pid() + ") and ready");
                    }
                    default -> throw new IllegalArgumentException("unknown fault '" + kind + "' (broker-kill, broker-stop, proxy-restart)");
                }
                f.put("endT", round((System.nanoTime() - runStart) / 1e9));
                faults.add(f);
                if (o.smoke() && System.nanoTime() + room > state.runEnd) {
                    state.runEnd = System.nanoTime() + room;
                    System.err.println("soak: smoke extended to " + round((state.runEnd - runStart) / 1e9) + " s so that every fault is followed by a recovery window");
                }
                nextFault = System.nanoTime() + o.faultGap().toNanos();
            }

            state.faultsDone = true;
            sender.join();
            producer.flush();
            producer.close(Duration.ofSeconds(10));
            long produced = ackedCount.get();
            // Drain: until every acknowledged record was consumed, or the drain timeout.
            long drainDeadline = System.nanoTime() + o.drainTimeout().toNanos();
            long lost;
            while (true) {
                lost = lost(acked, seen);
                if (lost == 0 || System.nanoTime() > drainDeadline) {
                    break;
                }
                TimeUnit.MILLISECONDS.sleep(200); // waiting for the consumer to catch up
            }
            state.stopConsumer = true;
            consumerThread.join(30_000);
            state.stopSampler = true;
            sampler.join(10_000);

            // Report.
            Map<String, Object> report = Reports.header("soak",
                    "Soak through Weft with faults (" + o.duration().toSeconds() + " s" + (o.smoke() ? ", smoke" : "") + ")", o.command());
            Map<String, Object> config = new LinkedHashMap<>();
            config.put("durationSec", o.duration().toSeconds());
            config.put("actualDurationSec", round((state.runEnd - runStart) / 1e9));
            config.put("smoke", o.smoke());
            config.put("ratePerSec", o.rate());
            config.put("recordBytes", o.recordBytes());
            config.put("topic", TOPIC + ": " + o.partitions() + " partitions, RF 3, min.insync.replicas 2");
            config.put("brokers", "3 forked JVMs (testkit), combined broker+controller");
            config.put("producer", "idempotent, acks=all, request.timeout.ms " + REQUEST_TIMEOUT_MS + ", delivery.timeout.ms 120000, linger.ms 5, open-loop schedule");
            config.put("consumer", "group 'soak', auto commit every 1 s, read_committed, request.timeout.ms " + REQUEST_TIMEOUT_MS);
            config.put("faults", o.faults());
            config.put("firstFaultSec", o.firstFault().toSeconds());
            config.put("faultGapSec", o.faultGap().toSeconds());
            config.put("sigstopMs", o.sigstop().toMillis());
            config.put("recoveryFactor", o.recoveryFactor());
            config.put("recoveryWindowSec", o.recoveryWindow().toSeconds());
            config.put("proxyFault", "proxy-restart = Weft SIGKILL and start again on the same ports");
            report.put("config", config);

            List<Map<String, Object>> results = new ArrayList<>();
            double secs = seconds.isEmpty() ? 1 : seconds.getLast().t();
            results.add(result("produce", o, secs, produced, produceAll, proxy));
            results.add(result("e2e", o, secs, seen.distinct, e2eAll, proxy));
            report.put("results", results);

            List<Map<String, Object>> timeline = new ArrayList<>();
            for (Second s : seconds) {
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("t", round(s.t()));
                e.put("target", "weft");
                e.put("recordsPerSec", s.acked());
                e.put("p99Micros", s.e2e().getTotalCount() == 0 ? 0 : s.e2e().getValueAtPercentile(99));
                e.put("produceP99Micros", s.produce().getTotalCount() == 0 ? 0 : s.produce().getValueAtPercentile(99));
                timeline.add(e);
            }
            report.put("timeline", timeline);
            double firstFaultT = faults.isEmpty() ? 0 : ((Number) faults.getFirst().get("t")).doubleValue();
            for (Map<String, Object> f : faults) {
                Map<String, Object> rec = recovery(f, firstFaultT, seconds, o);
                f.put("recovery", rec);
                f.put("detail", f.get("detail") + "; ended at " + f.get("endT") + " s; e2e p99 baseline "
                        + rec.get("baselineP99Micros") + " us, " + (Boolean.TRUE.equals(rec.get("recovered"))
                        ? "back within " + o.recoveryFactor() + "x (>= 10 ms) after " + rec.get("recoveredAfterSec") + " s"
                        : "NOT back within " + o.recoveryFactor() + "x by the end of the run"));
            }
            report.put("faults", faults);

            Map<String, Object> integrity = new LinkedHashMap<>();
            integrity.put("acknowledged", produced);
            integrity.put("consumed", consumedAcked(acked, seen));
            integrity.put("lost", lost);
            integrity.put("duplicates", seen.duplicates);
            integrity.put("redelivered", seen.redelivered);
            integrity.put("failedSends", failed.get());
            integrity.put("consumedRecords", seen.records);
            integrity.put("distinctConsumed", seen.distinct);
            report.put("integrity", integrity);
            report.put("histogramLogs", Map.of("produce", produceLog.getFileName().toString(), "e2e", e2eLog.getFileName().toString()));
            Reports.write(out, report);
            System.err.println("soak: integrity " + integrity);
            return report;
        } finally {
            if (stopped[0] > 0) {
                Procs.signal(stopped[0], "CONT");
            }
            if (weft != null) {
                weft.close();
            }
            cluster.close();
            if (hook != null) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // shutting down
                }
            }
            try (var s = Files.walk(tmp)) {
                s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static final class volatileState {
        volatile boolean stopConsumer;
        volatile boolean stopSampler;
        volatile boolean consumerAssigned;
        volatile long runEnd;
        volatile boolean faultsDone;
    }

    private static long lost(BitSet acked, Seen seen) {
        long lost = 0;
        synchronized (acked) {
            for (int i = acked.nextSetBit(0); i >= 0; i = acked.nextSetBit(i + 1)) {
                if (!seen.consumed(i)) {
                    lost++;
                }
            }
        }
        return lost;
    }

    private static long consumedAcked(BitSet acked, Seen seen) {
        synchronized (acked) {
            return acked.cardinality() - lost(acked, seen);
        }
    }

    private static Map<String, Object> result(String scenario, Options o, double secs, long records, Histogram h, WeftProcess proxy) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("target", "weft");
        r.put("scenario", scenario);
        r.put("mode", "fixed-rate");
        r.put("recordBytes", o.recordBytes());
        r.put("targetRatePerSec", o.rate());
        r.put("durationSec", round(secs));
        r.put("recordsPerSec", round(records / secs));
        r.put("mbPerSec", round(records / secs * o.recordBytes() / 1e6));
        r.put("latencyMicros", Reports.latency(h));
        r.put("histogram", Reports.encode(h));
        Map<String, Object> p = new LinkedHashMap<>();
        // The proxy was restarted by the proxy-restart fault: CPU and RSS are of the last incarnation only.
        OptionalLong rss = ProcStat.peakRssBytes(proxy.pid());
        p.put("cpuSecondsPerGB", null);
        p.put("peakRssBytes", rss.isPresent() ? rss.getAsLong() : null);
        r.put("proxy", p);
        return r;
    }

    /**
     * Baseline: e2e p99 over the {@code recoveryWindow} before the first fault (steady state; the window
     * before a later fault may still hold the previous fault's tail, reported as
     * {@code preFaultP99Micros}). Recovered at the first second
     * after the fault ended from which the p99 over the next {@code recoveryWindow} is within
     * {@code recoveryFactor} x baseline (at least 10 ms, so a sub-millisecond baseline on a shared
     * machine does not make noise a failure).
     */
    private static Map<String, Object> recovery(Map<String, Object> f, double firstFaultT, List<Second> seconds, Options o) {
        double start = ((Number) f.get("t")).doubleValue();
        double end = ((Number) f.get("endT")).doubleValue();
        double w = o.recoveryWindow().toMillis() / 1000.0;
        Histogram base = Reports.micros();
        Histogram pre = Reports.micros();
        for (Second s : seconds) {
            if (s.t() > firstFaultT - w && s.t() <= firstFaultT) {
                base.add(s.e2e());
            }
            if (s.t() > start - w && s.t() <= start) {
                pre.add(s.e2e());
            }
        }
        long baseline = base.getTotalCount() == 0 ? 0 : base.getValueAtPercentile(99);
        long threshold = Math.max((long) (baseline * o.recoveryFactor()), 10_000);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("baselineP99Micros", baseline);
        r.put("baselineRecords", base.getTotalCount());
        r.put("preFaultP99Micros", pre.getTotalCount() == 0 ? 0 : pre.getValueAtPercentile(99));
        r.put("thresholdMicros", threshold);
        Histogram during = Reports.micros();
        for (Second s : seconds) {
            if (s.t() > start && s.t() <= end + 1) {
                during.add(s.e2e());
            }
        }
        r.put("faultP99Micros", during.getTotalCount() == 0 ? 0 : during.getValueAtPercentile(99));
        r.put("faultMaxMicros", during.getTotalCount() == 0 ? 0 : during.getMaxValue());
        Double recoveredAfter = null;
        long after = -1;
        for (int i = 0; i < seconds.size(); i++) {
            Second s = seconds.get(i);
            if (s.t() <= end) {
                continue;
            }
            Histogram win = Reports.micros();
            boolean complete = false;
            for (int j = i; j < seconds.size(); j++) {
                if (seconds.get(j).t() > s.t() + w - 1e-9) {
                    complete = true;
                    break;
                }
                win.add(seconds.get(j).e2e());
            }
            if (win.getTotalCount() > 0 && win.getValueAtPercentile(99) <= threshold) {
                recoveredAfter = round(s.t() - 1 - end);
                after = win.getValueAtPercentile(99);
                break;
            }
            if (!complete) {
                break;
            }
        }
        r.put("recovered", recoveredAfter != null);
        r.put("recoveredAfterSec", recoveredAfter == null ? null : Math.max(0, recoveredAfter));
        r.put("recoveredP99Micros", after < 0 ? null : after);
        return r;
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
