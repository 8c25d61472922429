package dev.weft.soak.footprint;

import dev.weft.soak.common.Args;
import dev.weft.soak.common.ProcStat;
import dev.weft.soak.common.WeftProcess;
import dev.weft.testkit.KafkaCluster;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * What one client connection costs Weft in resident memory, idle and with a request in flight.
 *
 * <p>One forked broker, Weft in its own process (mirrored pass-through, the launcher's JVM options unless
 * {@code --weft-jvm-opts} says otherwise). The tool opens {@code --connections} plain sockets to Weft and
 * on each does what a client does before it goes quiet: ApiVersions, then Metadata for one topic (which
 * opens the session's upstream link, so the idle figure includes the proxy's broker-side connection).
 * <em>Idle</em> = (RSS after − RSS before) / connections, both read after a full GC in Weft
 * ({@code jcmd PID GC.run}) and a settle pause. Then every connection sends a long-polling Fetch
 * (max wait {@code --fetch-wait}, an empty partition, so the broker holds it):
 * <em>active</em> = (RSS while they wait, read the same way − RSS before) / connections.
 *
 * <p>RSS counts heap the collector keeps committed after it has grown, so the tool also prints the live
 * Java heap per connection ({@code jcmd PID GC.class_histogram}, which collects first) and the classes
 * that make it up, the profile of where a connection's bytes go, and Weft's buffer pool
 * ({@code weft_buffer_pool_bytes{state="allocated"|"in_use"}} from its {@code /metrics}: direct memory
 * held from the OS, and taken by live buffers) at the same three moments.
 */
public final class ConnectionFootprint {

    private static final String TOPIC = "footprint";
    private static final String CLIENT_ID = "footprint";

    private ConnectionFootprint() {
    }

    private static final Set<String> OPTIONS = Set.of("connections", "weft-jvm-opts", "fetch-wait", "settle");

    public static void main(String[] argv) throws Exception {
        int connections;
        int fetchWaitMs;
        long settleMs;
        List<String> jvmOpts;
        try {
            if (List.of(argv).contains("--help")) {
                throw new IllegalArgumentException("options:");
            }
            Args a = new Args(argv, Set.of());
            a.requireOnly(OPTIONS);
            connections = a.integer("connections", 1000);
            fetchWaitMs = (int) a.duration("fetch-wait", java.time.Duration.ofSeconds(15)).toMillis();
            settleMs = a.duration("settle", java.time.Duration.ofSeconds(3)).toMillis();
            if (connections < 1 || fetchWaitMs < 1 || settleMs < 0) {
                throw new IllegalArgumentException("--connections and --fetch-wait must be positive, --settle not negative");
            }
            jvmOpts = WeftProcess.launcherJvmOptions(a.get("weft-jvm-opts", null));
        } catch (IllegalArgumentException e) {
            System.err.println("footprint: " + e.getMessage());
            System.err.println("usage: footprint.sh [--connections 1000] [--weft-jvm-opts 'OPTS' (after the launcher's jvm.options)]"
                    + " [--fetch-wait 15s] [--settle 3s]");
            System.exit(2);
            return;
        }
        run(connections, fetchWaitMs, settleMs, jvmOpts);
        System.exit(0);
    }

