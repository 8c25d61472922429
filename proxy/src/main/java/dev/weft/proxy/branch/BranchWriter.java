package dev.weft.proxy.branch;

import dev.weft.routing.branch.transform.BatchContext;
import dev.weft.routing.branch.transform.BranchRecord;
import dev.weft.routing.branch.transform.TransformChain;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The off-loop half of one branch (stream branching, DESIGN §3): takes the batches the event loops hand
 * over through its {@linkplain #lane lanes}, decodes them with kafka-clients (decompression included),
 * runs the branch's {@link TransformChain} over their records and produces what comes out to the branch
 * cluster with its own {@link KafkaProducer} — its own producer identity, idempotent, so the branch's
 * copies of one partition keep their order. Nothing here runs on an event loop and nothing here can
 * stall one: the loops only offer to bounded lanes and drop when full.
 *
 * <p>Guarantees: at most once (a batch dropped at a full lane, or given up by the producer while the
 * branch is down, is counted, not retried later); per partition, what reaches the branch is in the
 * primary's order. A branch that comes back gets the records acknowledged from then on, not the ones
 * dropped meanwhile. The branch's state (up: its last send was acknowledged; down: its last send
 * failed) is logged once per change.
 *
 * <p>One thread per writer; {@link #close()} stops it, drains nothing further and closes the producer.
 */
public final class BranchWriter implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BranchWriter.class);
    /** How long the writer sleeps when every lane is empty: the latency a branch copy may add, never the primary's. */
    private static final long IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /**
     * How long a held transaction may wait for its end: Kafka's default {@code transaction.max.timeout.ms},
     * past which the coordinator has aborted any transaction on its own.
     */
    static final long HOLD_TIMEOUT_NANOS = TimeUnit.MINUTES.toNanos(15);
    private static final long EXPIRY_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final String name;
    private final TransformChain chain;
    /** Where every record of this branch goes (derived streams), or null: each batch's own target topic. */
    private final String fixedTopic;
    /** One lane per event loop that has offered, made on its first offer; the writer reads the array it last saw. */
    private volatile BranchLane[] lanes = new BranchLane[0];
    private final Map<Object, BranchLane> laneByLoop = new java.util.concurrent.ConcurrentHashMap<>();
    private final int laneBatches;
    private final long laneBytes;
    private final BranchWriterCounters counters;
    private final KafkaProducer<byte[], byte[]> producer;
    private final Thread thread;
    private final List<BranchRecord> decoded = new ArrayList<>();
    /** Transactional batches waiting for their end, or null when this branch skips them. Writer thread only. */
    private final TransactionHold hold;
    private volatile long heldBytes;
    private volatile boolean running = true;
    /** Up (true) or down (false) as last seen by a send's outcome; written by the producer's callback thread. */
    private volatile boolean up = true;

    /**
     * @param name names the branch in logs and the thread, e.g. {@code main/shadow/staging}
     * @param producerConfig the branch cluster's client settings (bootstrap servers, security); the writer
     *     adds serializers and its own defaults where not set (acks=all, idempotence, a bounded wait for metadata)
     * @param fixedTopic the one topic every record goes to, partitioned by key (a derived stream such as
     *     audit or count), or null to send each batch's records to its {@link BranchBatch#targetTopic()}
     * @param laneBatches the bound of batches each event loop's lane holds
     * @param laneBytes the bound of record bytes each lane holds
     */
    public BranchWriter(String name, Map<String, Object> producerConfig, TransformChain chain, String fixedTopic,
                        int laneBatches, long laneBytes, BranchWriterCounters counters) {
        this(name, producerConfig, chain, fixedTopic, laneBatches, laneBytes, 0, counters);
    }

    /**
     * @param holdBytes when above 0, transactional batches are held until their transaction ends, up to
     *     this many record bytes ({@code transactional: hold}); 0: the event loops never hand them over
     */
    public BranchWriter(String name, Map<String, Object> producerConfig, TransformChain chain, String fixedTopic,
                        int laneBatches, long laneBytes, long holdBytes, BranchWriterCounters counters) {
        this.name = name;
        this.hold = holdBytes > 0 ? new TransactionHold(holdBytes, HOLD_TIMEOUT_NANOS, counters) : null;
        this.chain = chain;
        this.fixedTopic = fixedTopic;
        this.counters = counters;
        this.laneBatches = laneBatches;
        this.laneBytes = laneBytes;
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        // a branch that is down must not hold the writer for long: its lanes fill and drop instead
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 1_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, "weft-branch-" + name);
        config.putAll(producerConfig);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        this.producer = new KafkaProducer<>(config);
        this.thread = new Thread(this::run, "weft-branch-" + name);
        thread.setDaemon(true);
    }

    public BranchWriter start() {
        thread.start();
        return this;
    }

    /**
     * The lane of event loop {@code loop} (any object standing for one thread that offers): made on first
     * use. Each loop offers only to its own lane, so each lane has one producer.
     */
    public BranchLane lane(Object loop) {
        BranchLane lane = laneByLoop.get(loop);
        return lane != null ? lane : newLane(loop);
    }

    private synchronized BranchLane newLane(Object loop) {
        return laneByLoop.computeIfAbsent(loop, l -> {
            BranchLane lane = new BranchLane(laneBatches, laneBytes, counters);
            BranchLane[] more = java.util.Arrays.copyOf(lanes, lanes.length + 1);
            more[more.length - 1] = lane;
            lanes = more;
            return lane;
        });
    }

    public BranchWriterCounters counters() {
        return counters;
    }

    public TransformChain chain() {
        return chain;
    }

    /** Batches waiting in all lanes. */
    public int queueDepth() {
        int depth = 0;
        for (BranchLane lane : lanes) {
            depth += lane.depth();
        }
        return depth;
    }

    /** Whether this writer holds transactional batches until their transaction ends. */
    public boolean holdsTransactions() {
        return hold != null;
    }

    /** Record bytes of transactional batches held now (read by the metrics). */
    public long heldBytes() {
        return heldBytes;
    }

    /**
     * The primary answered a client's EndTxn without error: queues the end behind what every lane holds,
     * so each lane's share of the transaction is written (commit) or dropped (abort). Any thread; called
     * before the client gets its answer, so the producer's next transaction comes after it in every lane.
     */
    public void transactionEnded(long producerId, boolean committed) {
        if (hold == null) {
            return;
        }
        TransactionEnd end = new TransactionEnd(producerId, committed);
        for (BranchLane lane : lanes) {
            if (!lane.offer(end)) {
                LOG.warn("branch {}: a lane is full beyond its room; the end of producer {}'s transaction waits for"
                        + " the hold timeout instead (its records are then dropped and counted)", name, producerId);
            }
        }
    }

    /** Whether the branch's last send was acknowledged (true before any send). */
    public boolean isUp() {
        return up;
    }

    private void run() {
        long nextExpiry = System.nanoTime() + EXPIRY_CHECK_NANOS;
        while (running) {
            boolean worked = false;
            BranchLane[] current = lanes;
            for (BranchLane lane : current) {
                Object item = lane.poll();
                if (item != null) {
                    worked = true;
                    take(lane, item, current.length);
                }
            }
            tickChain();
            if (hold != null && System.nanoTime() - nextExpiry > 0) {
                hold.expire(System.nanoTime());
                heldBytes = hold.heldBytes();
                nextExpiry = System.nanoTime() + EXPIRY_CHECK_NANOS;
            }
            if (!worked) {
                LockSupport.parkNanos(IDLE_PARK_NANOS);
            }
        }
    }

    private void take(BranchLane lane, Object item, int laneCount) {
        if (item instanceof BranchBatch batch) {
            if (batch.heldFor() != BranchBatch.NOT_HELD && hold != null) {
                hold.hold(lane, batch, System.nanoTime());
                heldBytes = hold.heldBytes();
            } else {
                write(batch);
            }
        } else if (item instanceof TransactionEnd end && hold != null) {
            hold.end(lane, end, laneCount, this::write);
            heldBytes = hold.heldBytes();
        }
    }

    private void tickChain() {
        try {
            chain.tick(System.currentTimeMillis(), r -> send(r, null, null));
        } catch (RuntimeException e) {
            LOG.warn("branch {}: a time-driven transform failed: {}", name, e.toString());
        }
    }

    /** Decodes one batch, runs the chain over each of its record batches and sends the result. */
    private void write(BranchBatch batch) {
        BatchContext context = batch.context();
        try {
            ByteBuffer bytes = batch.records().nioBuffer();
            long offset = context.baseOffset();
            for (RecordBatch recordBatch : MemoryRecords.readableRecords(bytes).batches()) {
                decoded.clear();
                for (Record record : recordBatch) {
                    decoded.add(toBranchRecord(record));
                }
                BatchContext one = new BatchContext(context.virtualCluster(), context.topic(), context.partition(), offset,
                        decoded.size(), context.clientId(), context.principal(), context.timeMs());
                offset += decoded.size();
                // copies keep the client's partition (and so its order); derived records go by their key
                Integer partition = chain.derives() ? null : batch.targetPartition();
                chain.apply(one, decoded, r -> send(r, batch.targetTopic(), partition));
            }
        } catch (RuntimeException e) {
            counters.undecodable(context.recordCount());
            LOG.warn("branch {}: cannot decode a batch of {} partition {} (dropped, counted): {}", name, context.topic(),
                    context.partition(), e.toString());
        } finally {
            decoded.clear();
            batch.records().release();
        }
    }

    private void send(BranchRecord record, String topic, Integer partition) {
        String target = fixedTopic != null ? fixedTopic : topic;
        if (target == null) {
            counters.failed();                       // a time-driven record with no fixed topic: refused at config
            return;
        }
        if (fixedTopic != null) {
            partition = null;                        // one topic for everything: partitioned by key
        }
        List<Header> headers = new ArrayList<>(record.headers().size());
        for (BranchRecord.Header h : record.headers()) {
            headers.add(new RecordHeader(h.name(), h.value()));
        }
        long bytes = (record.key() == null ? 0 : record.key().length) + (record.value() == null ? 0 : record.value().length);
        long sentAt = System.nanoTime();
        try {
            producer.send(new ProducerRecord<>(target, partition, record.timestampMs(), record.key(), record.value(), headers),
                    (metadata, error) -> {
                        if (error == null) {
                            counters.acked((System.nanoTime() - sentAt) / 1_000);
                            markUp();
                        } else {
                            counters.failed();
                            markDown(error.toString());
                        }
                    });
            counters.sent(bytes);
        } catch (RuntimeException e) {        // metadata not available in max.block.ms, producer closed, too large
            counters.failed();
            markDown(e.toString());
        }
    }

    private void markUp() {
        if (!up) {
            up = true;
            LOG.info("branch {}: up again (a send was acknowledged); records dropped while it was down are not resent", name);
        }
    }

    private void markDown(String why) {
        if (up) {
            up = false;
            LOG.warn("branch {}: down ({}); its copies are dropped and counted until it answers again; the primary is not affected",
                    name, why);
        }
    }

    private static BranchRecord toBranchRecord(Record record) {
        List<BranchRecord.Header> headers = new ArrayList<>(record.headers().length);
        for (Header h : record.headers()) {
            headers.add(new BranchRecord.Header(h.key(), h.value()));
        }
        return new BranchRecord(bytesOf(record.key()), bytesOf(record.value()), headers, record.timestamp());
    }

    private static byte[] bytesOf(ByteBuffer b) {
        if (b == null) {
            return null;
        }
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!thread.isAlive()) {                // stopped, or never started: nothing else polls the lanes now
            for (BranchLane lane : lanes) {
                for (Object item; (item = lane.poll()) != null; ) {
                    if (item instanceof BranchBatch b) {
                        b.records().release();
                    }
                }
            }
            if (hold != null) {
                hold.releaseAll();
            }
        }
        producer.close(java.time.Duration.ofSeconds(5));
    }
}
