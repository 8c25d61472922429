package dev.weft.proxy.conformance;

import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Runs in a JVM of its own whose class path holds an OLDER kafka-clients (3.x) and nothing else from
 * Kafka; uses only API that line has. Through the proxy: describes the cluster, creates the topic,
 * produces the input records idempotently with acks=all, then consumes them in a group and commits.
 *
 * <p>Arguments: bootstrap topic partitions group input.tsv. Prints to stdout:
 * {@code version=<v>}, {@code node <id> <host> <port>}, {@code ack <partition> <offset> <key>} and
 * {@code <partition>\t<offset>\t<key>\t<base64 value>} per consumed record.
 */
public final class LegacyClientMain {

    private LegacyClientMain() {
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        int partitions = Integer.parseInt(args[2]);
        String group = args[3];
        List<String[]> input = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(args[4]), StandardCharsets.US_ASCII)) {
            input.add(line.split("\t", -1));
        }
        PrintStream out = System.out;
        Properties version = new Properties();
        try (InputStream in = KafkaProducer.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            version.load(in);
        }
        out.println("version=" + version.getProperty("version") + " from "
                + KafkaProducer.class.getProtectionDomain().getCodeSource().getLocation());

        Map<String, Object> common = new HashMap<>();
        common.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(common)) {
            for (Node n : admin.describeCluster().nodes().get(60, TimeUnit.SECONDS)) {
                out.println("node " + n.id() + " " + n.host() + " " + n.port());
            }
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 3))).all().get(60, TimeUnit.SECONDS);
        }

        Map<String, Object> producerConfig = new HashMap<>(common);
        producerConfig.put("enable.idempotence", true);
        producerConfig.put("acks", "all");
        producerConfig.put("linger.ms", 5);
        producerConfig.put("compression.type", "gzip");
        Base64.Decoder decoder = Base64.getDecoder();
        try (KafkaProducer<byte[], byte[]> producer =
                     new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (String[] record : input) {
                acks.add(producer.send(new ProducerRecord<>(topic, record[0].getBytes(StandardCharsets.UTF_8),
                        decoder.decode(record[1]))));
            }
            producer.flush();
            for (int i = 0; i < acks.size(); i++) {
                RecordMetadata md = acks.get(i).get(60, TimeUnit.SECONDS);
                out.println("ack " + md.partition() + " " + md.offset() + " " + input.get(i)[0]);
            }
        }

        Map<String, Object> consumerConfig = new HashMap<>(common);
        consumerConfig.put("group.id", group);
        consumerConfig.put("auto.offset.reset", "earliest");
        consumerConfig.put("enable.auto.commit", false);
        Base64.Encoder encoder = Base64.getEncoder();
        int consumed = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try (KafkaConsumer<byte[], byte[]> consumer =
                     new KafkaConsumer<>(consumerConfig, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            while (consumed < input.size() && System.nanoTime() - deadline < 0) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    out.println(r.partition() + "\t" + r.offset() + "\t" + new String(r.key(), StandardCharsets.UTF_8)
                            + "\t" + encoder.encodeToString(r.value()));
                    consumed++;
                }
                consumer.commitSync();
            }
        }
        out.flush();
        if (consumed < input.size()) {
            System.err.println("consumed only " + consumed + " of " + input.size() + " records within 60 s");
            System.exit(3);
        }
    }
}
