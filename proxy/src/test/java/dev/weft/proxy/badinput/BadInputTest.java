package dev.weft.proxy.badinput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import dev.weft.iocore.testing.Await;
import dev.weft.iocore.testing.LogCapture;
import dev.weft.proxy.session.Session;
import dev.weft.proxy.testing.VirtualClusterFixture;
import dev.weft.proxy.testing.VirtualClusterKind;
import dev.weft.testkit.KafkaCluster;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile or broken input on a live proxy, for every kind of virtual cluster: the offending connection
 * is closed with a log line naming the peer and the reason, and everyone else carries on (checked with
 * a real Admin client after each).
 */
class BadInputTest {

    private static VirtualClusterFixture fixture;

    @BeforeAll
    static void start() throws Exception {
        fixture = VirtualClusterFixture.over(KafkaCluster.builder().brokers(1).build().start())
                .serverSettings(", partialFrameTimeoutMs: 700, maxFrameBytes: 1MiB").build();
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void tlsClientHelloOnThePlaintextPortIsNamedAsSuch(VirtualClusterKind kind) throws Exception {
        // The first bytes of a TLS 1.2/1.3 ClientHello record.
        byte[] hello = HexFormat.of().parseHex("16030100f5010000f10303" + "00".repeat(32));
        assertClosedWithLog(kind, hello, "looks like a TLS ClientHello on a plaintext port");
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void httpRequestOnTheKafkaPortIsNamedAsSuch(VirtualClusterKind kind) throws Exception {
        assertClosedWithLog(kind, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII),
                "looks like an HTTP request on the Kafka port");
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void frameOverTheLimitIsRefusedNamingSizeAndLimit(VirtualClusterKind kind) throws Exception {
        byte[] frame = ByteBuffer.allocate(8).putInt(2 << 20).putInt(0).array();
        assertClosedWithLog(kind, frame, "frame of 2097152 bytes from client /127.0.0.1");
        assertTrue(lastWarnings().stream().anyMatch(m -> m.contains("over the limit of 1048576 bytes")), lastWarnings()::toString);
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void negativeLengthIsRefused(VirtualClusterKind kind) throws Exception {
        assertClosedWithLog(kind, new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xfe}, "invalid frame size -2 (negative)");
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void unknownApiKeyIsRefused(VirtualClusterKind kind) throws Exception {
        ByteBuffer frame = ByteBuffer.allocate(4 + 10);
        frame.putInt(10).putShort((short) 999).putShort((short) 0).putInt(7).putShort((short) -1);
        assertClosedWithLog(kind, frame.array(), "unknown API key 999");
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void unsupportedVersionIsRefused(VirtualClusterKind kind) throws Exception {
        ByteBuffer frame = ByteBuffer.allocate(4 + 10);
        frame.putInt(10).putShort((short) 0).putShort((short) 99).putInt(7).putShort((short) -1); // Produce v99
        // A pass-through virtual cluster lets the broker's versions decide (its ApiVersions answer is the
        // broker's), so the proxy checks its own table; a proxy that answers ApiVersions itself refuses
        // whatever it did not offer there, and says so.
        String expected = kind.answersApiVersions()
                ? "Produce v99 is not offered by virtual cluster 'main' (see its ApiVersions answer)"
                : "Produce version 99 is not supported (Weft implements 3 to 13)";
        assertClosedWithLog(kind, frame.array(), expected);
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void brokerToBrokerApisAreRefused(VirtualClusterKind kind) throws Exception {
        ByteBuffer frame = ByteBuffer.allocate(4 + 10);
        frame.putInt(10).putShort((short) 27).putShort((short) 1).putInt(7).putShort((short) -1); // WriteTxnMarkers v1
        assertClosedWithLog(kind, frame.array(), "WriteTxnMarkers is a broker-internal API, not for clients");
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void truncatedHeaderIsRefused(VirtualClusterKind kind) throws Exception {
        ByteBuffer frame = ByteBuffer.allocate(4 + 5);
        frame.putInt(5).put(new byte[] {0, 3, 0, 1, 0}); // a frame too short for any request header
        assertClosedWithLog(kind, frame.array(), "malformed request");
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void slowLorisIsClosedAfterThePartialFrameTimeout(VirtualClusterKind kind) throws Exception {
        ByteBuffer partial = ByteBuffer.allocate(6).putInt(100).putShort((short) 3); // promises 100 bytes, sends 2
        assertClosedWithLog(kind, partial.array(), "slow client: 6 byte(s) of an incomplete frame");
    }

    private static List<String> warnings = List.of();

    private static List<String> lastWarnings() {
        return warnings;
    }

    /** Sends {@code bytes}, expects the proxy to close the connection and log {@code expected}; then checks others are served. */
    private static void assertClosedWithLog(VirtualClusterKind kind, byte[] bytes, String expected) throws Exception {
        try (LogCapture log = LogCapture.of(Session.class); Socket socket = new Socket()) {
            socket.connect(fixture.bootstrapAddress(kind), 5_000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(bytes);
            out.flush();
            assertEquals(-1, readUntilClosed(socket.getInputStream()), "the proxy closes the offending connection");
            Await.until(Duration.ofSeconds(15),
                    () -> log.messages(Level.WARN).stream().anyMatch(m -> m.contains(expected)),
                    () -> "a WARN log line containing '" + expected + "', got " + log.messages(Level.WARN));
            warnings = log.messages(Level.WARN);
            String line = warnings.stream().filter(m -> m.contains(expected)).findFirst().orElseThrow();
            assertTrue(line.contains("127.0.0.1"), "the log line names the peer: " + line);
        }
        stillServesEveryoneElse(kind);
    }

    private static int readUntilClosed(InputStream in) throws IOException {
        byte[] sink = new byte[1024];
        try {
            int n;
            while ((n = in.read(sink)) >= 0) {
                if (n == 0) {
                    continue;
                }
            }
            return -1;
        } catch (SocketTimeoutException e) {
            return 0; // still open after 10 s: the assertion fails
        } catch (IOException e) {
            return -1; // reset by the proxy: closed too
        }
    }

    private static void stillServesEveryoneElse(VirtualClusterKind kind) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, fixture.bootstrap(kind)))) {
            assertEquals(fixture.visibleBrokers(kind), admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size());
        }
    }
}
