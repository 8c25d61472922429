package dev.weft.testkit;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Produces and reads back string records with real kafka-clients, for the tests. */
final class Records {

    private Records() {
    }

    /** Sends {@code values} (key = value) with acks=all and idempotence, waiting for every ack. */
    static void produce(Map<String, Object> producerConfig, String topic, List<String> values) throws Exception {
        Map<String, Object> config = new java.util.HashMap<>(producerConfig);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        try (KafkaProducer<String, String> producer =
                 new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            List<java.util.concurrent.Future<?>> acks = new ArrayList<>();
            for (String value : values) {
                acks.add(producer.send(new ProducerRecord<>(topic, value, value)));
            }
            for (var ack : acks) {
                ack.get(60, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Reads every partition of {@code topic} from the beginning (no group) until {@code expected}
     * records arrived or {@code timeout} passed; returns the values read.
     */
    static List<String> consume(Map<String, Object> consumerConfig, String topic, int partitions, int expected,
                                Duration timeout) {
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                 new KafkaConsumer<>(consumerConfig, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> assignment = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                assignment.add(new TopicPartition(topic, p));
            }
            consumer.assign(assignment);
            consumer.seekToBeginning(assignment);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (values.size() < expected && System.nanoTime() - deadline < 0) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    values.add(record.value());
                }
            }
        }
        return values;
    }

    static List<String> numbered(String prefix, int count) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            values.add(prefix + "-" + i);
        }
        return values;
    }
}
