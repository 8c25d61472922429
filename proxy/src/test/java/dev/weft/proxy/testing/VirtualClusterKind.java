package dev.weft.proxy.testing;

import java.util.Locale;
import java.util.stream.Stream;

/**
 * The kinds of virtual cluster one session serves (DESIGN §3, §4): every resilience and bad-input suite
 * runs its cases against each, through {@link VirtualClusterFixture}. Where a kind legitimately answers
 * differently (who answers ApiVersions, whether a client connection is bound to one broker), the suites
 * say so per kind through the properties here, each with the reason.
 */
public enum VirtualClusterKind {

    /**
     * {@code target: { cluster: upstream }}: the identity router, a port-per-broker gateway; every cold
     * request is forwarded over the connection's own broker connection (a bootstrap connection's: one
     * broker of the cluster), ApiVersions included (the broker's answer, clamped to Weft's versions).
     */
    PASS_THROUGH,

    /**
     * {@code target: { router: weave }}: a topic-weave router over the suite's cluster (route
     * "primary", cluster c0) and a second one-broker cluster (route "side", c1), port-per-broker; the
     * proxy answers ApiVersions itself (the intersection over both clusters) and plans Metadata and
     * the other cold APIs; Produce and Fetch go over the broker connection the client chose.
     */
    TOPIC_WOVEN,

    /**
     * {@code topology: collapsed} over the suite's cluster: the proxy fleet (one node, this proxy, at
     * its single bind port) is the broker list; no client connection is bound to a broker, Produce and
     * Fetch are split by real leader, and a broker dying fails only its partitions.
     */
    COLLAPSED,

    /**
     * {@code target: { router: shadow }}: a branch router whose primary is the suite's cluster (route
     * "primary", cluster c0) and whose branch takes a copy of every topic to the second one-broker
     * cluster (route "side", c1) as {@code copy.<name>}; port-per-broker, like the woven kind, and only the
     * primary shows. Produce plans carry copies (the BRANCH plan kind), sent once the primary answered.
     */
    BRANCHED,

    /**
     * {@code target: { router: weave }}: a partition-weave router over the suite's cluster (route
     * "primary", cluster c0) and the second one-broker cluster (route "side", c1), port-per-broker like the
     * topic-woven kind; only its logical topics show, fixed in the config (the fixture declares one per
     * topic a suite asks for and restarts the proxy on the same ports to add one). A primary topic is
     * woven from its own partitions in rotated order (two segments, so virtual partition p is renumbered
     * but stays on the primary, {@link VirtualClusterFixture#physicalPartition}); a side topic is one
     * segment on the side cluster. CreateTopics and the like are refused (POLICY_VIOLATION); Produce and
     * Fetch are renumbered per partition over the broker connection the client chose.
     */
    PARTITION_WOVEN,

    /**
     * {@code target: { router: weave }}: a switch over the suite's cluster (route "primary", cluster c0,
     * active) and the second one-broker cluster (route "side", c1, the standby), port-per-broker like the
     * woven kinds: only the active route's brokers and topics show, planned like a topic weave; the
     * standby's brokers keep their node ids (route 1 of two) but are in no answer.
     */
    SWITCHED;

    /**
     * Every kind, for {@code @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")}; only those
     * named in {@code -Dweft.kinds=pass-through,collapsed} when that is set (to run one kind's cases).
     */
    public static Stream<VirtualClusterKind> all() {
        String only = System.getProperty("weft.kinds", "").trim();
        if (only.isEmpty()) {
            return Stream.of(values());
        }
        java.util.Set<String> named = java.util.Set.of(only.split("\\s*,\\s*"));
        return Stream.of(values()).filter(k -> named.contains(k.slug()));
    }

    /** A name for topics, groups and log tags: "pass-through", "topic-woven", "collapsed", "partition-woven". */
    public String slug() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** {@code base} made distinct per kind, for topics and groups on clusters the kinds share. */
    public String name(String base) {
        return base + "-" + slug();
    }

    /**
     * Whether the proxy answers ApiVersions itself (and then refuses any API or version it did not
     * offer, naming the virtual cluster) instead of forwarding it to a broker: every kind but pass-through
     * (a router's versions are the intersection over its clusters; collapsed has no broker to forward to;
     * partition-woven is a router over two clusters).
     */
    public boolean answersApiVersions() {
        return this != PASS_THROUGH;
    }

    /**
     * Whether the proxy plans Metadata itself (one request per route, merged; a route that fails shows
     * its partitions leaderless) instead of forwarding the client's request to one broker: every kind but
     * pass-through (partition-woven asks each segment's cluster and renumbers).
     */
    public boolean plansMetadata() {
        return this != PASS_THROUGH;
    }

    /**
     * Whether a client keeps its fetch sessions (KIP-227): yes where each connection's Fetch goes to its own
     * broker under the client's keys (pass-through, branched; the topic-woven kind because kafka-clients'
     * Fetch names topics by id, which the weave keeps); no in the collapsed topology, which splits every
     * Fetch by real leader, nor partition-woven, whose Fetch is renumbered and renamed per partition (a
     * logical topic's synthetic id is no broker's): both decline sessions, every Fetch is full.
     */
    public boolean keepsFetchSessions() {
        return this != COLLAPSED && this != PARTITION_WOVEN;
    }

    /**
     * Whether the proxy's Metadata lists the brokers of two clusters (the woven kinds' routes, the
     * branched kind's primary and branch: mirrored node ids of every route), so a route that does not
     * answer leaves the other's brokers.
     */
    public boolean listsBrokersOfTwoClusters() {
        return this == TOPIC_WOVEN || this == PARTITION_WOVEN || this == BRANCHED;
    }

    /**
     * Whether each client connection is bound to one upstream broker connection (a broker port's
     * broker; a bootstrap connection's first one), so that broker failing closes the client connection:
     * every port-per-broker kind (partition-woven included: mirrored, a virtual broker is one real broker).
     * Collapsed binds none: a broker failing fails only its partitions.
     */
    public boolean bindsClientConnectionsToBrokers() {
        return this != COLLAPSED;
    }

    /**
     * Whether every Produce and Fetch of the suites' topics is split into parts the proxy builds itself
     * and merges (collapsed: by real leader; partition-woven: renumbered and renamed per partition, even
     * on a broker port) instead of going to the connection's broker as it is. A part whose upstream fails
     * is then answered with a retriable error (NOT_LEADER_OR_FOLLOWER) before anything else happens to the
     * client connection, and what is the client's own in the request (its fetch session, its
     * {@code rack_id}) does not reach the broker, so no preferred-read-replica hint comes back to it.
     */
    public boolean splitsProduceAndFetch() {
        return this == COLLAPSED || this == PARTITION_WOVEN;
    }

    @Override
    public String toString() {
        return slug();
    }
}
