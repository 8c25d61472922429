package dev.weft.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.cold.ColdCodec;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.testkit.KafkaCluster;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A broker that is not the leader answers Produce v10+ and Fetch v16+ with the leader's address
 * ({@code node_endpoints}); through Weft that address must be the proxy's, or the client would leave
 * the proxy for the real broker.
 */
class LeaderHintRewriteTest {

    private static KafkaCluster kafka;
    private static WeftProxy proxy;
    private static int leader;
    private static int follower;
    private static Uuid topicId;

    @BeforeAll
    static void start() throws Exception {
        kafka = KafkaCluster.builder().brokers(2).build();
        kafka.start();
        kafka.createTopic("hinted", 1, 1);
        try (Admin admin = Admin.create(kafka.adminConfig())) {
            var description = admin.describeTopics(List.of("hinted")).allTopicNames().get(30, TimeUnit.SECONDS).get("hinted");
            TopicPartitionInfo p = description.partitions().get(0);
            leader = p.leader().id();
            topicId = description.topicId();
        }
        follower = kafka.brokerIds().stream().filter(id -> id != leader).findFirst().orElseThrow();
        proxy = ProxyFixture.startInFrontOf(kafka);
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
    void produceToANonLeaderPointsTheClientAtTheProxy() throws Exception {
        ProduceRequestData produce = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(5000);
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("v".getBytes()));
        produce.topicData().add(new ProduceRequestData.TopicProduceData().setName("hinted").setTopicId(topicId)
                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records))));
        for (short version : new short[] {10, 12, 13}) {
            ProduceResponseData response = (ProduceResponseData) exchange(ApiKeys.PRODUCE.id, version, produce);
            var partition = response.responses().iterator().next().partitionResponses().get(0);
            assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), partition.errorCode(), "v" + version);
            assertEquals(leader, partition.currentLeader().leaderId(), "v" + version);
            assertProxyEndpoints(response.nodeEndpoints().stream()
                    .map(e -> new Endpoint(e.nodeId(), e.host(), e.port())).toList(), "Produce v" + version);
        }
    }

    @Test
    void fetchFromANonLeaderPointsTheClientAtTheProxy() throws Exception {
        for (short version : new short[] {16, 17, 18}) {
            FetchRequestData fetch = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(0)
                    .setMaxBytes(1 << 20).setIsolationLevel((byte) 0).setSessionId(0).setSessionEpoch(-1)
                    .setTopics(List.of(new FetchRequestData.FetchTopic().setTopic("hinted").setTopicId(topicId)
                            .setPartitions(List.of(new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
                                    .setPartitionMaxBytes(1 << 20).setCurrentLeaderEpoch(-1).setLogStartOffset(-1)))));
            FetchResponseData response = (FetchResponseData) exchange(ApiKeys.FETCH.id, version, fetch);
            var partition = response.responses().get(0).partitions().get(0);
            assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), partition.errorCode(), "v" + version);
            assertProxyEndpoints(response.nodeEndpoints().stream()
                    .map(e -> new Endpoint(e.nodeId(), e.host(), e.port())).toList(), "Fetch v" + version);
        }
    }

    private record Endpoint(int nodeId, String host, int port) {
    }

    private static void assertProxyEndpoints(List<Endpoint> endpoints, String what) {
        assertFalse(endpoints.isEmpty(), what + ": the broker sent node endpoints");
        for (Endpoint e : endpoints) {
            assertEquals("127.0.0.1", e.host(), what);
            assertEquals(brokerPort(e.nodeId()), e.port(), what + ": node " + e.nodeId() + " at its proxy port");
        }
        assertTrue(endpoints.stream().anyMatch(e -> e.nodeId() == leader), what + " names the leader");
    }

    private static int bootstrapPort() {
        String b = ProxyFixture.bootstrap(proxy);
        return Integer.parseInt(b.substring(b.lastIndexOf(':') + 1));
    }

    /** ProxyFixture numbers broker ports from bootstrap + 1 for the lowest node id. */
    private static int brokerPort(int nodeId) {
        int lowest = kafka.brokerIds().stream().mapToInt(Integer::intValue).min().orElseThrow();
        return bootstrapPort() + 1 + (nodeId - lowest);
    }

    /** Sends one request to the follower's proxy port and reads back its response body. */
    private static ApiMessage exchange(short apiKey, short version, ApiMessage body) throws IOException {
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey(apiKey).setRequestApiVersion(version)
                .setCorrelationId(99).setClientId("hint-test");
        ByteBuf frame = ColdCodec.writeRequest(UnpooledByteBufAllocator.DEFAULT, header, body);
        try (Socket socket = new Socket("127.0.0.1", brokerPort(follower))) {
            socket.setSoTimeout(15_000);
            byte[] bytes = new byte[frame.readableBytes()];
            frame.readBytes(bytes);
            socket.getOutputStream().write(bytes);
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] response = new byte[in.readInt()];
            in.readFully(response);
            ByteBuf buf = Unpooled.wrappedBuffer(response);
            assertEquals(99, buf.readInt(), "correlation id restored");
            buf.readByte(); // empty tagged fields of response header v1
            return ColdCodec.readResponseBody(apiKey, version, buf);
        } finally {
            frame.release();
        }
    }

}
