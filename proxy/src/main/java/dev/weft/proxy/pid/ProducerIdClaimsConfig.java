package dev.weft.proxy.pid;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Where the producer-id state of one virtual cluster lives and how long to wait for it.
 *
 * @param routeClusters the upstream cluster name of each route, by route index; route 0 is the home
 *        cluster, whose producer ids are the virtual ones. Names, not indices, go into the state topic;
 *        routes that name the same cluster share its ids, and routes naming the home cluster use the
 *        virtual id itself.
 * @param homeBootstrap the home cluster's bootstrap servers ({@code host:port,...})
 * @param clientProperties extra kafka-clients properties for the home cluster (security, as built by
 *        {@link dev.weft.proxy.tls.DiscoveryClientSecurity}); copied
 * @param topic the compacted state topic on the home cluster
 * @param replicaId this proxy replica's id, for log lines and the {@code weft-replica} header
 * @param startTimeout how long {@link ProducerIdClaims#start()} may take (topic set-up and catching up)
 * @param claimTimeout how long one claim may take: the allocation, then the append and reading it back
 * @param repairGrace how long the last record for a key may disagree with the first (a claimer crashed
 *        between its claim and its confirmation) before a tailer re-appends the winner
 */
public record ProducerIdClaimsConfig(List<String> routeClusters, String stateCluster, String homeBootstrap,
        Map<String, Object> clientProperties, String topic, String replicaId, Duration startTimeout, Duration claimTimeout,
        Duration repairGrace) {

    public static final String DEFAULT_TOPIC = "__weft_producer_ids";

    public ProducerIdClaimsConfig {
        routeClusters = List.copyOf(routeClusters);
        if (routeClusters.isEmpty()) {
            throw new IllegalArgumentException("a virtual cluster needs at least its home cluster as route 0");
        }
        Objects.requireNonNull(homeBootstrap, "homeBootstrap");
        clientProperties = Map.copyOf(clientProperties);
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(replicaId, "replicaId");
        requirePositive(startTimeout, "startTimeout");
        requirePositive(claimTimeout, "claimTimeout");
        Objects.requireNonNull(repairGrace, "repairGrace");
    }

    /** Defaults: topic {@value #DEFAULT_TOPIC}, start 60 s, claim 30 s, repair grace 30 s. */
    public static ProducerIdClaimsConfig of(List<String> routeClusters, String homeBootstrap,
            Map<String, Object> clientProperties, String replicaId) {
        return of(routeClusters, routeClusters.get(0), homeBootstrap, clientProperties, replicaId);
    }

    /**
     * @param stateCluster the cluster holding the state topic (at {@code stateBootstrap}): the home cluster,
     *     or a router's fleet state cluster ({@code dev.weft.routing.Router#fleetStateCluster})
     */
    public static ProducerIdClaimsConfig of(List<String> routeClusters, String stateCluster, String stateBootstrap,
            Map<String, Object> clientProperties, String replicaId) {
        return new ProducerIdClaimsConfig(routeClusters, stateCluster, stateBootstrap, clientProperties, DEFAULT_TOPIC, replicaId,
                Duration.ofSeconds(60), Duration.ofSeconds(30), Duration.ofSeconds(30));
    }

    public String homeCluster() {
        return routeClusters.get(0);
    }

    public ProducerIdClaimsConfig withTopic(String t) {
        return new ProducerIdClaimsConfig(routeClusters, stateCluster, homeBootstrap, clientProperties, t, replicaId, startTimeout,
                claimTimeout, repairGrace);
    }

    public ProducerIdClaimsConfig withTimeouts(Duration start, Duration claim) {
        return new ProducerIdClaimsConfig(routeClusters, stateCluster, homeBootstrap, clientProperties, topic, replicaId, start, claim,
                repairGrace);
    }

    public ProducerIdClaimsConfig withRepairGrace(Duration grace) {
        return new ProducerIdClaimsConfig(routeClusters, stateCluster, homeBootstrap, clientProperties, topic, replicaId, startTimeout,
                claimTimeout, grace);
    }

    /** "topic '__weft_producer_ids' on home cluster 'east' (bootstrap 10.0.0.1:9092)", for messages. */
    String where() {
        return "topic '" + topic + "' on " + (stateCluster.equals(homeCluster()) ? "home" : "state") + " cluster '" + stateCluster
                + "' (bootstrap " + homeBootstrap + ")";
    }

    private static void requirePositive(Duration d, String name) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive");
        }
    }
}
