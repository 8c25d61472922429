package dev.weft.proxy.resilience;

import dev.weft.proxy.testing.Poll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import dev.weft.protocol.ApiKeyTable;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.session.Session;
import dev.weft.proxy.testing.VirtualClusterFixture;
import dev.weft.proxy.testing.VirtualClusterKind;
import dev.weft.testkit.KafkaCluster;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Mutation fuzzing of a live proxy in front of a real broker.
 *
 * <p>The corpus is real: a kafka-clients admin, producers (idempotent, acks=1, acks=0; gzip, lz4,
 * uncompressed) and consumers (classic and KIP-848 groups) run against the broker through a capturing
 * relay (a second listener advertised at the relay, so every request of theirs passes it), plus an
 * empty message of every safe API at every version Weft implements, built with kafka-clients' message
 * classes. From it, seeded mutations (bit flips, byte substitutions, truncations, length-prefix lies,
 * insertions, splices of two frames, API key and version swaps, client id and tagged-field lies,
 * random bodies) are thrown at the proxy over thousands of connections, several at a time.
 *
 * <p>Each connection's stream ends at the first frame the proxy must refuse by the framing rules
 * ({@link Mutator}); before it, the proxy forwards what it cannot judge and the broker refuses or
 * answers. The test checks that: every response a fuzz client gets is a well-formed frame answering
 * one of its requests, in order; a connection whose first frame must be refused is closed with a WARN
 * naming the peer and the reason; every connection that ends in a refusal is closed with a log line
 * naming it; no WARN from the session lacks the peer; Weft logs no ERROR; every session is closed
 * afterwards; Netty reports no leak (LeakFailExtension, PARANOID); and a real producer and consumer
 * round trip through the proxy works afterwards.
 *
 * <p>For every kind of virtual cluster ({@link VirtualClusterFixture}), with one corpus captured once.
 * Where the proxy answers ApiVersions itself, the model refuses what that answer did not offer
 * ({@link Mutator.Offer}), as the proxy does, instead of what Weft does not implement; the round trip
 * afterwards uses a topic on the woven kind's second cluster.
 *
 * <p>Seed: {@code -Dweft.fuzz.seed=...} (printed at the start). It fixes every mutation choice; the
 * captured frames differ between runs in timestamps and producer ids.
 */
class ProxyFuzzTest {

    private static final int MAX_FRAME_BYTES = 1 << 20;
    /**
     * Frames per kind: 25,000 against each of the five kinds' proxies, 125,000 in all in one run (the
     * frames are CPU-bound, so this is what keeps CI in its time budget); {@code -Dweft.fuzz.frames=100000}
     * for a long run against each.
     */
    private static final long TARGET_FRAMES = Long.getLong("weft.fuzz.frames", 25_000);
    private static final int PARALLEL = 8;
    private static final Duration BUDGET = Duration.ofSeconds(70);
    private static final String TOPIC = "fuzz-t";
    private static final Pattern PEER = Pattern.compile("/127\\.0\\.0\\.1:(\\d+) \\(");

    private static Relay captureRelay;
    private static KafkaCluster kafka;
    private static VirtualClusterFixture fixture;
    /** The corpus from real clients, captured once for every kind. */
    private static List<byte[]> captured;
    private static WeftProxy proxy;
    private static InetSocketAddress bootstrap;
    /** Where the proxy sends clients for the fuzz topic's partition 0: every other connection goes there. */
    private static InetSocketAddress leader;

