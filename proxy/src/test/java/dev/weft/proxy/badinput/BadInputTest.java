package dev.weft.proxy.badinput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import dev.weft.iocore.testing.Await;
import dev.weft.iocore.testing.LogCapture;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.session.Session;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.testkit.KafkaCluster;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
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
import org.junit.jupiter.api.Test;

/**
 * Hostile or broken input on a live proxy: the offending connection is closed with a log line naming
 * the peer and the reason, and everyone else carries on (checked with a real Admin client after each).
 */
class BadInputTest {

    private static KafkaCluster kafka;
    private static WeftProxy proxy;
    private static InetSocketAddress bootstrap;

    @BeforeAll
    static void start() throws Exception {
        kafka = KafkaCluster.builder().brokers(1).build();
        kafka.start();
        proxy = ProxyFixture.startInFrontOf(kafka, kafka.brokerIds(), ", partialFrameTimeoutMs: 700, maxFrameBytes: 1MiB");
        String address = ProxyFixture.bootstrap(proxy);
        bootstrap = new InetSocketAddress("127.0.0.1", Integer.parseInt(address.substring(address.lastIndexOf(':') + 1)));
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void tlsClientHelloOnThePlaintextPortIsNamedAsSuch() throws Exception {
        // The first bytes of a TLS 1.2/1.3 ClientHello record.
        byte[] hello = HexFormat.of().parseHex("16030100f5010000f10303" + "00".repeat(32));
        assertClosedWithLog(hello, "looks like a TLS ClientHello on a plaintext port");
    }

    @Test
    void httpRequestOnTheKafkaPortIsNamedAsSuch() throws Exception {
        assertClosedWithLog("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII),
                "looks like an HTTP request on the Kafka port");
    }

    @Test
    void frameOverTheLimitIsRefusedNamingSizeAndLimit() throws Exception {
        byte[] frame = ByteBuffer.allocate(8).putInt(2 << 20).putInt(0).array();
        assertClosedWithLog(frame, "frame of 2097152 bytes from client /127.0.0.1");
        assertTrue(lastWarnings().stream().anyMatch(m -> m.contains("over the limit of 1048576 bytes")), lastWarnings()::toString);
    }

    @Test
    void negativeLengthIsRefused() throws Exception {
        assertClosedWithLog(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xfe}, "invalid frame size -2 (negative)");
    }

    @Test
    void unknownApiKeyIsRefused() throws Exception {
        ByteBuffer frame = ByteBuffer.allocate(4 + 10);
        frame.putInt(10).putShort((short) 999).putShort((short) 0).putInt(7).putShort((short) -1);
        assertClosedWithLog(frame.array(), "unknown API key 999");
    }

    @Test
    void unsupportedVersionIsRefused() throws Exception {
        ByteBuffer frame = ByteBuffer.allocate(4 + 10);
        frame.putInt(10).putShort((short) 0).putShort((short) 99).putInt(7).putShort((short) -1); // Produce v99
        assertClosedWithLog(frame.array(), "Produce version 99 is not supported (Weft implements 3 to 13)");
    }

    @Test
    void brokerToBrokerApisAreRefused() throws Exception {
        ByteBuffer frame = ByteBuffer.allocate(4 + 10);
        frame.putInt(10).putShort((short) 27).putShort((short) 1).putInt(7).putShort((short) -1); // WriteTxnMarkers v1
        assertClosedWithLog(frame.array(), "WriteTxnMarkers is a broker-internal API, not for clients");
    }

    @Test
    void truncatedHeaderIsRefused() throws Exception {
        ByteBuffer frame = ByteBuffer.allocate(4 + 5);
        frame.putInt(5).put(new byte[] {0, 3, 0, 1, 0}); // a frame too short for any request header
        assertClosedWithLog(frame.array(), "malformed request");
    }

    @Test
    void slowLorisIsClosedAfterThePartialFrameTimeout() throws Exception {
        ByteBuffer partial = ByteBuffer.allocate(6).putInt(100).putShort((short) 3); // promises 100 bytes, sends 2
        assertClosedWithLog(partial.array(), "slow client: 6 byte(s) of an incomplete frame");
    }

    private static List<String> warnings = List.of();

    private static List<String> lastWarnings() {
        return warnings;
    }

    /** Sends {@code bytes}, expects the proxy to close the connection and log {@code expected}; then checks others are served. */
    private static void assertClosedWithLog(byte[] bytes, String expected) throws Exception {
        try (LogCapture log = LogCapture.of(Session.class); Socket socket = new Socket()) {
            socket.connect(bootstrap, 5_000);
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
        stillServesEveryoneElse();
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

    private static void stillServesEveryoneElse() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ProxyFixture.bootstrap(proxy)))) {
            assertEquals(1, admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size());
        }
    }
}
