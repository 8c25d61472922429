package dev.weft.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.testing.KafkaFrames;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.RawKafkaClient;
import dev.weft.proxy.testing.VirtualClusterFixture;
import dev.weft.proxy.testing.VirtualClusterKind;
import dev.weft.testkit.KafkaCluster;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code server.maxInflightRequests} bounds what one connection may have unanswered upstream: a
 * request behind the cap waits in the proxy until an earlier one is answered. The proxy's ApiVersions
 * answer leaves out the APIs only brokers send each other. A Produce with acks=0 gets no answer and
 * its records arrive. For every kind of virtual cluster ({@link VirtualClusterFixture}); the raw client
 * talks to the address the proxy gives for the partition's leader, as a real client's Fetch would.
 */
class InflightCapTest {

    private static VirtualClusterFixture fixture;

    @BeforeAll
    static void start() {
        fixture = VirtualClusterFixture.over(KafkaCluster.builder().brokers(1).build().start())
                .serverSettings(", maxInflightRequests: 1").build();
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void aRequestBehindTheCapWaitsForTheOneAhead(VirtualClusterKind kind) throws Exception {
        String quiet = kind.name("quiet");
        fixture.createTopic(kind, quiet, 1, 1);
        InetSocketAddress leader = fixture.leaderAddress(kind, quiet, 0);
        long metadataBefore = requests(kind, "Metadata");
        long fetchBefore = requests(kind, "Fetch");
        try (RawKafkaClient client = new RawKafkaClient(leader.getHostString(), leader.getPort())) {
            client.send(ApiKeys.FETCH.id, (short) 12, 1, RawKafkaClient.longPoll(quiet, 3000));
            client.send(ApiKeys.METADATA.id, (short) 12, 2, new MetadataRequestData().setTopics(null));
            // The broker holds the Fetch for 3 s (no data arrives); meanwhile the Metadata must stay in
            // the proxy. Checked for the first 2 s only, well inside the broker's wait.
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            boolean sawFetch = false;
            while (System.nanoTime() - until < 0) {
                String metrics = scrape(kind);
                sawFetch |= requests(metrics, "Fetch") - fetchBefore == 1;
                assertEquals(0, requests(metrics, "Metadata") - metadataBefore,
                        "Metadata taken while the Fetch ahead was unanswered");
            }
            assertTrue(sawFetch, "the Fetch itself was forwarded");
            client.readResponse(ApiKeys.FETCH.id, (short) 12, 1);
            MetadataResponseData md = (MetadataResponseData) client.readResponse(ApiKeys.METADATA.id, (short) 12, 2);
            assertEquals(fixture.visibleBrokers(kind), md.brokers().size(), "the Metadata answered after the Fetch");
            assertTrue(requests(kind, "Metadata") > metadataBefore, "then it went");
        }
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void apiVersionsLeavesOutBrokerToBrokerApis(VirtualClusterKind kind) throws Exception {
        try (RawKafkaClient client = RawKafkaClient.connect(fixture.bootstrap(kind))) {
            client.send(ApiKeys.API_VERSIONS.id, (short) 3, 7, new ApiVersionsRequestData()
                    .setClientSoftwareName("raw").setClientSoftwareVersion("1"));
            ApiVersionsResponseData versions = (ApiVersionsResponseData) client.readResponse(ApiKeys.API_VERSIONS.id, (short) 3, 7);
            assertEquals(0, versions.errorCode());
            assertFalse(versions.apiKeys().stream().anyMatch(v -> v.apiKey() == ApiKeys.WRITE_TXN_MARKERS.id));
            assertFalse(versions.apiKeys().stream().anyMatch(v -> v.apiKey() == ApiKeys.READ_SHARE_GROUP_STATE.id));
            assertTrue(versions.apiKeys().stream().anyMatch(v -> v.apiKey() == ApiKeys.PRODUCE.id));
        }
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void anAcksZeroProduceGetsNoAnswerAndItsRecordsArrive(VirtualClusterKind kind) throws Exception {
        String topic = kind.name("acks-zero");
        fixture.createTopic(kind, topic, 1, 1);
        InetSocketAddress leader = fixture.leaderAddress(kind, topic, 0);
        TopicPartition tp = new TopicPartition(topic, 0);
        try (RawKafkaClient client = new RawKafkaClient(leader.getHostString(), leader.getPort())) {
            client.send(ApiKeys.PRODUCE.id, KafkaFrames.PRODUCE_VERSION, 1, KafkaFrames.produce(topic, 0, (short) 0, 5, 64));
            client.send(ApiKeys.METADATA.id, (short) 12, 2, new MetadataRequestData().setTopics(null));
            // The first answer on the connection is the Metadata's: none came for the Produce.
            client.readResponse(ApiKeys.METADATA.id, (short) 12, 2);
            client.send(ApiKeys.PRODUCE.id, KafkaFrames.PRODUCE_VERSION, 3, KafkaFrames.produce(topic, 0, (short) 0, 5, 64));
            client.send(ApiKeys.METADATA.id, (short) 12, 4, new MetadataRequestData().setTopics(null));
            client.readResponse(ApiKeys.METADATA.id, (short) 12, 4);
        }
        Poll.untilNoThrow(Duration.ofSeconds(15), "the 10 acks=0 records in " + tp, () -> fixture.primary().admin()
                .listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get(10, TimeUnit.SECONDS).offset() == 10);
    }

    private static String scrape(VirtualClusterKind kind) throws Exception {
        var admin = fixture.proxy(kind).adminAddress().orElseThrow();
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + admin.getPort() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        return r.body();
    }

    private static long requests(VirtualClusterKind kind, String api) throws Exception {
        return requests(scrape(kind), api);
    }

    private static long requests(String metrics, String api) {
        Matcher m = Pattern.compile("(?m)^weft_requests_total\\{[^}]*api=\"" + api + "\"[^}]*\\} ([0-9.eE+]+)$").matcher(metrics);
        long total = 0;
        while (m.find()) {
            total += (long) Double.parseDouble(m.group(1));
        }
        return total;
    }
}
