package dev.weft.proxy.resilience;

import dev.weft.proxy.testing.Poll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.VirtualClusterFixture;
import dev.weft.proxy.testing.VirtualClusterKind;
import dev.weft.testkit.KafkaCluster;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * 2,000 client connections held open at once, every one served: each gets a correct ApiVersions
 * answer when it opens and again after a real produce/consume ran through the proxy beside them; for
 * every kind of virtual cluster ({@link VirtualClusterFixture}).
 *
 * <p>Reports the process's resident set size before, with all connections open, and after they close.
 * The proxy runs inside the test JVM, together with the embedded broker and the test's own 2,000
 * sockets, so the figures are the whole process's: where the proxy forwards ApiVersions (pass-through)
 * each proxied connection costs four descriptors in this JVM (test socket, proxy client side, proxy
 * upstream side, broker side); where the proxy answers it itself, two (no upstream connection is opened
 * for a client that asked nothing else).
 */
class ManyConnectionsTest {

    private static final int CONNECTIONS = Integer.getInteger("weft.resilience.connections", 2_000);
    private static final int OPENERS = 16;

    private static VirtualClusterFixture fixture;
    private static KafkaCluster kafka;
    private static WeftProxy proxy;
    private static InetSocketAddress bootstrap;

    @BeforeAll
    static void start() throws Exception {
        kafka = KafkaCluster.builder().brokers(1)
                .brokerProperty("socket.listen.backlog.size", "4096")
                .build().start();
        fixture = VirtualClusterFixture.over(kafka).side(b -> b.brokerProperty("socket.listen.backlog.size", "4096")).build();
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void twoThousandConnectionsAreHeldOpenAndEveryOneIsServed(VirtualClusterKind kind) throws Exception {
        String topic = kind.name("many");
        fixture.createSideTopic(kind, topic, 3); // first: the partition-woven proxy restarts to add a topic
        proxy = fixture.proxy(kind);
        bootstrap = fixture.bootstrapAddress(kind);
        roundTrip(topic, 100); // warm up clients, proxy and broker before the baseline
        Poll.until(Duration.ofSeconds(20), "the warm-up clients' connections to close",
                () -> ResilientProxy.count(proxy, "weft_connections_active") == 0);
        long rssBefore = ProcessStats.rssKiB();
        long fdsBefore = ProcessStats.openFileDescriptors();
        long directBefore = ProcessStats.proxyPoolDirectBytes();

        Socket[] sockets = new Socket[CONNECTIONS];
        ExecutorService openers = Executors.newFixedThreadPool(OPENERS);
        long openStart = System.nanoTime();
        try {
            List<Future<?>> opened = new ArrayList<>();
            for (int i = 0; i < CONNECTIONS; i++) {
                int index = i;
                opened.add(openers.submit(() -> {
                    Socket s = new Socket();
                    sockets[index] = s;
                    s.setTcpNoDelay(true);
                    s.connect(bootstrap, 10_000);
                    s.setSoTimeout(30_000);
                    askApiVersions(s, index);
                    return null;
                }));
            }
            for (Future<?> f : opened) {
                f.get(120, TimeUnit.SECONDS);
            }
            long openMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - openStart);
            Poll.until(Duration.ofSeconds(30), CONNECTIONS + " active client connections in the proxy's gauge",
                    () -> ResilientProxy.count(proxy, "weft_connections_active") == CONNECTIONS,
                    () -> "active: " + ResilientProxy.count(proxy, "weft_connections_active"));
            long rssOpen = ProcessStats.rssKiB();
            long fdsOpen = ProcessStats.openFileDescriptors();
            long directOpen = ProcessStats.proxyPoolDirectBytes();

            // Real traffic beside them.
            long trafficStart = System.nanoTime();
            roundTrip(topic, 5_000);
            long trafficMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - trafficStart);

            // Every held connection is still open and served.
            List<Future<?>> again = new ArrayList<>();
            for (int i = 0; i < CONNECTIONS; i++) {
                int index = i;
                again.add(openers.submit(() -> {
                    askApiVersions(sockets[index], CONNECTIONS + index);
                    return null;
                }));
            }
            for (Future<?> f : again) {
                f.get(120, TimeUnit.SECONDS);
            }
            long rssServed = ProcessStats.rssKiB();

            for (Socket s : sockets) {
                s.close();
            }
            Poll.until(Duration.ofSeconds(30), "every held connection to be closed in the proxy",
                    () -> ResilientProxy.count(proxy, "weft_connections_active") == 0,
                    () -> "active: " + ResilientProxy.count(proxy, "weft_connections_active"));
            long rssClosed = ProcessStats.rssKiB();
            long fdsAtGaugeZero = ProcessStats.openFileDescriptors();
            // The proxy's upstream sockets and the broker's ends close asynchronously after the clients go.
            long closeStart = System.nanoTime();
            boolean fdsBack = Poll.within(Duration.ofSeconds(30), () -> ProcessStats.openFileDescriptors() <= fdsBefore + 50);
            long fdsClosed = ProcessStats.openFileDescriptors();
            long fdsBackMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closeStart);

