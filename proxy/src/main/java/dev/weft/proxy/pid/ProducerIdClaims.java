package dev.weft.proxy.pid;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producer-id translation agreed by every proxy replica of one virtual cluster (DESIGN §5, fleet
 * state): virtual producer id {@code v} (the id the home cluster, route 0, allocated) → the producer id
 * that the cluster of route {@code r} allocated for it, the same on every replica.
 *
 * <p>The agreement is a compacted one-partition state topic on the home cluster ({@link ClaimFormat}
 * for the records). Every replica tails it into a local map (key → first value seen). To claim a key a
 * replica allocates an id on the target cluster, appends it, and reads the partition past its own
 * record: the first record for the key wins, the losers' allocations are abandoned (a never-used
 * producer id on a broker costs nothing but its expiry). The claimer then re-appends the winner, so that
 * the last record per key, which compaction keeps, is the first.
 *
 * <p><b>Residual window.</b> If a losing claimer crashes between its claim and that confirmation, the
 * last record for the key is a loser. {@code min.compaction.lag.ms} of 7 days keeps the whole recent
 * log, so every tailer still sees the first claim; and any tailer that sees the last record disagree
 * with the first for longer than the repair grace (30 s; at start, at once for old records) re-appends
 * the winner. A wrong answer therefore needs the crash, no replica running or starting for the
 * following 7 days, and compaction running on the segment before a replica repairs it. An operator who
 * writes to the topic by hand (a tombstone forgets a key) is trusted.
 *
 * <p>Threads: {@link #cached} and {@link #claim} may be called from any thread (event loops included:
 * neither blocks). Claim futures complete on this replica's claim thread, never on an event loop.
 */
