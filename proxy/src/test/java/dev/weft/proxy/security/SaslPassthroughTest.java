package dev.weft.proxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.SaslListener;
import dev.weft.testkit.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * SASL passes through a single-cluster proxy: the client authenticates to the broker over the
 * proxy's connection (PLAIN and SCRAM-SHA-512), and wrong credentials get the broker's own error.
 */
class SaslPassthroughTest {

    private static final String PLAIN_JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "user_alice=\"alice-secret\" user_weft=\"weft-secret\";";

    private static KafkaCluster kafka;
    private static WeftProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        Map<String, String> jaas = new LinkedHashMap<>();
        jaas.put("PLAIN", PLAIN_JAAS);
        jaas.put("SCRAM-SHA-512", SaslListener.SCRAM_JAAS);
        kafka = SaslListener.external(KafkaCluster.builder().brokers(1), jaas).build();
        kafka.start();
        SaslListener.addScramUsers(kafka, Map.of("bob", "bob-secret"), ScramMechanism.SCRAM_SHA_512);
        int start = FreePorts.randomRange(2);
        int id = kafka.brokerIds().get(0);
        proxy = WeftProxy.start(ConfigLoader.parse("""
                server: { eventLoops: 1 }
                admin: { enabled: false }
                clusters:
                  upstream:
                    bootstrap: "%s"
                    sasl: { mechanism: PLAIN, username: weft, password: weft-secret }
                virtualClusters:
                  main:
                    target: { cluster: upstream }
                    gateways:
                      - name: g
                        bind: "127.0.0.1:%d"
                        brokerPorts: { start: %d, nodeIds: "%d-%d" }
                """.formatted(kafka.bootstrapServers("EXTERNAL"), start, start + 1, id, id), "sasl test"));
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

    private static Map<String, Object> client(String mechanism, String user, String password) {
        String module = mechanism.equals("PLAIN") ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                : "org.apache.kafka.common.security.scram.ScramLoginModule";
        Map<String, Object> c = new HashMap<>();
        c.put("bootstrap.servers", proxy.bootstrapAddresses("main").get(0));
        c.put("security.protocol", "SASL_PLAINTEXT");
        c.put("sasl.mechanism", mechanism);
        c.put("sasl.jaas.config", module + " required username=\"" + user + "\" password=\"" + password + "\";");
        return c;
    }

    @Test
    void plainCredentialsAuthenticateThroughTheProxy() throws Exception {
        roundTrip(client("PLAIN", "alice", "alice-secret"), "sasl-plain");
    }

    @Test
    void scramCredentialsAuthenticateThroughTheProxy() throws Exception {
        roundTrip(client("SCRAM-SHA-512", "bob", "bob-secret"), "sasl-scram");
    }

    @Test
    void wrongCredentialsGetTheBrokersError() {
        for (Map<String, Object> wrong : List.of(client("PLAIN", "alice", "nope"), client("SCRAM-SHA-512", "bob", "nope"))) {
            Map<String, Object> c = new HashMap<>(wrong);
            c.put("default.api.timeout.ms", 10_000);
            c.put("request.timeout.ms", 5_000);
            try (Admin admin = Admin.create(c)) {
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> admin.describeCluster().nodes().get(30, TimeUnit.SECONDS));
                assertInstanceOf(SaslAuthenticationException.class, e.getCause(), String.valueOf(e.getCause()));
            }
        }
    }

    private static void roundTrip(Map<String, Object> security, String topic) throws Exception {
        try (Admin admin = Admin.create(security)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        Map<String, Object> p = new HashMap<>(security);
        p.put("acks", "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 100; i++) {
                producer.send(new ProducerRecord<>(topic, "v" + i));
            }
            producer.flush();
        }
        Map<String, Object> c = new HashMap<>(security);
        c.put("auto.offset.reset", "earliest");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (values.size() < 100 && System.nanoTime() - deadline < 0) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
            }
        }
        assertEquals(100, values.size());
        for (int i = 0; i < 100; i++) {
            assertEquals("v" + i, values.get(i));
        }
    }
}
