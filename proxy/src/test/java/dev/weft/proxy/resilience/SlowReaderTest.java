package dev.weft.proxy.resilience;

import dev.weft.proxy.testing.Poll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.VirtualClusterFixture;
import dev.weft.proxy.testing.VirtualClusterKind;
import dev.weft.testkit.KafkaCluster;
import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A client that sends and never reads: it pipelines requests as fast as its socket takes them and
 * reads nothing, either Fetch requests answered with about 1 MiB of records each, or Metadata
 * requests (whose answers the proxy rewrites into buffers of its own). Backpressure must throttle and
 * then stop the proxy reading from it once its responses back up (so its writes stall), the proxy's
 * direct memory must stay bounded however much it asked for, and everyone else must be served
 * meanwhile.
 *
 * <p>What piles up: responses in the socket buffers towards the client until the client channel is
 * unwritable, which stops reads from the broker; the broker then stops reading requests, and the
 * requests the proxy already forwarded wait in the socket buffers towards the broker (megabytes)
 * until the upstream channel is unwritable, which stops reads from the client. The proxy's own
 * buffers stay at a few MiB; its in-flight table holds an entry per forwarded request (tens of
 * thousands here, printed), bounded by those socket buffers rather than by a setting.
 *
 * <p>For every kind of virtual cluster ({@link VirtualClusterFixture}). The stuck client's Fetches go to
 * the address the proxy gives for the big partition's leader, as a real consumer's would (a woven
 * bootstrap connection serves no partition); the others' round trip uses a topic on the woven kind's
 * second cluster.
 */
class SlowReaderTest {

    private static final String BIG = "big";
    private static final int PARTITION_MAX_BYTES = 1 << 20;
    /** What the proxy's buffer pool may grow by for one stuck client: a few responses in flight, not all it asked for. */
    private static final long BOUND_BYTES = 64L << 20;
    /** Past this the test stops the client at once instead of letting the JVM run out of direct memory. */
    private static final long ABORT_BYTES = 512L << 20;

