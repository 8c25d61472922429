package dev.weft.proxy.pid;

import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tailer: one thread reads partition 0 of the state topic from the beginning, forever, into a
 * concurrent map key → first value seen (the winner), and publishes how far it has read. Only this
 * thread writes the map; anyone reads it without locks.
 *
 * <p>It also watches for keys whose last record disagrees with the first: normally a loser's claim is
 * followed within milliseconds by its confirmation of the winner; if the disagreement lasts longer
 * than the repair grace (the claimer crashed in between), the winner is handed to the repairer to be
 * re-appended, so that compaction (which keeps the last record per key) cannot keep a loser.
 */
final class ClaimLog implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClaimLog.class);
    private static final Duration POLL = Duration.ofMillis(200);

    interface Repairer {
        void repair(ClaimKey key, long winner);
    }

    private record Waiter(long offset, ClaimKey key, CompletableFuture<Long> future, long deadlineNanos) {
    }

    private final ProducerIdClaimsConfig config;
    private final TopicPartition partition;
    private final Executor callbacks;
    private final Repairer repairer;
    private final Map<String, Object> consumerProperties;
    private final ConcurrentHashMap<ClaimKey, Long> winners = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Waiter> waiters = new ConcurrentLinkedQueue<>();
    private final CompletableFuture<Integer> caughtUp = new CompletableFuture<>();
    private final Thread thread;
    private volatile long position = -1; // the next offset to read; every record before it is in winners
    private volatile boolean running = true;
    private volatile Throwable lastError;
    private volatile KafkaConsumer<byte[], byte[]> consumer; // used by the tailer thread only, except wakeup()

    // tailer thread only
    private final Map<ClaimKey, long[]> disagreeing = new HashMap<>(); // key -> {last value, since epoch ms}
    private long lastRepairScanNanos;

    ClaimLog(ProducerIdClaimsConfig config, Executor callbacks, Repairer repairer) {
        this.config = config;
        this.partition = new TopicPartition(config.topic(), 0);
        this.callbacks = callbacks;
        this.repairer = repairer;
        Map<String, Object> p = new HashMap<>(config.clientProperties());
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.homeBootstrap());
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "weft-pid-tailer-" + config.replicaId());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        p.remove(ConsumerConfig.GROUP_ID_CONFIG); // assigned, never in a group
        this.consumerProperties = p;
        this.thread = Thread.ofPlatform().daemon().name("weft-pid-tailer-" + config.replicaId()).unstarted(this::run);
    }

    /** Starts the thread; the future completes with the number of keys loaded once the start's end offset is read. */
    CompletableFuture<Integer> start() {
        thread.start();
        return caughtUp;
    }

    /** The winner of {@code key}, or null. Lock-free. */
    Long winner(ClaimKey key) {
        return winners.get(key);
    }

    int size() {
        return winners.size();
    }

    /** The next offset the tailer will read: every record before it is reflected in {@link #winner}. */
    long position() {
        return position;
    }

    Throwable lastError() {
        return lastError;
    }

    /**
     * Completes (on the callbacks executor) with the winner of {@code key} once the tailer has read past
     * {@code offset}, where this replica's claim for it was appended; exceptionally after the claim timeout.
     */
    CompletableFuture<Long> awaitPast(long offset, ClaimKey key) {
        Waiter w = new Waiter(offset, key, new CompletableFuture<>(), System.nanoTime() + config.claimTimeout().toNanos());
        waiters.add(w);
        if (position > offset && waiters.remove(w)) {
            resolve(w); // the tailer got there before the waiter was queued
        }
        return w.future();
    }

    private void run() {
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProperties, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer = c;
            if (!running) {
                return;
            }
            c.assign(List.of(partition));
            c.seekToBeginning(List.of(partition));
            long end = -1;
            long loaded = 0;
            while (running) {
                try {
                    if (end < 0) {
                        end = c.endOffsets(List.of(partition), POLL.multipliedBy(5)).get(partition);
                        position = c.position(partition, POLL.multipliedBy(5));
                    }
                    ConsumerRecords<byte[], byte[]> records = c.poll(POLL);
                    for (ConsumerRecord<byte[], byte[]> r : records) {
                        apply(r);
                        loaded++;
                    }
                    position = c.position(partition, POLL.multipliedBy(5));
                    lastError = null;
                    if (!caughtUp.isDone() && position >= end) {
                        LOG.debug("producer-id state {}: caught up at offset {} ({} records read)", config.where(),
                                position, loaded);
                        caughtUp.complete(winners.size());
                    }
                    long now = System.nanoTime();
                    resolveWaiters(now);
                    if (caughtUp.isDone() && now - lastRepairScanNanos > 1_000_000_000L) {
                        lastRepairScanNanos = now;
                        repairDisagreements();
                    }
                } catch (WakeupException e) {
                    // close() asked
                } catch (org.apache.kafka.common.errors.TimeoutException e) {
                    lastError = e; // the home cluster does not answer yet; the consumer keeps trying
                    resolveWaiters(System.nanoTime());
                } catch (KafkaException e) {
                    if (lastError == null || !String.valueOf(lastError.getMessage()).equals(e.getMessage())) {
                        LOG.warn("producer-id state {}: reading failed, retrying: {}: {}", config.where(),
                                e.getClass().getSimpleName(), e.getMessage());
                    }
                    lastError = e;
                    resolveWaiters(System.nanoTime());
                    sleepQuietly(1000);
                }
            }
        } catch (Throwable t) {
            lastError = t;
            LOG.error("producer-id state {}: the tailer stopped: {}", config.where(), t.toString(), t);
            caughtUp.completeExceptionally(t);
        } finally {
            running = false;
            failAll(new ProducerIdStateException("producer-id state " + config.where() + ": the tailer of replica '"
                    + config.replicaId() + "' stopped (closing)"));
        }
    }

    private void apply(ConsumerRecord<byte[], byte[]> r) {
        ClaimKey key = ClaimFormat.parseKey(r.key());
        if (key == null) {
            LOG.warn("producer-id state {}: skipping offset {}: {}", config.where(), r.offset(),
                    ClaimFormat.describe(r.key()));
            return;
        }
        if (r.value() == null) {
            Long was = winners.remove(key);
            disagreeing.remove(key);
            LOG.info("producer-id state {}: tombstone at offset {} forgets {} (was upstream id {})", config.where(),
                    r.offset(), key, was);
            return;
        }
        long value = ClaimFormat.parseValue(r.value());
        if (value < 0) {
            LOG.warn("producer-id state {}: skipping offset {}: value of {} is not a producer id", config.where(),
                    r.offset(), key);
            return;
        }
        Long first = winners.putIfAbsent(key, value);
        if (first == null || first == value) {
            disagreeing.remove(key);
        } else {
            long[] d = disagreeing.get(key);
            if (d == null) {
                disagreeing.put(key, new long[] {value, r.timestamp()});
            } else {
                d[0] = value;
            }
        }
    }

    private void resolveWaiters(long nowNanos) {
        long pos = position;
        for (Iterator<Waiter> it = waiters.iterator(); it.hasNext();) {
            Waiter w = it.next();
            if (w.offset() < pos) {
                if (waiters.remove(w)) {
                    resolve(w);
                }
            } else if (nowNanos - w.deadlineNanos() > 0 && waiters.remove(w)) {
                Throwable err = lastError;
                complete(w.future(), null, new ProducerIdStateException("producer-id state " + config.where()
                        + ": the claim for " + w.key() + " was appended at offset " + w.offset()
                        + " but not read back within " + config.claimTimeout().toMillis() + " ms (read up to offset "
                        + pos + ")" + (err == null ? "" : "; last error: " + err.getMessage()), err));
            }
        }
    }

    private void resolve(Waiter w) {
        Long winner = winners.get(w.key());
        if (winner == null) {
            complete(w.future(), null, new ProducerIdStateException("producer-id state " + config.where()
                    + ": the claim for " + w.key() + " at offset " + w.offset()
                    + " was deleted by a tombstone before it was decided; claim again"));
        } else {
            complete(w.future(), winner, null);
        }
    }

    private void complete(CompletableFuture<Long> f, Long value, Throwable error) {
        Runnable r = () -> {
            if (error == null) {
                f.complete(value);
            } else {
                f.completeExceptionally(error);
            }
        };
        try {
            callbacks.execute(r);
        } catch (RejectedExecutionException e) {
            r.run(); // closing
        }
    }

    private void repairDisagreements() {
        if (disagreeing.isEmpty()) {
            return;
        }
        long now = System.currentTimeMillis();
        long grace = config.repairGrace().toMillis();
        for (Map.Entry<ClaimKey, long[]> e : disagreeing.entrySet()) {
            long[] d = e.getValue();
            if (d[1] + grace <= now) {
                Long winner = winners.get(e.getKey());
                LOG.warn("producer-id state {}: the last record for {} says upstream id {} but the first (the winner)"
                        + " says {}, for {} ms (a claimer crashed before confirming?); re-appending the winner so that"
                        + " compaction keeps it", config.where(), e.getKey(), d[0], winner, now - d[1]);
                d[1] = now; // try again after another grace if the repair does not arrive
                repairer.repair(e.getKey(), winner);
            }
        }
    }

    private void failAll(Throwable error) {
        for (Waiter w; (w = waiters.poll()) != null;) {
            complete(w.future(), null, error);
        }
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
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        if (thread.isAlive() || thread.getState() != Thread.State.NEW) {
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (thread.isAlive()) {
                LOG.warn("producer-id state {}: the tailer thread did not stop within 10 s", config.where());
            }
        }
        caughtUp.completeExceptionally(new ProducerIdStateException("producer-id state " + config.where() + ": closed"));
    }
}