public final class ProducerIdClaims implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ProducerIdClaims.class);

    private final ProducerIdClaimsConfig config;
    private final String[] clusters;
    private final ExecutorService claimThread;
    private final ConcurrentHashMap<ClaimKey, CompletableFuture<Long>> inFlight = new ConcurrentHashMap<>();
    private final ClaimLog log;
    private volatile KafkaProducer<byte[], byte[]> producer;
    private volatile boolean started;
    private volatile boolean closed;

    public ProducerIdClaims(ProducerIdClaimsConfig config) {
        this.config = config;
        this.clusters = config.routeClusters().toArray(String[]::new);
        for (int i = 1; i < clusters.length; i++) {
            if (clusters[i].equals(clusters[0])) {
                clusters[i] = clusters[0]; // same instance: isHome is one reference comparison
            }
        }
        this.claimThread = Executors.newSingleThreadExecutor(
                Thread.ofPlatform().daemon().name("weft-pid-claims-" + config.replicaId()).factory());
        this.log = new ClaimLog(config, claimThread, this::repair);
    }

    public ProducerIdClaimsConfig config() {
        return config;
    }

    /**
     * Creates or checks the state topic, starts the tailer and returns once it has read everything the
     * topic held at start.
     *
     * @throws ProducerIdStateException naming the home cluster and topic when the topic cannot be
     *         created, is not compacted, or cannot be read within the start timeout; nothing is left running
     */
    public void start() {
        if (started || closed) {
            throw new IllegalStateException("start() once, before close()");
        }
        started = true;
        long t0 = System.nanoTime();
        long deadline = t0 + config.startTimeout().toNanos();
        try {
            String outcome;
            Map<String, Object> adminProps = clientProperties("weft-pid-admin-");
            adminProps.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(30_000, config.startTimeout().toMillis()));
            adminProps.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) config.startTimeout().toMillis());
            try (Admin admin = Admin.create(adminProps)) {
                outcome = StateTopic.ensure(admin, config, deadline);
            }
            producer = new KafkaProducer<>(producerProperties(), new ByteArraySerializer(), new ByteArraySerializer());
            int keys = awaitCatchUp(log.start(), deadline);
            LOG.info("producer-id state {}: {}; {} claims loaded (read up to offset {}) in {} ms; replica '{}', routes {}",
                    config.where(), outcome, keys, log.position(), (System.nanoTime() - t0) / 1_000_000,
                    config.replicaId(), config.routeClusters());
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private int awaitCatchUp(CompletableFuture<Integer> caughtUp, long deadline) {
        try {
            return caughtUp.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            Throwable err = log.lastError();
            throw new ProducerIdStateException("producer-id state " + config.where() + ": the tailer did not catch up"
                    + " within the start timeout (" + config.startTimeout().toMillis() + " ms; read up to offset "
                    + log.position() + ")" + (err == null ? "" : ": " + err.getMessage()), err);
        } catch (ExecutionException e) {
            throw new ProducerIdStateException("producer-id state " + config.where() + ": cannot read it: "
                    + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProducerIdStateException("producer-id state " + config.where() + ": interrupted while loading", e);
        }
    }

    /**
     * The agreed upstream producer id of {@code virtualPid} on route {@code route}'s cluster, or -1 when
     * this replica knows none yet. A route to the home cluster (route 0, and any other route naming it)
     * answers {@code virtualPid} itself. Lock-free, one map lookup; called for produce batches bound for a
     * non-home cluster (behind a per-core cache).
     */
    public long cached(long virtualPid, int route) {
        if (isHome(virtualPid, route)) {
            return virtualPid;
        }
        Long w = log.winner(new ClaimKey(virtualPid, cluster(route)));
        return w == null ? -1 : w;
    }

    /**
     * The agreed upstream producer id of {@code virtualPid} on route {@code route}'s cluster, claiming
     * one when none is known: {@code allocate} is called (at most once per key at a time on this replica:
     * concurrent callers share one claim) to get a fresh id from that cluster (InitProducerId over the
     * caller's own connection), the id is appended to the state topic, and the future completes with the
     * first claim in the log for the key: this one or another replica's.
     *
     * <p>Completes at once when the answer is known (a route to the home cluster: {@code virtualPid});
     * otherwise on the claim thread. Exceptionally with a {@link ProducerIdStateException} (cause attached) when the
     * allocation fails or times out, or the state topic cannot be written or read back in the claim
     * timeout; nothing is remembered, so a later claim tries again.
     */
    public CompletableFuture<Long> claim(long virtualPid, int route, Supplier<CompletableFuture<Long>> allocate) {
        if (isHome(virtualPid, route)) {
            return CompletableFuture.completedFuture(virtualPid);
        }
        ClaimKey key = new ClaimKey(virtualPid, cluster(route));
        Long known = log.winner(key);
        if (known != null) {
            return CompletableFuture.completedFuture(known);
        }
        if (closed || !started) {
            return CompletableFuture.failedFuture(new ProducerIdStateException("producer-id state " + config.where()
                    + ": cannot claim " + key + ": " + (closed ? "closed" : "not started")));
        }
        CompletableFuture<Long> mine = new CompletableFuture<>();
        CompletableFuture<Long> running = inFlight.putIfAbsent(key, mine);
        if (running != null) {
            return running.copy();
        }
        known = log.winner(key); // decided between the first look and joining the in-flight map
        if (known != null) {
            inFlight.remove(key, mine);
            mine.complete(known);
            return mine.copy();
        }
        LOG.debug("producer-id state: replica '{}' claims {}", config.replicaId(), key);
        long t0 = System.nanoTime();
        CompletableFuture<Long> allocation;
        try {
            allocation = allocate.get();
            if (allocation == null) {
                throw new NullPointerException("the allocation supplier returned null");
            }
        } catch (Throwable t) {
            allocation = CompletableFuture.failedFuture(t);
        }
        allocation.orTimeout(config.claimTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .whenCompleteAsync((id, error) -> afterAllocation(key, mine, id, error, t0), claimThread);
        return mine.copy();
    }

    private void afterAllocation(ClaimKey key, CompletableFuture<Long> mine, Long id, Throwable error, long t0) {
        Throwable cause = unwrap(error);
        if (cause == null && (id == null || id < 0)) {
            cause = new IllegalArgumentException("the allocation returned " + id + ", not a producer id");
        }
        if (cause != null) {
            String what = cause instanceof TimeoutException ? "did not complete within " + config.claimTimeout().toMillis()
                    + " ms" : "failed: " + cause.getMessage();
            fail(key, mine, new ProducerIdStateException("producer-id state: allocating a producer id on cluster '"
                    + key.cluster() + "' for virtual producer id " + key.virtualPid() + " " + what, cause));
            return;
        }
        Long known = log.winner(key);
        if (known != null) {
            LOG.warn("producer-id state: {} was decided (upstream id {}) while replica '{}' allocated; its allocation"
                    + " {} is abandoned", key, known, config.replicaId(), id);
            succeed(key, mine, known);
            return;
        }
        KafkaProducer<byte[], byte[]> p = producer;
        if (closed || p == null) {
            fail(key, mine, new ProducerIdStateException("producer-id state " + config.where() + ": closed"));
            return;
        }
        try {
            p.send(record(key, id, ClaimFormat.Kind.CLAIM), (metadata, sendError) -> {
                if (sendError != null) {
                    onClaimThread(() -> fail(key, mine, new ProducerIdStateException("producer-id state: cannot append"
                            + " the claim for " + key + " to " + config.where() + ": " + sendError.getClass().getSimpleName()
                            + ": " + sendError.getMessage() + " (upstream id " + id + " is abandoned)", sendError)));
                    return;
                }
                log.awaitPast(metadata.offset(), key).whenComplete((winner, readError) -> {
                    if (readError != null) {
                        fail(key, mine, unwrap(readError));
                        return;
                    }
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    if (winner.longValue() == id) {
                        LOG.debug("producer-id state: replica '{}' won {} with upstream id {} (offset {}, {} ms)",
                                config.replicaId(), key, id, metadata.offset(), ms);
                    } else {
                        LOG.warn("producer-id state: replica '{}' lost the race for {}: an earlier claim says upstream"
                                + " id {}; its own allocation {} (offset {}) is abandoned", config.replicaId(), key, winner,
                                id, metadata.offset());
                    }
                    succeed(key, mine, winner);
                    append(key, winner, ClaimFormat.Kind.CONFIRM);
                });
            });
        } catch (RuntimeException e) {
            fail(key, mine, new ProducerIdStateException("producer-id state: cannot append the claim for " + key
                    + " to " + config.where() + ": " + e.getMessage(), e));
        }
    }

    /** Callers' callbacks run on the claim thread, not on the producer's network thread. */
    private void onClaimThread(Runnable r) {
        try {
            claimThread.execute(r);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            r.run(); // closing
        }
    }

    private void succeed(ClaimKey key, CompletableFuture<Long> mine, long winner) {
        inFlight.remove(key, mine);
        mine.complete(winner);
    }

    private void fail(ClaimKey key, CompletableFuture<Long> mine, Throwable error) {
        LOG.debug("producer-id state: replica '{}' failed to claim {}: {}", config.replicaId(), key, error.getMessage());
        inFlight.remove(key, mine);
        mine.completeExceptionally(error);
    }

    private void repair(ClaimKey key, long winner) {
        append(key, winner, ClaimFormat.Kind.REPAIR);
    }

    /** Re-appends a decided winner; a failure is only logged (the repair of any tailer covers it). */
    private void append(ClaimKey key, long winner, ClaimFormat.Kind kind) {
        KafkaProducer<byte[], byte[]> p = producer;
        if (closed || p == null) {
            return;
        }
        try {
            p.send(record(key, winner, kind), (m, e) -> {
                if (e != null && !closed) {
                    LOG.warn("producer-id state: cannot append the {} of {} (upstream id {}) to {}: {}", kind.label(),
                            key, winner, config.where(), e.getMessage());
                }
            });
        } catch (RuntimeException e) {
            if (!closed) {
                LOG.warn("producer-id state: cannot append the {} of {} to {}: {}", kind.label(), key, config.where(),
                        e.getMessage());
            }
        }
    }

    private ProducerRecord<byte[], byte[]> record(ClaimKey key, long upstreamPid, ClaimFormat.Kind kind) {
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(config.topic(), 0, ClaimFormat.key(key),
                ClaimFormat.value(upstreamPid));
        ClaimFormat.headers(r.headers(), config.replicaId(), kind);
        return r;
    }

    /**
     * Whether {@code virtualPid} means itself on {@code route}: the home cluster allocated it (no route bits,
     * {@link dev.weft.routing.plan.IdempotentProducerIds}) and the route leads there.
     */
    private boolean isHome(long virtualPid, int route) {
        return dev.weft.routing.plan.IdempotentProducerIds.allocatingRoute(virtualPid) == 0 && clusters[checked(route)] == clusters[0];
    }

    private int checked(int route) {
        if (route < 0 || route >= clusters.length) {
            throw new IllegalArgumentException("route " + route + " does not exist (routes: " + config.routeClusters() + ")");
        }
        return route;
    }

    private String cluster(int route) {
        if (route < 0 || route >= clusters.length) {
            throw new IllegalArgumentException("route " + route + " does not exist (routes: " + config.routeClusters() + ")");
        }
        return clusters[route];
    }

    private Map<String, Object> clientProperties(String clientIdPrefix) {
        Map<String, Object> p = new HashMap<>(config.clientProperties());
        p.put("bootstrap.servers", config.homeBootstrap());
        p.put("client.id", clientIdPrefix + config.replicaId());
        return p;
    }

    private Map<String, Object> producerProperties() {
        Map<String, Object> p = clientProperties("weft-pid-claims-");
        int claimMs = (int) Math.min(Integer.MAX_VALUE, config.claimTimeout().toMillis());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Math.min(10_000, claimMs));
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.min(10_000, claimMs));
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, claimMs); // >= request.timeout.ms + linger.ms (0)
        p.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        return p;
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Keys this replica knows the winner of. */
    public int size() {
        return log.size();
    }

    /** Stops the tailer and the clients and joins their threads; pending claims fail. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        log.close();
        KafkaProducer<byte[], byte[]> p = producer;
        if (p != null) {
            p.close(Duration.ofSeconds(5));
        }
        claimThread.shutdown();
        try {
            if (!claimThread.awaitTermination(10, TimeUnit.SECONDS)) {
                LOG.warn("producer-id state {}: the claim thread did not stop within 10 s", config.where());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Map.Entry<ClaimKey, CompletableFuture<Long>> e : List.copyOf(inFlight.entrySet())) {
            e.getValue().completeExceptionally(new ProducerIdStateException("producer-id state " + config.where()
                    + ": closed while claiming " + e.getKey()));
        }
        inFlight.clear();
    }
}
