package dev.weft.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.cold.ColdCodec;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.testkit.KafkaCluster;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Shutdown stops accepting, lets requests already in flight be answered, then closes; a request that
 * outlives {@code server.drainTimeoutMs} is cut off at the deadline.
 */
class GracefulShutdownTest {

    private static KafkaCluster kafka;

    @BeforeAll
    static void start() {
        kafka = KafkaCluster.builder().brokers(1).build();
        kafka.start();
        kafka.createTopic("quiet", 1, 1);
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void aLongPollInFlightIsAnsweredBeforeTheConnectionCloses() throws Exception {
        WeftProxy proxy = ProxyFixture.startInFrontOf(kafka, kafka.brokerIds(), ", drainTimeoutMs: 10000");
        try (Socket socket = connect(proxy)) {
            sendFetch(socket, 42, 1500);
            long started = System.nanoTime();
            CompletableFuture<Void> closing = CompletableFuture.runAsync(proxy::close);
            DataInputStream in = new DataInputStream(socket.getInputStream());
            int size = in.readInt();
            byte[] response = new byte[size];
            in.readFully(response);
            assertEquals(42, java.nio.ByteBuffer.wrap(response).getInt(), "the in-flight Fetch gets its response");
            assertEquals(-1, in.read(), "then the proxy closes the connection");
            closing.get(30, TimeUnit.SECONDS);
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertTrue(tookMs >= 1000, "close waited for the long poll (" + tookMs + " ms)");
            assertTrue(tookMs < 9000, "and no longer than needed (" + tookMs + " ms)");
        } finally {
            proxy.close();
        }
    }

    @Test
    void aRequestOutlivingTheDrainTimeoutIsCutOff() throws Exception {
        WeftProxy proxy = ProxyFixture.startInFrontOf(kafka, kafka.brokerIds(), ", drainTimeoutMs: 300");
        try (Socket socket = connect(proxy)) {
            sendFetch(socket, 7, 20_000);
            long started = System.nanoTime();
            proxy.close();
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            DataInputStream in = new DataInputStream(socket.getInputStream());
            try {
                in.readInt();
                throw new AssertionError("no response was expected before the cut-off");
            } catch (EOFException | java.net.SocketException expected) {
                // closed at the deadline
            }
            assertTrue(tookMs < 8000, "close() respected the 300 ms drain timeout (took " + tookMs + " ms)");
        }
    }

    private static Socket connect(WeftProxy proxy) throws IOException {
        String bootstrap = ProxyFixture.bootstrap(proxy);
        Socket socket = new Socket("127.0.0.1", Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1)));
        socket.setSoTimeout(30_000);
        return socket;
    }

    /** A Fetch v12 for an empty partition that waits up to {@code maxWaitMs} for one byte. */
    private static void sendFetch(Socket socket, int correlationId, int maxWaitMs) throws IOException {
        FetchRequestData fetch = new FetchRequestData()
                .setReplicaId(-1).setMaxWaitMs(maxWaitMs).setMinBytes(1).setMaxBytes(1 << 20)
                .setIsolationLevel((byte) 0).setSessionId(0).setSessionEpoch(-1)
                .setTopics(List.of(new FetchRequestData.FetchTopic().setTopic("quiet").setPartitions(List.of(
                        new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
                                .setPartitionMaxBytes(1 << 20).setCurrentLeaderEpoch(-1).setLogStartOffset(-1)))));
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey(ApiKeys.FETCH.id)
                .setRequestApiVersion((short) 12).setCorrelationId(correlationId).setClientId("shutdown-test");
        ByteBuf frame = ColdCodec.writeRequest(UnpooledByteBufAllocator.DEFAULT, header, fetch);
        try {
            byte[] bytes = new byte[frame.readableBytes()];
            frame.readBytes(bytes);
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
        } finally {
            frame.release();
        }
    }
}