    @BeforeAll
    static void start() throws Exception {
        captureRelay = Relay.start("capture", null);
        kafka = KafkaCluster.builder().brokers(1)
                .listener("PLAINTEXT", SecurityProtocol.PLAINTEXT)
                .listener("CAPTURE", SecurityProtocol.PLAINTEXT)
                .advertisedAddress("CAPTURE", (id, port) -> "127.0.0.1:" + captureRelay.port())
                .brokerProperty("auto.create.topics.enable", "false")
                .brokerProperty("socket.listen.backlog.size", "1024")
                .build().start();
        captureRelay.target(KafkaWire.address(kafka.brokerAddress(0, "CAPTURE")));
        fixture = VirtualClusterFixture.over(kafka).serverSettings(", maxFrameBytes: 1MiB")
                .side(b -> b.brokerProperty("auto.create.topics.enable", "false")).build();
        captured = captureRealClients();
        fixture.declareWovenTopic(TOPIC, 3); // made here: the partition-woven kind shows only topics in its config
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        } else if (kafka != null) {
            kafka.close();
        }
        if (captureRelay != null) {
            captureRelay.close();
        }
    }

    /** What happened on one fuzz connection. */
    record Outcome(int index, int localPort, boolean handshake, boolean lockStep, Mutator.Plan plan, int written, int responses,
            boolean closedByProxy, boolean stuck, String violation) {
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void mutatedFramesNeverCrashTheProxyAndEveryRefusedConnectionIsClosedWithALogLine(VirtualClusterKind kind) throws Exception {
        // The round trip's topic is made before the fuzz, so the proxy it checks afterwards is the fuzzed
        // one (the partition-woven proxy restarts to add a topic).
        String afterFuzz = kind.name("after-fuzz");
        fixture.createSideTopic(kind, afterFuzz, 3);
        proxy = fixture.proxy(kind);
        bootstrap = fixture.bootstrapAddress(kind);
        fixture.awaitVisible(kind, TOPIC);
        // Bootstrap and broker connections differ (a woven bootstrap connection serves no partition):
        // odd connections go to the address clients are given for the partition's leader.
        leader = fixture.leaderAddress(kind, TOPIC, 0);
        long seed = Long.getLong("weft.fuzz.seed", System.nanoTime());
        System.out.printf("[fuzz %s] seed %d (rerun with -Dweft.fuzz.seed=%d)%n", kind, seed, seed);

        List<byte[]> corpus = new ArrayList<>(ProxyFuzzTest.captured);
        int captured = corpus.size();
        corpus.addAll(synthesized());
        Map<String, Long> byApi = corpus.stream().collect(Collectors.groupingBy(
                f -> ApiKeyTable.name(ByteBuffer.wrap(f).getShort(4)), TreeMap::new, Collectors.counting()));
        System.out.printf("[fuzz " + kind + "] corpus: %d frames (%d captured from real clients, %d built), by API: %s%n",
                corpus.size(), captured, corpus.size() - captured, byApi);
        assertTrue(captured >= 30, "the capturing relay saw the real clients' requests: " + captured);
        Mutator.Offer offer = null;
        if (kind.answersApiVersions()) {
            // The proxy refuses what its own ApiVersions answer did not offer: the model must know it.
            try (Socket s = new Socket()) {
                s.connect(bootstrap, 5_000);
                s.setSoTimeout(10_000);
                s.getOutputStream().write(KafkaWire.apiVersionsRequest(1));
                offer = Mutator.Offer.of(KafkaWire.checkApiVersionsResponse(KafkaWire.readFrame(s.getInputStream()), 1));
            }
        }
        Mutator mutator = new Mutator(corpus, MAX_FRAME_BYTES, offer);

        long requestsBefore = ResilientProxy.count(proxy, "weft_requests_total");
        long openedBefore = ResilientProxy.count(proxy, "weft_connections_opened_total");
        Map<String, Long> responsesBefore = responsesByApi(Map.of());
        ConcurrentLinkedQueue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
        AtomicLong thrown = new AtomicLong();
        AtomicInteger nextConnection = new AtomicInteger();
        long startNanos = System.nanoTime();
        long deadline = startNanos + BUDGET.toNanos();

        try (LogTap session = LogTap.quiet(Session.class.getName());
                LogTap weft = LogTap.of("dev.weft");
                LogTap netty = LogTap.of("io.netty");
                LogTap brokerLogs = LogTap.quiet("kafka");
                LogTap brokerLogs2 = LogTap.quiet("org.apache.kafka")) {
            ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor();
            try {
                List<Thread> workers = new ArrayList<>();
                for (int w = 0; w < PARALLEL; w++) {
                    workers.add(Thread.ofPlatform().name("fuzz-" + w).start(() -> {
                        while (thrown.get() < TARGET_FRAMES && System.nanoTime() - deadline < 0) {
                            int index = nextConnection.getAndIncrement();
                            Outcome o = runConnection(mutator, seed, index, watchdog);
                            thrown.addAndGet(o.written());
                            outcomes.add(o);
                        }
                    }));
                }
                for (Thread t : workers) {
                    t.join();
                }
            } finally {
                watchdog.shutdownNow();
            }
            long fuzzMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);

            // Every session the fuzz opened ends (none left hanging on a half-read frame or a held request).
            boolean allClosed = Poll.within(Duration.ofSeconds(20),
                    () -> ResilientProxy.count(proxy, "weft_connections_active") == 0);
            long stillActive = ResilientProxy.count(proxy, "weft_connections_active");

            List<Outcome> all = new ArrayList<>(outcomes);
            Map<Integer, Integer> portUse = new HashMap<>();
            for (Outcome o : all) {
                portUse.merge(o.localPort(), 1, Integer::sum);
            }
            // Refusals the model predicts, with the refused frame actually sent, on a port used once.
            List<Outcome> refused = all.stream().filter(o -> o.plan().refusedAt() >= 0 && o.written() > o.plan().refusedAt()
                    && portUse.get(o.localPort()) == 1).toList();
            Poll.within(Duration.ofSeconds(15), () -> {
                Set<Integer> logged = loggedPorts(session.lines());
                return refused.stream().allMatch(o -> logged.contains(o.localPort()));
            });

            List<LogTap.Line> sessionLines = session.lines();
            Map<Integer, List<LogTap.Line>> linesByPort = new HashMap<>();
            for (LogTap.Line l : sessionLines) {
                Matcher m = PEER.matcher(l.message());
                if (m.find()) {
                    linesByPort.computeIfAbsent(Integer.parseInt(m.group(1)), p -> new ArrayList<>()).add(l);
                }
            }
            List<String> failures = new ArrayList<>();
            int strictChecked = 0;
            int refusedAfterForwarding = 0;
            int closedAfterBrokerDropped = 0;
            for (Outcome o : refused) {
                List<LogTap.Line> lines = linesByPort.getOrDefault(o.localPort(), List.of());
                boolean warnedWithReason = lines.stream()
                        .anyMatch(l -> l.level() == Level.WARN && o.plan().refusal().matches(l.message()));
                // The proxy may refuse earlier than the model knows (it also parses Produce headers).
                boolean warned = lines.stream().anyMatch(l -> l.level() == Level.WARN);
                if (o.plan().framesForwarded() == 0) {
                    // Nothing was forwarded before the refused frame: the proxy alone decides, and must say why.
                    strictChecked++;
                    if (!warnedWithReason) {
                        failures.add("connection from port " + o.localPort() + " (first frame refused: " + o.plan().refusal()
                                + ") has no WARN with the reason; its lines: " + lines);
                    }
                } else {
                    refusedAfterForwarding++;
                    boolean brokerDropped = lines.stream().anyMatch(l -> l.message().contains("closed the connection"));
                    if (!warned && brokerDropped) {
                        closedAfterBrokerDropped++; // the broker refused an earlier forwarded frame first
                    } else if (!warned) {
                        failures.add("connection from port " + o.localPort() + " (frame " + o.plan().refusedAt() + " refused: "
                                + o.plan().refusal() + ") has neither a WARN with the reason nor an upstream close; its lines: " + lines);
                    }
                }
            }
            List<LogTap.Line> warns = session.lines(Level.WARN);
            List<LogTap.Line> warnsWithoutPeer = warns.stream().filter(l -> !PEER.matcher(l.message()).find()).toList();
            List<LogTap.Line> errors = new ArrayList<>(session.lines(Level.ERROR));
            errors.addAll(weft.lines(Level.ERROR));
            List<LogTap.Line> unhandled = netty.lines(l -> l.message().contains("reached at the tail of the pipeline")
                    || l.level() == Level.ERROR && !l.message().contains("LEAK"));
            List<String> violations = all.stream().filter(o -> o.violation() != null)
                    .map(o -> "port " + o.localPort() + ": " + o.violation()).toList();

            // Figures.
            long forwarded = ResilientProxy.count(proxy, "weft_requests_total") - requestsBefore;
            long opened = ResilientProxy.count(proxy, "weft_connections_opened_total") - openedBefore;
            int handshakes = (int) all.stream().filter(Outcome::handshake).count();
            int lockSteps = (int) all.stream().filter(Outcome::lockStep).count();
            long modelForwarded = all.stream().mapToLong(o -> Math.min(o.plan().framesForwarded(), o.written())).sum();
            Map<Mutator.Op, Integer> ops = new EnumMap<>(Mutator.Op.class);
            all.forEach(o -> o.plan().ops().forEach((op, n) -> ops.merge(op, n, Integer::sum)));
            Map<String, Long> warnReasons = warns.stream().collect(Collectors.groupingBy(
                    l -> reasonOf(l.message()), TreeMap::new, Collectors.counting()));
            Map<String, Double> errorKinds = new TreeMap<>(ResilientProxy.byLabel(proxy, "weft_errors_total", "error"));
            errorKinds.values().removeIf(n -> n == 0);
            System.out.printf("[fuzz " + kind + "] %d mutated frames written over %d connections (%d with an ApiVersions handshake "
                            + "first, %d of them lock-step; %d parallel) in %d ms; proxy accepted %d connections%n",
                    thrown.get(), all.size(), handshakes, lockSteps, PARALLEL, fuzzMillis, opened);
            System.out.printf("[fuzz " + kind + "] proxy forwarded %d requests (handshakes included; the model expected about %d "
                            + "mutated frames to pass its framing checks); responses received by fuzz clients: %d%n",
                    forwarded, modelForwarded, all.stream().mapToLong(Outcome::responses).sum());
            System.out.printf("[fuzz " + kind + "] responses per API (weft_responses_total during the run): %s%n", responsesByApi(responsesBefore));
            System.out.printf("[fuzz " + kind + "] mutations applied: %s%n", ops);
            System.out.printf("[fuzz " + kind + "] connections whose stream ends in a refusal: %d (%d refused at the first frame, "
                            + "checked for a WARN with the reason; %d after forwarding, %d of them closed because the broker "
                            + "dropped the upstream first); connections closed by the proxy: %d; stuck: %d%n",
                    refused.size(), strictChecked, refusedAfterForwarding, closedAfterBrokerDropped,
                    all.stream().filter(Outcome::closedByProxy).count(), all.stream().filter(Outcome::stuck).count());
            System.out.printf("[fuzz " + kind + "] session WARN lines: %d by reason %s; INFO lines: %d; weft_errors_total: %s%n",
                    warns.size(), warnReasons, session.lines(Level.INFO).size(), errorKinds);
            System.out.printf("[fuzz " + kind + "] broker log lines suppressed during the run: %d (ERROR %d)%n",
                    brokerLogs.lines().size() + brokerLogs2.lines().size(),
                    brokerLogs.lines(Level.ERROR).size() + brokerLogs2.lines(Level.ERROR).size());
            warns.stream().collect(Collectors.groupingBy(l -> reasonOf(l.message()), TreeMap::new, Collectors.toList()))
                    .values().forEach(sample -> System.out.println("[fuzz " + kind + "] sample: " + sample.get(0)));

            assertTrue(thrown.get() >= TARGET_FRAMES, "threw " + thrown.get() + " mutated frames within " + BUDGET
                    + " (target " + TARGET_FRAMES + ")");
            assertEquals(List.of(), violations.stream().limit(20).toList(), "responses the fuzz clients got");
            assertEquals(List.of(), failures.stream().limit(20).toList(), failures.size() + " refused connections without the log line");
            assertTrue(strictChecked >= 100, "enough first-frame refusals to check: " + strictChecked);
            assertEquals(List.of(), warnsWithoutPeer.stream().limit(20).toList(), "session WARN lines must name the peer");
            assertEquals(List.of(), errors.stream().limit(20).toList(), "ERROR lines from Weft");
            assertEquals(List.of(), unhandled.stream().limit(20).toList(), "exceptions Netty saw unhandled");
            assertEquals(0, all.stream().filter(Outcome::stuck).count(), "connections the proxy left open after the client finished");
            assertTrue(allClosed, "every session closed after the fuzz; still active: " + stillActive);
        }

        roundTripThroughTheProxy(kind, afterFuzz);
    }

    private static Map<String, Long> responsesByApi(Map<String, Long> before) {
        Map<String, Long> out = new TreeMap<>();
        ResilientProxy.byLabel(proxy, "weft_responses_total", "api").forEach((api, n) -> {
            long delta = n.longValue() - before.getOrDefault(api, 0L);
            if (delta > 0) {
                out.put(api, delta);
            }
        });
        return out;
    }

    private static String reasonOf(String message) {
        int colon = message.indexOf("): ");
        String rest = colon >= 0 ? message.substring(colon + 3) : message;
        return rest.replaceFirst("^[A-Za-z]+ version -?\\d+ is not supported.*", "<API> version N is not supported").replaceAll("-?\\d+", "N").replaceAll("/127\\.0\\.0\\.1:N", "ADDR").replaceAll("\\s+", " ")
                .replaceAll("(.{70}).*", "$1");
    }

    private static Set<Integer> loggedPorts(List<LogTap.Line> lines) {
        Set<Integer> ports = new HashSet<>();
        for (LogTap.Line l : lines) {
            Matcher m = PEER.matcher(l.message());
            if (m.find()) {
                ports.add(Integer.parseInt(m.group(1)));
            }
        }
        return ports;
    }

    /**
     * One fuzz connection: connect, (usually) an ApiVersions handshake so the upstream is up, then the
     * planned frames back to back while a reader checks every response, then a half-close and a wait
     * for the proxy to close.
     */
    private static Outcome runConnection(Mutator mutator, long seed, int index, ScheduledExecutorService watchdog) {
        Random random = new Random(seed * 1_000_003L + index);
        // Lock-step connections wait for each answer (up to 200 ms) before the next frame, so responses to
        // mutated requests flow back through the proxy's response path and rewriters, not only requests in.
        boolean lockStep = random.nextInt(5) == 0;
        boolean handshake = lockStep || random.nextInt(4) != 0;
        // Without a handshake frames queue until the upstream connection is up (at most 64 may).
        Mutator.Plan plan = mutator.plan(random, lockStep ? 12 : handshake ? 100 : 48);
        int written = 0;
        int port = -1;
        String[] violation = new String[1];
        AtomicInteger responses = new AtomicInteger();
        boolean[] closedByProxy = new boolean[1];
        boolean stuck = false;
        Socket socket = new Socket();
        ScheduledFuture<?> abort = watchdog.schedule(() -> abortQuietly(socket), 30, TimeUnit.SECONDS);
        try {
            socket.setTcpNoDelay(true);
            socket.connect(index % 2 == 0 ? bootstrap : leader, 5_000);
            socket.setSoTimeout(15_000);
            port = socket.getLocalPort();
            OutputStream out = socket.getOutputStream();
            if (handshake) {
                int correlationId = 0x5eed0000 + (index & 0xffff);
                out.write(KafkaWire.apiVersionsRequest(correlationId));
                try {
                    KafkaWire.checkApiVersionsResponse(KafkaWire.readFrame(socket.getInputStream()), correlationId);
                } catch (AssertionError | IOException e) {
                    violation[0] = "handshake: " + e;
                }
            }
            List<Integer> expected = plan.forwardedCorrelationIds();
            Thread reader = Thread.ofVirtual().start(() -> {
                try (DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 16 * 1024))) {
                    int next = 0;
                    while (true) {
                        int size = in.readInt();
                        if (size < 4 || size > MAX_FRAME_BYTES * 64) {
                            violation[0] = "response frame of " + size + " bytes";
                            return;
                        }
                        int correlationId = in.readInt();
                        in.skipNBytes(size - 4);
                        while (next < expected.size() && expected.get(next) != correlationId) {
                            next++;
                        }
                        if (next == expected.size()) {
                            violation[0] = "response with correlation id " + correlationId
                                    + " answers none of the outstanding requests in order " + expected;
                            return;
                        }
                        next++;
                        responses.incrementAndGet();
                    }
                } catch (EOFException e) {
                    closedByProxy[0] = true;
                } catch (SocketTimeoutException e) {
                    // reported as stuck below
                } catch (IOException e) {
                    closedByProxy[0] = true; // reset by the proxy
                }
            });
            for (byte[] chunk : plan.chunks()) {
                try {
                    out.write(chunk);
                    written++;
                } catch (IOException e) {
                    break; // the proxy closed the connection
                }
                if (lockStep) {
                    int before = responses.get();
                    Poll.within(Duration.ofMillis(200), () -> responses.get() > before || !reader.isAlive());
                    if (!reader.isAlive()) {
                        break;
                    }
                }
            }
            if (plan.refusedAt() < 0) {
                // Nothing to refuse: the client ends the conversation. (A stream ending in a refusal is left
                // open: the proxy must close it by itself, and a half-close could beat a refusal still queued
                // behind an upstream connect.)
                try {
                    socket.shutdownOutput();
                } catch (IOException e) {
                    // already closed
                }
            }
            if (!reader.join(Duration.ofSeconds(20))) {
                stuck = true;
            } else if (!closedByProxy[0] && violation[0] == null) {
                stuck = true; // read timed out: the proxy neither answered nor closed
            }
        } catch (IOException e) {
            violation[0] = "connect: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            abort.cancel(false);
            abortQuietly(socket);
        }
        return new Outcome(index, port, handshake, lockStep, plan, written, responses.get(), closedByProxy[0], stuck, violation[0]);
    }

    private static void abortQuietly(Socket socket) {
        try {
            if (!socket.isClosed()) {
                socket.setSoLinger(true, 0);
            }
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    /** Runs real clients against the broker through the capturing relay and returns their request frames. */
    private static List<byte[]> captureRealClients() throws Exception {
        captureRelay.capture(true);
        String via = "127.0.0.1:" + captureRelay.port();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, via))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
            kafka.awaitLeaders(TOPIC, 3);
            admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
            admin.listTopics().names().get(30, TimeUnit.SECONDS);
            admin.describeTopics(List.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS);
            admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, TOPIC),
                    new ConfigResource(ConfigResource.Type.BROKER, "0"))).all().get(30, TimeUnit.SECONDS);
            int n = 0;
            for (String compression : List.of("none", "gzip", "lz4")) {
                for (String acks : List.of("all", "1", "0")) {
                    Properties p = new Properties();
                    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, via);
                    p.put(ProducerConfig.ACKS_CONFIG, acks);
                    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, acks.equals("all"));
                    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
                    p.put(ProducerConfig.LINGER_MS_CONFIG, 2);
                    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                            new ByteArraySerializer())) {
                        Random r = new Random(n);
                        for (int i = 0; i < 40; i++, n++) {
                            byte[] value = new byte[10 + r.nextInt(1500)];
                            r.nextBytes(value);
                            ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(TOPIC, null, ("k" + n).getBytes(), value);
                            record.headers().add("h", ("v" + n).getBytes());
                            producer.send(record);
                        }
                        producer.flush();
                    }
                }
            }
            for (GroupProtocol protocol : List.of(GroupProtocol.CLASSIC, GroupProtocol.CONSUMER)) {
                Properties c = new Properties();
                c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, via);
                c.put(ConsumerConfig.GROUP_ID_CONFIG, "fuzz-" + protocol.name().toLowerCase());
                c.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol.name());
                c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
                c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
                try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(),
                        new ByteArrayDeserializer())) {
                    consumer.subscribe(List.of(TOPIC));
                    int got = 0;
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (got < 100 && System.nanoTime() - until < 0) {
                        for (ConsumerRecord<byte[], byte[]> ignored : consumer.poll(Duration.ofMillis(200))) {
                            got++;
                        }
                    }
                    consumer.commitSync();
                }
            }
            admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS);
            admin.describeConsumerGroups(List.of("fuzz-classic", "fuzz-consumer")).all().get(30, TimeUnit.SECONDS);
            admin.listConsumerGroupOffsets("fuzz-classic").partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < 3; p++) {
                latest.put(new TopicPartition(TOPIC, p), OffsetSpec.latest());
            }
            admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS);
        } finally {
            captureRelay.capture(false);
        }
        List<byte[]> frames = new ArrayList<>();
        Set<ByteBuffer> seen = new HashSet<>();
        for (byte[] f : captureRelay.captured()) {
            short key = ByteBuffer.wrap(f).getShort(4);
            if (Mutator.SAFE_KEYS.contains(key) && f.length <= 64 * 1024 && seen.add(ByteBuffer.wrap(f))) {
                frames.add(f);
            }
        }
        return frames;
    }

    /** An empty message of every safe API at every version Weft implements (those kafka-clients can write). */
    private static List<byte[]> synthesized() {
        List<byte[]> frames = new ArrayList<>();
        for (short key : new java.util.TreeSet<>(Mutator.SAFE_KEYS)) {
            if (!ApiKeyTable.isKnownKey(key) || ApiKeyTable.latestVersion(key) < 0) {
                continue;
            }
            for (short v = ApiKeyTable.oldestVersion(key); v <= ApiKeyTable.latestVersion(key); v++) {
                try {
                    ApiMessage body = ApiMessageType.fromApiKey(key).newRequest();
                    frames.add(KafkaWire.request(ApiKeys.forId(key), v, 1000 + v, "weft-fuzz", body));
                } catch (RuntimeException e) {
                    // an empty message that cannot be written at this version
                }
            }
        }
        return frames;
    }

    /** After the fuzz: a real idempotent producer and a consumer through the proxy, every record checked. */
    private static void roundTripThroughTheProxy(VirtualClusterKind kind, String topic) throws Exception {
        String via = ResilientProxy.bootstrap(proxy);
        int records = 2_000;
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, via);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<java.util.concurrent.Future<?>> acks = new ArrayList<>();
            for (int i = 0; i < records; i++) {
                acks.add(producer.send(new ProducerRecord<>(topic, ("k" + i).getBytes(), ("v" + i).getBytes())));
            }
            for (java.util.concurrent.Future<?> a : acks) {
                a.get(60, TimeUnit.SECONDS);
            }
        }
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, via);
        c.put(ConsumerConfig.GROUP_ID_CONFIG, kind.name("after-fuzz"));
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        Map<String, String> seen = new ConcurrentHashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            Poll.until(Duration.ofSeconds(60), "every record of the round trip through the proxy", () -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    seen.merge(new String(r.key()), new String(r.value()), (a, b) -> a + "|" + b);
                }
                return seen.size() >= records;
            }, () -> seen.size() + " of " + records);
        }
        for (int i = 0; i < records; i++) {
            assertEquals("v" + i, seen.get("k" + i), "record k" + i + " once, unchanged");
        }
        // Both event loops still accept and answer.
        for (int i = 0; i < 8; i++) {
            try (Socket s = new Socket()) {
                s.connect(bootstrap, 5_000);
                s.setSoTimeout(10_000);
                s.getOutputStream().write(KafkaWire.apiVersionsRequest(i));
                KafkaWire.checkApiVersionsResponse(KafkaWire.readFrame(s.getInputStream()), i);
            }
        }
        System.out.printf("[fuzz " + kind + "] after the fuzz: %d records produced and consumed through the proxy, each once and "
                + "unchanged; 8 fresh connections answered ApiVersions%n", records);
    }
}
