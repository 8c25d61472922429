package dev.weft.proxy.fleet;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The switch records of the fleet: topic {@value #TOPIC} on the state cluster (one partition: one total
 * order; compacted, so the newest record of each switch survives), read to its end at start and then
 * tailed by a thread of its own, which hands every record, in log order, to the listener.
 *
 * <p>{@link #readWithin} says whether this replica recently knew it had read everything: the time it asked for
 * the end offset that it then read up to. A replica whose last catch-up is older than its lease cannot
 * know the current state and must stop serving (the switch's safety argument, README).
 */
public final class SwitchLog implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SwitchLog.class);
    public static final String TOPIC = "__weft_switches";
    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration POLL = Duration.ofMillis(100);

    private final String stateCluster;
    private final Map<String, Object> clientConfig;
    private final Consumer<SwitchRecord> onRecord;
    private final KafkaProducer<byte[], byte[]> producer;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private volatile long caughtUpNanos;
    private volatile boolean caughtUpOnce;
    private volatile boolean running = true;
    private Thread tail;

    /**
     * @param stateCluster the cluster's name (for log lines)
     * @param clientConfig kafka-clients settings of the state cluster (bootstrap, TLS, SASL)
     * @param onRecord told every record in log order, on the tail thread
     */
    public SwitchLog(String stateCluster, Map<String, Object> clientConfig, Consumer<SwitchRecord> onRecord) {
        this.stateCluster = stateCluster;
        this.clientConfig = Map.copyOf(clientConfig);
        this.onRecord = onRecord;
        Map<String, Object> p = new HashMap<>(clientConfig);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, CALL_TIMEOUT.toMillis());
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 2 * (int) CALL_TIMEOUT.toMillis());
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) CALL_TIMEOUT.toMillis());
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        Map<String, Object> c = new HashMap<>(clientConfig);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) CALL_TIMEOUT.toMillis());
        this.consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Where the records are, for log lines: {@code topic __weft_switches on cluster 'witness'}. */
    public String where() {
        return "topic " + TOPIC + " on cluster '" + stateCluster + "'";
    }

    /**
     * Starts the tail thread (which makes sure the topic exists, reads it from the start and then follows it)
     * and waits up to {@code timeout} for it to have read every record.
     *
     * @return true when it did; false when the state cluster could not be read in time (the thread keeps trying)
     */
    public boolean start(Duration timeout) {
        tail = Thread.ofPlatform().name("weft-switch-log").daemon(true).start(this::tailLoop);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (caughtUpOnce) {
                return true;
            }
            sleepQuietly(50);
        }
        return false;
    }

    /**
     * Whether this replica read every record there was at some time in the last {@code lease}: only then
     * may it serve what the records say.
     */
    public boolean readWithin(Duration lease) {
        return caughtUpOnce && System.nanoTime() - caughtUpNanos < lease.toNanos();
    }

    /** Appends {@code record}; returns once the state cluster acknowledged it (acks=all). */
    public void append(SwitchRecord record) throws ExecutionException, InterruptedException, TimeoutException {
        producer.send(new ProducerRecord<>(TOPIC, 0, record.key(), record.value())).get(3 * CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void tailLoop() {
        boolean failing = false;
        boolean assigned = false;
        while (running) {
            try {
                if (!assigned) {
                    ensureTopic(System.nanoTime() + CALL_TIMEOUT.toNanos() * 2);
                    consumer.assign(List.of(PARTITION));
                    consumer.seekToBeginning(List.of(PARTITION));
                    assigned = true;
                }
                readToEnd();
                if (failing) {
                    LOG.info("switch records ({}) readable again", where());
                    failing = false;
                }
            } catch (org.apache.kafka.common.errors.InterruptException | org.apache.kafka.common.errors.WakeupException e) {
                return;
            } catch (RuntimeException e) {
                if (!failing) {
                    LOG.warn("cannot read the switch records ({}): {}; retrying", where(), e.toString());
                    failing = true;
                }
                sleepQuietly(500);
            }
        }
    }

    /** One round: the end offset asked for, then read up to it. True when it got there. */
    private boolean readToEnd() {
        long asked = System.nanoTime();
        long end = consumer.endOffsets(List.of(PARTITION), CALL_TIMEOUT).get(PARTITION);
        while (running && consumer.position(PARTITION, CALL_TIMEOUT) < end) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                deliver(r);
            }
            if (System.nanoTime() - asked > CALL_TIMEOUT.toNanos() * 3) {
                return false; // too slow to count as caught up; the next round asks again
            }
        }
        caughtUpNanos = asked;
        caughtUpOnce = true;
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
            deliver(r); // new records, if any, go out now; they count as read at the next round
        }
        return true;
    }

    private void deliver(ConsumerRecord<byte[], byte[]> r) {
        SwitchRecord record;
        try {
            record = SwitchRecord.parse(r.key(), r.value());
        } catch (RuntimeException e) {
            LOG.warn("switch records ({}): offset {} is not a switch record ({}); skipped", where(), r.offset(), e.getMessage());
            return;
        }
        onRecord.accept(record);
    }

    private void ensureTopic(long deadline) {
        try (Admin admin = Admin.create(clientConfig)) {
            int brokers = admin.describeCluster().nodes().get(remaining(deadline), TimeUnit.MILLISECONDS).size();
            short rf = (short) Math.max(1, Math.min(3, brokers));
            NewTopic t = new NewTopic(TOPIC, 1, rf).configs(Map.of(
                    TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT,
                    TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, Integer.toString(Math.min(2, rf))));
            try {
                admin.createTopics(List.of(t)).all().get(remaining(deadline), TimeUnit.MILLISECONDS);
                LOG.info("switch records: created {} (replication factor {})", where(), rf);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot reach the state cluster for the switch records (" + where() + "): "
                    + (e.getCause() != null ? e.getCause() : e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating " + where(), e);
        }
    }

    private static long remaining(long deadline) {
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        running = false;
        if (tail != null) {
            consumer.wakeup();
            try {
                tail.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        consumer.close(Duration.ofSeconds(2));
        producer.close(Duration.ofSeconds(2));
    }
}