    private static void run(int connections, int fetchWaitMs, long settleMs, List<String> jvmOpts) throws Exception {
        Path tmp = Files.createTempDirectory("weft-footprint-");
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(1).forked(true).build().start();
             Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
            try (WeftProcess weft = new WeftProcess(cluster.bootstrapServers(), 0, tmp, jvmOpts, true).start()) {
                InetSocketAddress proxy = address(weft.bootstrap());
                List<SocketChannel> open = new ArrayList<>();
                try {
                    handshake(open(proxy, open), 0); // warm the code paths once
                    Map<String, Long> heapBefore = liveHeap(weft.pid());
                    long before = settledRss(weft.pid(), settleMs);
                    Map<String, Long> poolBefore = bufferPool(weft);
                    for (int i = 1; i <= connections; i++) {
                        handshake(open(proxy, open), i);
                    }
                    Map<String, Long> heapIdle = liveHeap(weft.pid());
                    long idle = settledRss(weft.pid(), settleMs);
                    Map<String, Long> poolIdle = bufferPool(weft);
                    for (int i = 0; i < open.size(); i++) {
                        send(open.get(i), fetch(fetchWaitMs), ApiKeys.FETCH, (short) 12, 1_000_000 + i);
                    }
                    // read as before and idle (a full GC, then the settle pause), while the broker still holds the Fetches
                    long active = settledRss(weft.pid(), Math.min(settleMs, fetchWaitMs / 2));
                    Map<String, Long> poolActive = bufferPool(weft);
                    System.out.printf("footprint: %d connections, Weft JVM options %s%n", connections, jvmOpts);
                    System.out.printf("footprint: class-data archive %s %s%n", WeftProcess.cdsArchive(),
                            weft.mapsArchive(WeftProcess.cdsArchive()) ? "mapped"
                                    : "not mapped (none yet, or built for another class path: Weft writes it as it exits; run again)");
                    System.out.printf("footprint: RSS before %,d B, idle %,d B, active %,d B%n", before, idle, active);
                    System.out.printf("footprint: per idle connection %,d B, per active connection (a Fetch in flight) %,d B%n",
                            (idle - before) / connections, (active - before) / connections);
                    for (String state : List.of("allocated", "in_use")) {
                        Long b = poolBefore.get(state);
                        Long i = poolIdle.get(state);
                        Long x = poolActive.get(state);
                        if (b == null || i == null || x == null) {
                            System.out.printf("footprint: buffer pool %s: not in Weft's /metrics (weft_buffer_pool_bytes)%n", state);
                            continue;
                        }
                        System.out.printf("footprint: buffer pool %-9s before %,d B, idle %,d B, active %,d B;"
                                + " per idle connection %,d B, per active connection %,d B%n",
                                state, b, i, x, (i - b) / connections, (x - b) / connections);
                    }
                    System.out.printf("footprint: live Java heap before the connections %,d B; the largest classes in it:%n",
                            heapBefore.get(TOTAL));
                    heapBefore.entrySet().stream().filter(e -> !e.getKey().equals(TOTAL))
                            .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(10)
                            .forEach(e -> System.out.printf("footprint:   %,10d B  %s%n", e.getValue(), e.getKey()));
                    System.out.printf("footprint: live Java heap per idle connection %,d B; the largest classes in it:%n",
                            (heapIdle.get(TOTAL) - heapBefore.get(TOTAL)) / connections);
                    heapIdle.entrySet().stream().filter(e -> !e.getKey().equals(TOTAL))
                            .map(e -> Map.entry(e.getKey(), e.getValue() - heapBefore.getOrDefault(e.getKey(), 0L)))
                            .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(15)
                            .forEach(e -> System.out.printf("footprint:   %,7d B  %s%n", e.getValue() / connections, e.getKey()));
                } finally {
                    for (SocketChannel s : open) {
                        s.close();
                    }
                }
            }
        }
    }

    private static SocketChannel open(InetSocketAddress proxy, List<SocketChannel> open) throws IOException {
        SocketChannel s = SocketChannel.open(proxy);
        open.add(s);
        return s;
    }

    /** ApiVersions then Metadata, each answered before the next, as a client starts. */
    private static void handshake(SocketChannel s, int n) throws IOException {
        send(s, new ApiVersionsRequest.Builder().build((short) 3), ApiKeys.API_VERSIONS, (short) 3, 2 * n);
        readFrame(s);
        send(s, new MetadataRequest.Builder(List.of(TOPIC), false).build((short) 12), ApiKeys.METADATA, (short) 12, 2 * n + 1);
        readFrame(s);
    }

    private static FetchRequest fetch(int maxWaitMs) {
        Map<TopicPartition, FetchRequest.PartitionData> parts = Map.of(new TopicPartition(TOPIC, 0),
                new FetchRequest.PartitionData(Uuid.ZERO_UUID, 0, -1, 1 << 20, Optional.empty()));
        return FetchRequest.Builder.forConsumer((short) 12, maxWaitMs, 1, parts).build((short) 12);
    }

    private static void send(SocketChannel s, AbstractRequest request, ApiKeys api, short version, int correlationId) throws IOException {
        ByteBuffer body = request.serializeWithHeader(new RequestHeader(api, version, CLIENT_ID, correlationId));
        ByteBuffer frame = ByteBuffer.allocate(4 + body.remaining()).putInt(body.remaining()).put(body).flip();
        while (frame.hasRemaining()) {
            s.write(frame);
        }
    }

    private static void readFrame(SocketChannel s) throws IOException {
        ByteBuffer size = readFully(s, ByteBuffer.allocate(4));
        readFully(s, ByteBuffer.allocate(size.getInt(0)));
    }

    private static ByteBuffer readFully(SocketChannel s, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (s.read(b) < 0) {
                throw new IOException("Weft closed a connection during the handshake");
            }
        }
        return b;
    }

    /** {@code weft_buffer_pool_bytes} by {@code state} ({@code allocated}, {@code in_use}); empty if Weft has no such gauge. */
    private static Map<String, Long> bufferPool(WeftProcess weft) throws IOException, InterruptedException {
        Map<String, Long> out = new java.util.TreeMap<>();
        for (WeftProcess.Sample s : weft.metrics("weft_buffer_pool_bytes")) {
            out.merge(s.labels().getOrDefault("state", "?"), (long) s.value(), Long::sum);
        }
        return out;
    }

    /** RSS after a full GC in the Weft process and a pause, so the heap's garbage does not count. */
    private static long settledRss(long pid, long settleMs) throws IOException, InterruptedException {
        jcmd(pid, "GC.run");
        Thread.sleep(settleMs);
        return ProcStat.rssBytes(pid).orElseThrow();
    }

    private static final String TOTAL = "(total)";

    /** Bytes of live objects by class, after the full GC {@code GC.class_histogram} runs first. */
    private static Map<String, Long> liveHeap(long pid) throws IOException, InterruptedException {
        Map<String, Long> bytes = new java.util.HashMap<>();
        for (String line : jcmd(pid, "GC.class_histogram").split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 4 && f[0].endsWith(":")) {
                bytes.merge(f[3], Long.parseLong(f[2]), Long::sum);
            } else if (f.length >= 3 && f[0].equals("Total")) {
                bytes.put(TOTAL, Long.parseLong(f[2]));
            }
        }
        if (!bytes.containsKey(TOTAL)) {
            throw new IOException("jcmd " + pid + " GC.class_histogram printed no Total line");
        }
        return bytes;
    }

    private static String jcmd(long pid, String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(pid), command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        return out;
    }

    private static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }
}