            System.out.printf("[connections " + kind + "] %d raw client connections opened and answered (ApiVersions v3) in %d ms "
                    + "(%d openers); proxy gauge weft_connections_active = %d%n", CONNECTIONS, openMillis, OPENERS, CONNECTIONS);
            System.out.printf("[connections " + kind + "] with all of them open: 5,000 records produced and consumed through the proxy "
                    + "in %d ms, then every held connection answered ApiVersions again%n", trafficMillis);
            System.out.printf("[connections " + kind + "] RSS of the test JVM (proxy + embedded broker + the test's sockets): before %d MiB, "
                            + "all open %d MiB (+%d MiB, %.1f KiB per proxied connection), after traffic %d MiB, "
                            + "after closing %d MiB%n",
                    rssBefore / 1024, rssOpen / 1024, (rssOpen - rssBefore) / 1024,
                    (rssOpen - rssBefore) / (double) CONNECTIONS, rssServed / 1024, rssClosed / 1024);
            System.out.printf("[connections " + kind + "] file descriptors: before %d, all open %d (+%d, %.1f per proxied connection; "
                            + "limit here 20,000), when the proxy's gauge reached 0 %d, %d ms later %d; proxy pool direct "
                            + "memory: before %s, all open %s%n",
                    fdsBefore, fdsOpen, fdsOpen - fdsBefore, (fdsOpen - fdsBefore) / (double) CONNECTIONS, fdsAtGaugeZero,
                    fdsBackMillis, fdsClosed,
                    ProcessStats.mib(directBefore), ProcessStats.mib(directOpen));
            assertTrue(fdsBack, "every descriptor of the closed connections is released: before " + fdsBefore + ", now " + fdsClosed
                    + " " + socketSummary());
            if (kind.answersApiVersions()) {
                // The proxy answered every ApiVersions itself: a client that asked nothing else costs no
                // upstream connection (test socket and proxy client side only).
                assertTrue(fdsOpen - fdsBefore >= 2L * CONNECTIONS && fdsOpen - fdsBefore < 3L * CONNECTIONS,
                        "test sockets and proxy client sides open, no upstream connection per client: " + (fdsOpen - fdsBefore));
            } else {
                // Pass-through forwards ApiVersions over each connection's own broker connection.
                assertTrue(fdsOpen - fdsBefore >= 3L * CONNECTIONS,
                        "test sockets, proxy client and upstream sides are all open: " + (fdsOpen - fdsBefore));
            }
        } finally {
            openers.shutdownNow();
            for (Socket s : sockets) {
                if (s != null) {
                    s.close();
                }
            }
        }
    }

    /** Which TCP sockets this process still holds, by local and remote port (from /proc/net/tcp), for a failure message. */
    private static String socketSummary() {
        try {
            java.util.Set<String> inodes = new java.util.HashSet<>();
            try (var fds = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/fd"))) {
                fds.forEach(fd -> {
                    try {
                        String target = java.nio.file.Files.readSymbolicLink(fd).toString();
                        if (target.startsWith("socket:[")) {
                            inodes.add(target.substring(8, target.length() - 1));
                        }
                    } catch (IOException ignored) {
                        // closed meanwhile
                    }
                });
            }
            Map<String, Integer> byPorts = new java.util.TreeMap<>();
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/net/tcp"))) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 9 && inodes.contains(f[9])) {
                    int local = Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1), 16);
                    int remote = Integer.parseInt(f[2].substring(f[2].indexOf(':') + 1), 16);
                    String key = (local == bootstrap.getPort() ? "proxy-bootstrap" : local < 32768 ? "listen-" + local : "ephemeral")
                            + "->" + (remote == bootstrap.getPort() ? "proxy-bootstrap" : remote == 0 ? "-" : remote < 32768 ? "port-" + remote : "ephemeral")
                            + " st" + f[3];
                    byPorts.merge(key, 1, Integer::sum);
                }
            }
            return "sockets by (local->remote, state): " + byPorts + ", broker at " + kafka.bootstrapServers();
        } catch (IOException e) {
            return "(cannot list sockets: " + e + ")";
        }
    }

    private static void askApiVersions(Socket s, int correlationId) throws IOException {
        s.getOutputStream().write(KafkaWire.apiVersionsRequest(correlationId));
        KafkaWire.checkApiVersionsResponse(KafkaWire.readFrame(s.getInputStream()), correlationId);
    }

    /** Produces {@code records} through the proxy (idempotent, acks=all) and consumes them back, each once. */
    private static void roundTrip(String topic, int records) throws Exception {
        String via = ResilientProxy.bootstrap(proxy);
        String run = Long.toString(System.nanoTime(), 36);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, via);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<Future<?>> acks = new ArrayList<>();
            for (int i = 0; i < records; i++) {
                acks.add(producer.send(new ProducerRecord<>(topic, (run + "-" + i).getBytes(), ("v" + i).getBytes())));
            }
            for (Future<?> a : acks) {
                a.get(60, TimeUnit.SECONDS);
            }
        }
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, via);
        c.put(ConsumerConfig.GROUP_ID_CONFIG, "many-" + run);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        Map<String, Integer> seen = new ConcurrentHashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            Poll.until(Duration.ofSeconds(60), records + " records of run " + run + " through the proxy", () -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    String key = new String(r.key());
                    if (key.startsWith(run + "-")) {
                        seen.merge(key, 1, Integer::sum);
                    }
                }
                return seen.size() >= records;
            }, () -> seen.size() + " of " + records);
        }
        for (int i = 0; i < records; i++) {
            assertEquals(1, seen.getOrDefault(run + "-" + i, 0), "record " + i + " of run " + run + " exactly once");
        }
    }
}
