package dev.weft.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.proxy.testing.RawKafkaClient;
import dev.weft.testkit.KafkaCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code server.maxInflightRequests} bounds what one connection may have unanswered upstream: a
 * request behind the cap waits in the proxy until an earlier one is answered. And the proxy's
 * ApiVersions answer leaves out the APIs only brokers send each other.
 */
class InflightCapTest {

    private static KafkaCluster kafka;
    private static WeftProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        kafka = KafkaCluster.builder().brokers(1).build();
        kafka.start();
        kafka.createTopic("quiet", 1, 1);
        proxy = ProxyFixture.startInFrontOf(kafka, kafka.brokerIds(), ", maxInflightRequests: 1");
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
    void aRequestBehindTheCapWaitsForTheOneAhead() throws Exception {
        try (RawKafkaClient client = RawKafkaClient.connect(ProxyFixture.bootstrap(proxy))) {
            client.send(ApiKeys.FETCH.id, (short) 12, 1, RawKafkaClient.longPoll("quiet", 3000));
            client.send(ApiKeys.METADATA.id, (short) 12, 2, new MetadataRequestData().setTopics(null));
            // The broker holds the Fetch for 3 s (no data arrives); meanwhile the Metadata must stay in
            // the proxy. Checked for the first 2 s only, well inside the broker's wait.
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            boolean sawFetch = false;
            while (System.nanoTime() - until < 0) {
                String metrics = scrape();
                sawFetch |= requests(metrics, "Fetch") == 1;
                assertEquals(0, requests(metrics, "Metadata"), "Metadata forwarded while the Fetch ahead was unanswered");
            }
            assertEquals(true, sawFetch, "the Fetch itself was forwarded");
            client.readResponse(ApiKeys.FETCH.id, (short) 12, 1);
            client.readResponse(ApiKeys.METADATA.id, (short) 12, 2);
            assertEquals(1, requests(scrape(), "Metadata"), "then it went");
        }
    }

    @Test
    void apiVersionsLeavesOutBrokerToBrokerApis() throws Exception {
        try (RawKafkaClient client = RawKafkaClient.connect(ProxyFixture.bootstrap(proxy))) {
            client.send(ApiKeys.API_VERSIONS.id, (short) 3, 7, new ApiVersionsRequestData()
                    .setClientSoftwareName("raw").setClientSoftwareVersion("1"));
            ApiVersionsResponseData versions = (ApiVersionsResponseData) client.readResponse(ApiKeys.API_VERSIONS.id, (short) 3, 7);
            assertEquals(0, versions.errorCode());
            assertFalse(versions.apiKeys().stream().anyMatch(v -> v.apiKey() == ApiKeys.WRITE_TXN_MARKERS.id));
            assertFalse(versions.apiKeys().stream().anyMatch(v -> v.apiKey() == ApiKeys.READ_SHARE_GROUP_STATE.id));
            assertEquals(true, versions.apiKeys().stream().anyMatch(v -> v.apiKey() == ApiKeys.PRODUCE.id));
        }
    }

    private static String scrape() throws Exception {
        var admin = proxy.adminAddress().orElseThrow();
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + admin.getPort() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        return r.body();
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
