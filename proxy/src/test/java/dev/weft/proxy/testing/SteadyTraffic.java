package dev.weft.proxy.testing;

import dev.weft.testkit.KafkaCluster;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * An idempotent producer and a consumer group on one topic through the proxy, running on their own
 * threads until {@link #finish}: what was acknowledged, what failed, what the group read, and how many
 * connections the clients opened and closed (their own metrics, so a reconnect cannot go unseen).
 */
public final class SteadyTraffic implements AutoCloseable {

    /** The clients' {@code connection-creation-total} and {@code connection-close-total}, producer and consumer together. */
    public record Connections(double created, double closed) {
    }

    private final KafkaProducer<String, String> producer;
    private final KafkaConsumer<String, String> consumer;
    private final KafkaCluster home;
    private final String topic;
    private final long baseline;
    private final AtomicInteger acked = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicInteger consumed = new AtomicInteger();
    private final AtomicReference<Exception> firstFailure = new AtomicReference<>();
    private volatile boolean running = true;
    private final Thread sending;
    private final Thread reading;

    private SteadyTraffic(String bootstrap, String topic, String name, Map<String, Object> security, KafkaCluster home) {
        this.home = home;
        this.topic = topic;
        this.baseline = countOn(home, topic);
        Map<String, Object> p = new HashMap<>(security);
        p.put("bootstrap.servers", bootstrap);
        p.put("client.id", name + "-producer");
        p.put("acks", "all");
        p.put("enable.idempotence", "true");
        p.put("linger.ms", "5");
        p.put("delivery.timeout.ms", "60000");
        p.put("max.block.ms", "3000"); // a removed virtual cluster's producer gives up soon
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        producer = new KafkaProducer<>(p);
        Map<String, Object> c = new HashMap<>(security);
        c.put("bootstrap.servers", bootstrap);
        c.put("client.id", name + "-consumer");
        c.put("group.id", name + "-group");
        c.put("auto.offset.reset", "earliest");
        c.put("key.deserializer", StringDeserializer.class.getName());
        c.put("value.deserializer", StringDeserializer.class.getName());
        consumer = new KafkaConsumer<>(c);
        sending = Thread.ofPlatform().name(name + "-send").start(this::send);
        reading = Thread.ofPlatform().name(name + "-read").start(this::read);
    }

    public static SteadyTraffic start(String bootstrap, String topic, String name, Map<String, Object> security, KafkaCluster home) {
        return new SteadyTraffic(bootstrap, topic, name, security, home);
    }

    private void send() {
        for (int i = 0; running; i++) {
            try {
                producer.send(new ProducerRecord<>(topic, Integer.toString(i), "v" + i), (metadata, error) -> {
                    if (error == null) {
                        acked.incrementAndGet();
                    } else {
                        failed.incrementAndGet();
                        firstFailure.compareAndSet(null, error);
                    }
                });
            } catch (org.apache.kafka.common.KafkaException e) {
                failed.incrementAndGet(); // no metadata within max.block.ms: nothing was sent
                firstFailure.compareAndSet(null, e);
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void read() {
        consumer.subscribe(List.of(topic));
        while (running) {
            consumed.addAndGet(consumer.poll(Duration.ofMillis(200)).count());
        }
    }

    /** Waits until {@code n} records were acknowledged and the group has read some (its connections are all up). */
    public void awaitAcked(int n) {
        Poll.until(Duration.ofSeconds(60), n + " acknowledged and the group reading",
                () -> acked.get() >= n && consumed.get() > 0 || failed.get() > 0,
                () -> "acked " + acked + ", failed " + failed + ", consumed " + consumed + ", first failure " + firstFailure.get());
        if (failed.get() > 0) {
            throw new AssertionError("a send failed: " + firstFailure.get(), firstFailure.get());
        }
    }

    /** Stops sending (waiting for every send to be answered) and reading; the clients stay open. */
    public void finish() throws InterruptedException {
        running = false;
        sending.join(TimeUnit.SECONDS.toMillis(30));
        producer.flush();
        reading.join(TimeUnit.SECONDS.toMillis(30));
    }

    public int acked() {
        return acked.get();
    }

    public int failed() {
        return failed.get();
    }

    public int consumed() {
        return consumed.get();
    }

    /** Records on the topic, read on its cluster directly, since this traffic started. */
    public long landed() {
        return countOn(home, topic) - baseline;
    }

    public Connections connections() {
        return new Connections(total(producer.metrics(), "producer-metrics", "connection-creation-total")
                + total(consumer.metrics(), "consumer-metrics", "connection-creation-total"),
                total(producer.metrics(), "producer-metrics", "connection-close-total")
                        + total(consumer.metrics(), "consumer-metrics", "connection-close-total"));
    }

    /** KIP-368 re-authentications the clients themselves completed on their connections (their own metrics). */
    public double reauthentications() {
        return total(producer.metrics(), "producer-metrics", "successful-reauthentication-total")
                + total(consumer.metrics(), "consumer-metrics", "successful-reauthentication-total");
    }

    private static double total(Map<MetricName, ? extends Metric> metrics, String group, String name) {
        return metrics.entrySet().stream().filter(e -> e.getKey().group().equals(group) && e.getKey().name().equals(name))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }

    /** Every record of {@code topic} on {@code cluster} (idempotent, non-transactional producers: end minus start offsets). */
    public static long countOn(KafkaCluster cluster, String topic) {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions().size();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
            for (int i = 0; i < partitions; i++) {
                latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
                earliest.put(new TopicPartition(topic, i), OffsetSpec.earliest());
            }
            long end = admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).values().stream().mapToLong(o -> o.offset()).sum();
            long start = admin.listOffsets(earliest).all().get(30, TimeUnit.SECONDS).values().stream().mapToLong(o -> o.offset()).sum();
            return end - start;
        } catch (Exception e) {
            throw new IllegalStateException("cannot count the records of " + topic + " on " + cluster.bootstrapServers(), e);
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        sending.join(TimeUnit.SECONDS.toMillis(30));
        reading.join(TimeUnit.SECONDS.toMillis(30));
        producer.close(Duration.ofSeconds(2)); // what is still unsent after finish() (a removed virtual cluster's) is dropped
        consumer.close(Duration.ofSeconds(10));
    }
}
