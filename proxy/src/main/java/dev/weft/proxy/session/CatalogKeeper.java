package dev.weft.proxy.session;

import dev.weft.routing.api.HotCatalog;
import dev.weft.proxy.upstream.UpstreamCluster;
import dev.weft.routing.RealTopic;
import dev.weft.routing.Router;
import dev.weft.routing.TopicCollision;
import dev.weft.routing.TopicRouting;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a woven virtual cluster's topic catalog current: lists every route's topics (discovery Admin
 * client, off the event loops), builds a new immutable snapshot through the router and publishes it by
 * reference. Runs every {@code interval}, after the proxy's own CreateTopics/DeleteTopics, and when a
 * client names a topic the catalog does not know (at most once a second). A route that cannot be
 * listed keeps its last known topics (its partitions then error retriably where they are used). New
 * name collisions, and new problems of partition-woven topics' segments (a topic that shrank or
 * vanished), are logged at ERROR and counted, once each.
 */
final class CatalogKeeper implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CatalogKeeper.class);
    /** Weft's own state topics never show through a virtual cluster. */
    static final String WEFT_INTERNAL_PREFIX = "__weft";

    private final String virtualCluster;
    private final Router router;
    private final List<UpstreamCluster> routes;
    private final ScheduledExecutorService timer;
    private final Consumer<TopicCollision> onNewCollision;
    private final Consumer<String> onNewSegmentProblem;
    private final AtomicReference<CompletableFuture<HotCatalog>> running = new AtomicReference<>();
    private final dev.weft.iocore.time.AtMostEvery soon = new dev.weft.iocore.time.AtMostEvery(java.time.Duration.ofSeconds(1));
    private volatile HotCatalog current;
    private volatile List<List<RealTopic>> lastTopics;

    CatalogKeeper(String virtualCluster, Router router, List<UpstreamCluster> routes, ScheduledExecutorService timer,
            Consumer<TopicCollision> onNewCollision, Consumer<String> onNewSegmentProblem) {
        this.onNewSegmentProblem = onNewSegmentProblem;
        this.virtualCluster = virtualCluster;
        this.router = router;
        this.routes = List.copyOf(routes);
        this.timer = timer;
        this.onNewCollision = onNewCollision;
        List<List<RealTopic>> empty = new ArrayList<>();
        routes.forEach(r -> empty.add(List.of()));
        this.lastTopics = empty;
    }

    /** The first snapshot, built before the gateways open; then refreshed every {@code interval}. */
    TopicRouting start(Duration timeout, Duration interval) {
        HotCatalog first = refresh().orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).join();
        timer.scheduleWithFixedDelay(() -> refresh(), interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
        return first.topics();
    }

    HotCatalog current() {
        return current;
    }

    /** A refresh soon, unless one ran in the last second. */
    void refreshSoon() {
        if (soon.tryPass()) {
            refresh();
        }
    }

    /** Re-lists every route now; concurrent callers share one refresh. */
    CompletableFuture<HotCatalog> refresh() {
        CompletableFuture<HotCatalog> mine = new CompletableFuture<>();
        CompletableFuture<HotCatalog> other = running.compareAndExchange(null, mine);
        if (other != null) {
            return other;
        }
        List<CompletableFuture<List<RealTopic>>> listings = new ArrayList<>();
        for (UpstreamCluster c : routes) {
            listings.add(c.listTopics(router.countsPartitions()));
        }
        CompletableFuture.allOf(listings.stream().map(f -> f.exceptionally(e -> null)).toArray(CompletableFuture[]::new))
                .whenComplete((ignored, error) -> {
                    try {
                        mine.complete(publishListed(listings));
                    } catch (RuntimeException e) {
                        mine.completeExceptionally(e);
                    } finally {
                        running.set(null);
                    }
                });
        return mine;
    }

    /**
     * Builds the catalog again from the topics last listed, without listing them (the router's own state
     * changed: {@link dev.weft.routing.Router#watch}), and puts it in force before returning.
     */
    HotCatalog rebuild() {
        return publish(lastTopics);
    }

    private HotCatalog publishListed(List<CompletableFuture<List<RealTopic>>> listings) {
        List<List<RealTopic>> topics = new ArrayList<>();
        for (int k = 0; k < routes.size(); k++) {
            List<RealTopic> listed = listings.get(k).getNow(null);
            if (listed == null) {
                LOG.warn("virtual cluster '{}': cannot list the topics of cluster '{}'; keeping the {} known topic(s)",
                        virtualCluster, routes.get(k).name(), lastTopics.get(k).size());
                listed = lastTopics.get(k);
            } else {
                listed = listed.stream().filter(t -> !t.name().startsWith(WEFT_INTERNAL_PREFIX)).toList();
            }
            topics.add(listed);
        }
        return publish(topics);
    }

    /**
     * One at a time: the router reads its own state while building, so a rebuild after a state change
     * always publishes last, never overtaken by a listing that started before the change.
     */
    private synchronized HotCatalog publish(List<List<RealTopic>> topics) {
        lastTopics = topics;
        HotCatalog previous = current;
        TopicRouting next = router.catalog(topics);
        for (TopicCollision c : next.newCollisionsSince(previous == null ? null : previous.topics())) {
            if (previous != null || !c.outcome().isError()) {
                onNewCollision.accept(c);
            }
        }
        if (previous != null) {
            for (String p : next.segmentProblems()) {
                if (!previous.topics().segmentProblems().contains(p)) {
                    onNewSegmentProblem.accept(p);
                }
            }
        }
        HotCatalog built = HotCatalog.of(next);
        current = built;
        return built;
    }

    @Override
    public void close() {
        // the timer belongs to the runtime, which shuts it down
    }
}