    private static VirtualClusterFixture fixture;
    private static KafkaCluster kafka;
    private static WeftProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        kafka = KafkaCluster.builder().brokers(1).build().start();
        fixture = VirtualClusterFixture.over(kafka).build();
        kafka.createTopic(BIG, 1, 1);
        fixture.declareWovenTopic(BIG, 1); // made here: the partition-woven kind shows only topics in its config
        Map<String, Object> config = kafka.producerConfig();
        config.put(ProducerConfig.ACKS_CONFIG, "1");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            byte[] value = new byte[8 * 1024];
            for (int i = 0; i < 2_048; i++) { // 16 MiB
                producer.send(new ProducerRecord<>(BIG, value));
            }
            producer.flush();
        }
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void aClientPipeliningFetchesItNeverReadsIsThrottledWithBoundedMemoryAndOthersAreServed(VirtualClusterKind kind)
            throws Exception {
        use(kind, "Fetch");
        neverReads(kind, "Fetch", SlowReaderTest::fetch, PARTITION_MAX_BYTES, fixture.leaderAddress(kind, BIG, 0));
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void aClientPipeliningMetadataItNeverReadsIsThrottledWithBoundedMemoryAndOthersAreServed(VirtualClusterKind kind)
            throws Exception {
        use(kind, "Metadata");
        // Metadata responses are rewritten (broker addresses) or built by the proxy, so each is a new buffer of the proxy's.
        neverReads(kind, "Metadata", SlowReaderTest::metadata, 0, fixture.bootstrapAddress(kind));
    }

    /**
     * Makes the topic the others' round trip uses beside the stuck client ({@link #beside}), then takes
     * the kind's proxy: made first, as the partition-woven proxy restarts to add a topic.
     */
    private static void use(VirtualClusterKind kind, String api) {
        fixture.createSideTopic(kind, beside(kind, api), 2);
        proxy = fixture.proxy(kind);
        fixture.awaitVisible(kind, BIG);
    }

    /**
     * Pipelines {@code api} requests from one client that reads nothing until its socket takes no more
     * for 2 s, checks others are served meanwhile, pushes 3 s more, and checks the proxy's memory.
     *
     * @param responseBytes about how big each answer is (0: small)
     * @param target where the stuck client connects (the leader's address for a Fetch)
     */
    private static void neverReads(VirtualClusterKind kind, String api, IntFunction<byte[]> request, long responseBytes,
            InetSocketAddress target) throws Exception {
        InetSocketAddress bootstrap = ResilientProxy.bootstrapAddress(proxy);
        String tag = "[slow-reader " + kind + " " + api + "]";
        String beside = beside(kind, api);
        long poolBefore = ProcessStats.proxyPoolDirectBytes();
        long nettyBefore = PlatformDependent.usedDirectMemory();
        double forwardedBefore = ResilientProxy.metric(proxy, "weft_requests_total", Map.of("api", api));
        double answeredBefore = ResilientProxy.metric(proxy, "weft_responses_total", Map.of("api", api));

        int frameLength = request.apply(0).length;
        long bytesWritten = 0;
        long requestsWritten = 0;
        long poolPeak = poolBefore;
        long poolAtStall;
        long poolPeakAfterStall = 0;
        long stallAfterMillis;
        try (SocketChannel stuck = SocketChannel.open()) {
            // Small socket buffers on the client's end, so what piles up is on the proxy's side of the pipe
            // (the proxy's and the broker's socket buffers are untouched).
            stuck.setOption(StandardSocketOptions.SO_RCVBUF, 16 * 1024);
            stuck.setOption(StandardSocketOptions.SO_SNDBUF, 16 * 1024);
            stuck.connect(target);
            stuck.configureBlocking(false);
            long t0 = System.nanoTime();
            long lastProgress = System.nanoTime();
            ByteBuffer current = null;
            long lastReport = t0;
            List<String> progress = new ArrayList<>();
            // Write until the socket has taken nothing for 2 s and the proxy has taken no request for 2 s: it
            // stopped reading. A proxy that is only slow (a starved machine) still takes requests from its
            // socket buffer meanwhile, and that is not the stall this test is after.
            double forwardedSeen = -1;
            long lastForwardChange = System.nanoTime();
            long lastForwardCheck = 0;
            while (System.nanoTime() - lastProgress < TimeUnit.SECONDS.toNanos(2)
                    || System.nanoTime() - lastForwardChange < TimeUnit.SECONDS.toNanos(2)) {
                if (System.nanoTime() - lastForwardCheck > TimeUnit.MILLISECONDS.toNanos(100)) {
                    lastForwardCheck = System.nanoTime();
                    double forwarded = ResilientProxy.metric(proxy, "weft_requests_total", Map.of("api", api));
                    if (forwarded != forwardedSeen) {
                        forwardedSeen = forwarded;
                        lastForwardChange = lastForwardCheck;
                    }
                }
                if (current == null || !current.hasRemaining()) {
                    current = batch(request, (int) (bytesWritten / frameLength), frameLength);
                }
                int n = stuck.write(current);
                if (n > 0) {
                    lastProgress = System.nanoTime();
                    bytesWritten += n;
                    requestsWritten = bytesWritten / frameLength;
                } else {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2)); // the socket is full: look again shortly
                }
                poolPeak = Math.max(poolPeak, checkedPool(stuck));
                if (System.nanoTime() - lastReport > 2_000_000_000L) {
                    lastReport = System.nanoTime();
                    progress.add(String.format("%ds: %d KiB/%.0f/%.0f", (lastReport - t0) / 1_000_000_000L, bytesWritten >> 10,
                            ResilientProxy.metric(proxy, "weft_requests_total", Map.of("api", api)) - forwardedBefore,
                            ResilientProxy.metric(proxy, "weft_responses_total", Map.of("api", api)) - answeredBefore));
                }
                assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(60), "the proxy never stopped reading: "
                        + requestsWritten + " requests written in 60 s, pool " + ProcessStats.mib(poolPeak));
            }
            stallAfterMillis = TimeUnit.NANOSECONDS.toMillis(lastProgress - t0);
            poolAtStall = ProcessStats.proxyPoolDirectBytes();
            double forwardedAtStall = ResilientProxy.metric(proxy, "weft_requests_total", Map.of("api", api)) - forwardedBefore;
            double answeredAtStall = ResilientProxy.metric(proxy, "weft_responses_total", Map.of("api", api)) - answeredBefore;

            // Everyone else is served while it is stuck: fresh connections on both event loops, and real clients.
            long others0 = System.nanoTime();
            for (int i = 0; i < 8; i++) {
                try (Socket s = new Socket()) {
                    s.connect(bootstrap, 5_000);
                    s.setSoTimeout(10_000);
                    s.getOutputStream().write(KafkaWire.apiVersionsRequest(i));
                    KafkaWire.checkApiVersionsResponse(KafkaWire.readFrame(s.getInputStream()), i);
                }
            }
            long rawMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - others0);
            long roundTrip0 = System.nanoTime();
            roundTrip(beside, 2_000);
            long roundTripMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - roundTrip0);

            // Still stuck, still bounded: keep pushing for 3 more seconds.
            long more = 0;
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (System.nanoTime() - until < 0) {
                if (!current.hasRemaining()) {
                    current = batch(request, (int) (bytesWritten / frameLength), frameLength);
                }
                int n = stuck.write(current);
                if (n > 0) {
                    more += n;
                } else {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
                }
                poolPeakAfterStall = Math.max(poolPeakAfterStall, checkedPool(stuck));
            }
            double forwardedAfter = ResilientProxy.metric(proxy, "weft_requests_total", Map.of("api", api)) - forwardedBefore;
            double answeredAfter = ResilientProxy.metric(proxy, "weft_responses_total", Map.of("api", api)) - answeredBefore;
            poolPeak = Math.max(poolPeak, poolPeakAfterStall);

            System.out.printf("%s the client wrote %d requests%s before its socket stalled after %d ms; the proxy had "
                            + "forwarded %.0f (the rest wait in socket buffers) and returned %.0f responses to it, the "
                            + "difference being requests it tracks as in flight; 3 s later %d more bytes were taken, "
                            + "%.0f forwarded, %.0f returned%n",
                    tag, requestsWritten, responseBytes > 0 ? " (each answered with ~" + ProcessStats.mib(responseBytes)
                            + ": ~" + requestsWritten * responseBytes / (1L << 30) + " GiB asked for)" : "",
                    stallAfterMillis, forwardedAtStall, answeredAtStall, more, forwardedAfter, answeredAfter);
            System.out.printf("%s progress every 2 s (bytes the client's socket took / requests forwarded / answered): %s%n",
                    tag, progress);
            System.out.printf("%s proxy buffer pool direct memory: before %s, at the stall %s, peak %s (bound %s); "
                            + "Netty direct memory before %s, now %s%n", tag,
                    ProcessStats.mib(poolBefore), ProcessStats.mib(poolAtStall), ProcessStats.mib(poolPeak),
                    ProcessStats.mib(BOUND_BYTES), ProcessStats.mib(nettyBefore), ProcessStats.mib(PlatformDependent.usedDirectMemory()));
            System.out.printf("%s while it was stuck: 8 new connections answered ApiVersions in %d ms; 2,000 records "
                    + "produced and consumed through the proxy in %d ms%n", tag, rawMillis, roundTripMillis);

            if (responseBytes > 0) {
                assertTrue(requestsWritten * responseBytes > 8 * BOUND_BYTES,
                        "the client asked for far more than the bound: " + requestsWritten + " requests");
            }
            assertTrue(poolPeak - poolBefore <= BOUND_BYTES, "proxy direct memory grew by " + ProcessStats.mib(poolPeak - poolBefore)
                    + " for one client that never reads (bound " + ProcessStats.mib(BOUND_BYTES) + ")");
            // How many answers fit in the socket buffers towards the client depends on the kernel's buffer
            // autotuning and the answer size; what must hold is that not every request got one.
            assertTrue(answeredAfter < requestsWritten, "the proxy stopped answering into a full socket: answered "
                    + answeredAfter + " of " + requestsWritten);
            assertTrue(forwardedAfter - forwardedAtStall <= 0.01 * forwardedAtStall + 2,
                    "hardly any request forwarded while stalled: " + forwardedAtStall + " -> " + forwardedAfter);
        }
        Poll.until(Duration.ofSeconds(20), "the stuck client's session to close",
                () -> ResilientProxy.count(proxy, "weft_connections_active") == 0);
        Poll.until(Duration.ofSeconds(20), "the proxy's pool to give back what the stuck client held",
                () -> ProcessStats.proxyPoolDirectBytes() - poolBefore <= 16L << 20,
                () -> ProcessStats.mib(ProcessStats.proxyPoolDirectBytes()));
        System.out.printf("%s after the client closed: pool %s%n", tag, ProcessStats.mib(ProcessStats.proxyPoolDirectBytes()));
    }

    private static String beside(VirtualClusterKind kind, String api) {
        return kind.name("beside-" + api.toLowerCase(java.util.Locale.ROOT));
    }

    /** The proxy pool's direct memory; aborts the stuck client before the JVM runs out of direct memory. */
    private static long checkedPool(SocketChannel stuck) {
        long used = ProcessStats.proxyPoolDirectBytes();
        if (used > ABORT_BYTES) {
            try {
                stuck.setOption(StandardSocketOptions.SO_LINGER, 0);
                stuck.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            throw new AssertionError("proxy direct memory reached " + ProcessStats.mib(used)
                    + " for one client that never reads: unbounded");
        }
        return used;
    }

    /** Requests back to back, about 64 KiB of them, so the client writes in big chunks. */
    private static ByteBuffer batch(IntFunction<byte[]> request, int firstCorrelationId, int frameLength) {
        int count = Math.max(1, (64 * 1024) / frameLength);
        ByteBuffer out = ByteBuffer.allocate(count * frameLength);
        for (int i = 0; i < count; i++) {
            out.put(request.apply(firstCorrelationId + i));
        }
        return out.flip();
    }

    /** Metadata v12 for every topic. */
    private static byte[] metadata(int correlationId) {
        return KafkaWire.request(ApiKeys.METADATA, (short) 12, correlationId, "never-reads",
                new MetadataRequestData().setTopics(null).setAllowAutoTopicCreation(false));
    }

    /** Fetch v12 for partition 0 of the big topic from offset 0, up to 1 MiB, no wait. */
    private static byte[] fetch(int correlationId) {
        FetchRequestData data = new FetchRequestData()
                .setReplicaId(-1)
                .setMaxWaitMs(0)
                .setMinBytes(1)
                .setMaxBytes(PARTITION_MAX_BYTES)
                .setIsolationLevel((byte) 0)
                .setSessionId(0)
                .setSessionEpoch(-1)
                .setTopics(List.of(new FetchRequestData.FetchTopic().setTopic(BIG).setPartitions(List.of(
                        new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
                                .setLogStartOffset(-1).setPartitionMaxBytes(PARTITION_MAX_BYTES)))));
        return KafkaWire.request(ApiKeys.FETCH, (short) 12, correlationId, "never-reads", data);
    }

    private static void roundTrip(String topic, int records) throws Exception {
        String via = ResilientProxy.bootstrap(proxy);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, via);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<Future<?>> acks = new ArrayList<>();
            for (int i = 0; i < records; i++) {
                acks.add(producer.send(new ProducerRecord<>(topic, ("k" + i).getBytes(), ("v" + i).getBytes())));
            }
            for (Future<?> a : acks) {
                a.get(30, TimeUnit.SECONDS);
            }
        }
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, via);
        c.put(ConsumerConfig.GROUP_ID_CONFIG, "beside-the-stuck-one");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        Map<String, Integer> seen = new ConcurrentHashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            Poll.until(Duration.ofSeconds(30), "the records produced beside the stuck client", () -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    seen.merge(new String(r.key()) + "=" + new String(r.value()), 1, Integer::sum);
                }
                return seen.size() >= records;
            }, () -> seen.size() + " of " + records);
        }
        for (int i = 0; i < records; i++) {
            assertEquals(1, seen.getOrDefault("k" + i + "=v" + i, 0), "record " + i + " exactly once");
        }
    }
}
