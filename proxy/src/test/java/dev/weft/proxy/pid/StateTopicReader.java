package dev.weft.proxy.pid;

import dev.weft.testkit.KafkaCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads a state topic back with a plain consumer, as an operator with kcat would. */
final class StateTopicReader {

    record Entry(long offset, String key, String value, String replica, String kind) {
    }

    private StateTopicReader() {
    }

    static List<Entry> readAll(KafkaCluster cluster, String topic) {
        TopicPartition tp = new TopicPartition(topic, 0);
        Map<String, Object> props = cluster.consumerConfig();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp)).get(tp);
            List<Entry> out = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (c.position(tp) < end) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("could not read " + topic + " up to " + end);
                }
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    out.add(new Entry(r.offset(), r.key(), r.value(), header(r, "weft-replica"), header(r, "weft-kind")));
                }
            }
            return out;
        }
    }

    private static String header(ConsumerRecord<?, ?> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
