package dev.weft.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.iocore.testing.Await;
import dev.weft.proxy.testing.ProxyFixture;
import dev.weft.testkit.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Brokers join and leave the upstream cluster while the proxy runs: clients follow without a restart. */
class TopologyChangeTest {

    private static KafkaCluster kafka;
    private static WeftProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        kafka = KafkaCluster.builder().brokers(2).build();
        kafka.start();
        proxy = ProxyFixture.startInFrontOf(kafka); // node ports reserved for two more ids
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
    void aBrokerAddedIsServedAndABrokerRemovedDisappears() throws Exception {
        Map<String, Object> client = Map.of("bootstrap.servers", ProxyFixture.bootstrap(proxy));
        try (Admin admin = Admin.create(client)) {
            assertEquals(Set.copyOf(kafka.brokerIds()), nodeIds(admin));

            int added = kafka.addBroker();
            Await.until(Duration.ofSeconds(60), () -> nodeIds(admin).contains(added),
                    () -> "broker " + added + " visible through the proxy");
            admin.createTopics(List.of(new NewTopic("grown", 3, (short) 3))).all().get(30, TimeUnit.SECONDS);
            roundTrip("grown", 3);
            assertTrue(leadersOf(admin, "grown").contains(added), "the new broker leads a partition, reached through its proxy port");

            int removed = kafka.brokerIds().stream()
                    .filter(id -> id != added && !kafka.controllerIds().contains(id)).findFirst().orElseThrow();
            kafka.removeBroker(removed);
            Await.until(Duration.ofSeconds(60), () -> !nodeIds(admin).contains(removed),
                    () -> "broker " + removed + " gone from the proxy's view");
            admin.createTopics(List.of(new NewTopic("shrunk", 2, (short) 2))).all().get(30, TimeUnit.SECONDS);
            roundTrip("shrunk", 2);
        }
    }

    private static Set<Integer> nodeIds(Admin admin) {
        try {
            Collection<Node> nodes = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
            return nodes.stream().map(Node::id).collect(Collectors.toSet());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Set<Integer> leadersOf(Admin admin, String topic) throws Exception {
        return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions()
                .stream().map(p -> p.leader().id()).collect(Collectors.toSet());
    }

    private static void roundTrip(String topic, int partitions) throws Exception {
        Map<String, Object> p = new HashMap<>(Map.of("bootstrap.servers", ProxyFixture.bootstrap(proxy), "acks", "all"));
        int count = 60 * partitions;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, i % partitions, null, "v" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        Map<String, Object> c = new HashMap<>(Map.of("bootstrap.servers", ProxyFixture.bootstrap(proxy), "auto.offset.reset", "earliest"));
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < partitions; i++) {
                tps.add(new TopicPartition(topic, i));
            }
            consumer.assign(tps);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (values.size() < count && System.nanoTime() - deadline < 0) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
            }
        }
        assertEquals(count, values.size());
        assertEquals(count, values.stream().distinct().count());
    }
}
