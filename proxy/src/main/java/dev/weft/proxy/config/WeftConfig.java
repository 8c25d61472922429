package dev.weft.proxy.config;

import java.util.Map;

/**
 * A whole, validated Weft configuration: see {@link ConfigLoader} for the file format.
 *
 * @param source where it was read from, for messages
 * @param server process-wide settings (event loops, transport, limits)
 * @param clusters the real Kafka clusters behind the proxy, by name
 * @param virtualClusters what clients connect to, by name
 * @param fingerprints each section as written, for telling what a reload changed
 */
public record WeftConfig(
        String source,
        ServerSettings server,
        AdminSettings admin,
        Map<String, dev.weft.routing.dag.RouterSpec> routers,
        Map<String, ClusterConfig> clusters,
        Map<String, VirtualClusterConfig> virtualClusters,
        ConfigFingerprints fingerprints) {

    /**
     * @param transport "auto", "io_uring", "epoll" or "nio"
     * @param eventLoops number of event loops; 0 means one per available core
     * @param pinThreads pin each event loop thread to its own CPU
     * @param maxFrameBytes largest Kafka frame accepted from a client or broker
     * @param connectTimeoutMillis how long an upstream connection attempt may take
     * @param drainTimeoutMillis on shutdown, how long in-flight requests may take to finish
     * @param partialFrameTimeoutMillis how long after its first byte a client's frame may stay incomplete
     *     (slow-loris guard; time spent waiting for the partial-frame budget counts too)
     * @param idleTimeoutMillis how long a client with nothing in flight may stay silent (as Kafka's
     *     {@code connections.max.idle.ms})
     * @param maxInflightRequests unanswered requests per client connection before the proxy stops
     *     reading from it (bounds per-connection memory against clients that pipeline and never read)
     * @param maxPartialFrameBytesPerConnection incomplete client frames larger than this are assembled one
     *     at a time per core (they wait, with reads paused, while another one is)
     * @param maxPartialFrameBytesPerCore what the incomplete client frames of one event loop may hold
     *     together; a frame that does not fit waits, with its connection's reads paused
     * @param zeroCopySendThresholdBytes writes of at least this many bytes use io_uring's zero-copy send
     *     ({@code IORING_OP_SEND_ZC}); 0 = off (the default: on loopback and most virtual NICs the kernel
     *     copies anyway and the completion notifications cost more than the copy, perf-reports has the A/B)
     * @param rack the zone this proxy runs in (as brokers name theirs in {@code broker.rack}), or null:
     *     Fetch partitions are read from an in-sync replica in it when their leader is elsewhere
     * @param maxConnectionsPerIp client connections one IP address may hold at once, over every gateway
     *     (Kafka's {@code max.connections.per.ip}); {@link Integer#MAX_VALUE}: no limit
     * @param maxConnectionsPerIpOverrides per IP address, its own limit (0 refuses it)
     */
    public record ServerSettings(
            String transport,
            int eventLoops,
            boolean pinThreads,
            int maxFrameBytes,
            int connectTimeoutMillis,
            int drainTimeoutMillis,
            int partialFrameTimeoutMillis,
            int idleTimeoutMillis,
            int maxInflightRequests,
            long maxPartialFrameBytesPerConnection,
            long maxPartialFrameBytesPerCore,
            int zeroCopySendThresholdBytes,
            String rack,
            int maxConnectionsPerIp,
            java.util.Map<java.net.InetAddress, Integer> maxConnectionsPerIpOverrides) {
    }

    /**
     * The admin HTTP endpoint: {@code /metrics} (Prometheus text format), {@code /livez}, {@code /readyz}.
     *
     * @param enabled whether to serve it at all
     * @param bind where it listens; localhost unless configured, port 0 picks a free port
     */
    public record AdminSettings(boolean enabled, HostPort bind) {
    }

    /**
     * A real Kafka cluster: reached through {@code bootstrap}, or started in-process when
     * {@code embedded} is set (for the demo and local trials).
     */
    /**
     * @param sasl the proxy's own credentials ({@code clusters.NAME.sasl}), or null
     * @param principals {@code clusters.NAME.principals.USER}: who the links of a client authenticated
     *     as USER are to the brokers in place of the proxy, so the brokers' ACLs and quotas see the
     *     tenant (empty: every client's links are the proxy's)
     */
    public record ClusterConfig(String name, java.util.List<HostPort> bootstrap, EmbeddedCluster embedded, TlsConfig tls,
            SaslCredentials sasl, java.util.Map<String, UpstreamIdentity> principals) {
        public ClusterConfig {
            principals = java.util.Map.copyOf(principals);
        }

        public boolean isEmbedded() {
            return embedded != null;
        }
    }

    /**
     * A client principal's own identity towards one cluster ({@code clusters.NAME.principals.USER}):
     * what it gives replaces the proxy's, what it leaves out stays the proxy's.
     *
     * @param sasl its SASL login in place of {@code clusters.NAME.sasl}, or null
     * @param tls the cluster's TLS settings with its client certificate in place of the proxy's, or null
     */
    public record UpstreamIdentity(SaslCredentials sasl, TlsConfig tls) {
    }

    /**
     * The proxy's own credentials for a cluster's SASL listener ({@code clusters.NAME.sasl}): its
     * discovery client and every broker connection Weft opens itself (woven, collapsed, switched and
     * branch virtual clusters; {@code dev.weft.proxy.upstream.UpstreamSaslHandshake}) authenticate with
     * them. A pass-through virtual cluster's client connections do not: their own SASL goes to the broker
     * untouched. The password (or, with OAUTHBEARER, the bearer token) is read when a connection is
     * made, so a rotated {@code file:} secret is used by the next connections.
     *
     * @param username PLAIN and SCRAM; null with OAUTHBEARER
     * @param password PLAIN and SCRAM; null with OAUTHBEARER
     * @param token OAUTHBEARER only (null otherwise): a static bearer token (a JWT, sent as is)
     */
    public record SaslCredentials(SaslMechanism mechanism, String username, Secret password, Secret token) {
        /** PLAIN or SCRAM credentials. */
        public SaslCredentials(SaslMechanism mechanism, String username, Secret password) {
            this(mechanism, username, password, null);
        }

        /** OAUTHBEARER with a static bearer token. */
        public static SaslCredentials bearer(Secret token) {
            return new SaslCredentials(SaslMechanism.OAUTHBEARER, null, null, token);
        }

        /** Who logs in, for log lines: "as 'weft'", or where the bearer token comes from. Never a secret. */
        public String describe() {
            return mechanism == SaslMechanism.OAUTHBEARER ? "with a bearer token from " + (token == null ? "?" : token.source())
                    : "as '" + username + "'";
        }
    }

    /** SASL mechanisms the proxy's own connections can use. */
    public enum SaslMechanism {
        PLAIN("PLAIN", "org.apache.kafka.common.security.plain.PlainLoginModule"),
        SCRAM_SHA_256("SCRAM-SHA-256", "org.apache.kafka.common.security.scram.ScramLoginModule"),
        SCRAM_SHA_512("SCRAM-SHA-512", "org.apache.kafka.common.security.scram.ScramLoginModule"),
        /** A static bearer token ({@code token}), RFC 7628 / KIP-255. */
        OAUTHBEARER("OAUTHBEARER", "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule");

        public final String kafkaName;
        public final String loginModule;

        SaslMechanism(String kafkaName, String loginModule) {
            this.kafkaName = kafkaName;
            this.loginModule = loginModule;
        }
    }

    /** A real KRaft cluster the proxy starts in-process (testkit). */
    public record EmbeddedCluster(int brokers) {
    }

    /** How virtual broker addresses are laid out (DESIGN §4). */
    public enum Topology {
        /** One virtual broker per upstream broker. */
        MIRRORED,
        /**
         * The proxy fleet is the broker list ({@code nodes}); any proxy node serves any partition and
         * splits each request by real leader.
         */
        COLLAPSED
    }

    /** How a gateway gives each virtual broker an address. */
    public enum NodeAddressing {
        /** A bootstrap port plus one port per virtual node id. */
        PORT_PER_BROKER,
        /** One TLS port; the TLS server name (SNI) picks the bootstrap or the virtual broker. */
        SNI
    }

    /**
     * @param name unique within the virtual cluster
     * @param bind bootstrap listen address
     * @param advertisedHost the host name clients are told to connect to
     * @param nodes addressing scheme
     * @param brokerPortStart port of the first node id in {@code nodeIds}
     * @param nodeIds the node ids that get a port
     * @param tls TLS termination settings, or null for plaintext
     * @param sni host names of an SNI gateway, or null for port-per-broker
     */
    public record GatewayConfig(
            String name,
            HostPort bind,
            String advertisedHost,
            NodeAddressing nodes,
            int brokerPortStart,
            NodeIdRange nodeIds,
            TlsConfig tls,
            SniNames sni) {

        /** The port clients use for virtual node {@code nodeId}, or -1 when it has none. */
        public int brokerPort(int nodeId) {
            return nodeIds.contains(nodeId) ? brokerPortStart + (nodeId - nodeIds.first()) : -1;
        }
    }

    /**
     * The names clients use on an SNI gateway.
     *
     * @param bootstrapHost the bootstrap host name, e.g. {@code bootstrap.main.example.com}
     * @param brokerHostPrefix what comes before the node id, e.g. {@code broker-}
     * @param brokerHostSuffix what comes after it, e.g. {@code .main.example.com}
     * @param advertisedPort the port clients are told to use (the bind port unless behind a load balancer)
     */
    public record SniNames(String bootstrapHost, String brokerHostPrefix, String brokerHostSuffix, int advertisedPort) {

        public static final String NODE_ID_PLACEHOLDER = "$(nodeId)";

        public String brokerHost(int virtualNodeId) {
            return brokerHostPrefix + virtualNodeId + brokerHostSuffix;
        }

        /** The virtual node id a broker host name stands for, or -1 when the name is not a broker's. */
        public int nodeIdOf(String host) {
            String h = host.toLowerCase(java.util.Locale.ROOT);
            if (h.length() <= brokerHostPrefix.length() + brokerHostSuffix.length()
                    || !h.startsWith(brokerHostPrefix) || !h.endsWith(brokerHostSuffix)) {
                return -1;
            }
            String digits = h.substring(brokerHostPrefix.length(), h.length() - brokerHostSuffix.length());
            for (int i = 0; i < digits.length(); i++) {
                if (!Character.isDigit(digits.charAt(i))) {
                    return -1;
                }
            }
            try {
                return digits.length() > 10 ? -1 : Integer.parseInt(digits);
            } catch (NumberFormatException e) {
                return -1;
            }
        }
    }

    /**
     * A virtual cluster: what clients connect to.
     *
     * @param targetCluster the cluster behind it, or null when it targets a router
     * @param targetRouter the root router of its routing DAG, or null when it targets a cluster
     * @param nodes the proxy nodes of a collapsed virtual cluster (empty when mirrored)
     * @param rack the zone rack-aware fetch reads in for this virtual cluster ({@code server.rack} unless
     *     it sets its own; null: none, every partition is read where the router sends it)
     * @param authentication SASL termination at its gateways, or null: clients' SASL (if any) goes to the brokers
     * @param authorization what each authenticated principal may see and do, or null: every client may do
     *     what the proxy's own upstream identity may
     */
    public record VirtualClusterConfig(
            String name,
            String targetCluster,
            String targetRouter,
            Topology topology,
            java.util.List<GatewayConfig> gateways,
            java.util.List<dev.weft.routing.node.ProxyNode> nodes,
            String rack,
            ClientAuthentication authentication,
            dev.weft.routing.access.AccessPolicy authorization) {

        public VirtualClusterConfig(String name, String targetCluster, String targetRouter, Topology topology,
                java.util.List<GatewayConfig> gateways, java.util.List<dev.weft.routing.node.ProxyNode> nodes, String rack,
                ClientAuthentication authentication) {
            this(name, targetCluster, targetRouter, topology, gateways, nodes, rack, authentication, null);
        }

        public VirtualClusterConfig(String name, String targetCluster, String targetRouter, Topology topology,
                java.util.List<GatewayConfig> gateways) {
            this(name, targetCluster, targetRouter, topology, gateways, java.util.List.of(), null, null);
        }

        public VirtualClusterConfig(String name, String targetCluster, String targetRouter, Topology topology,
                java.util.List<GatewayConfig> gateways, java.util.List<dev.weft.routing.node.ProxyNode> nodes, String rack) {
            this(name, targetCluster, targetRouter, topology, gateways, nodes, rack, null);
        }

        /** What the virtual cluster targets, as the routing graph names it (null when the config names neither). */
        public dev.weft.routing.dag.RouteTarget target() {
            return targetRouter != null ? new dev.weft.routing.dag.RouterTarget(targetRouter)
                    : targetCluster != null ? new dev.weft.routing.dag.ClusterTarget(targetCluster) : null;
        }
    }

    /**
     * SASL termination of a virtual cluster ({@code virtualClusters.NAME.authentication.sasl}).
     *
     * @param mechanisms enabled mechanisms (Kafka names, upper case): PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER
     * @param credentials the credential file ({@code weft credentials} writes it), re-read when it changes; null
     *     when OAUTHBEARER is the only mechanism
     * @param sessionLifetimeMs KIP-368 re-authentication interval told to clients (0: none)
     * @param maxFailures failed authentications per peer address within {@code failureWindowMs} before it is refused
     * @param failureWindowMs the window of {@code maxFailures}
     * @param oauthBearer how OAUTHBEARER tokens are validated; present exactly when OAUTHBEARER is enabled
     */
    public record ClientAuthentication(java.util.List<String> mechanisms, java.nio.file.Path credentials, long sessionLifetimeMs,
            int maxFailures, long failureWindowMs, OAuthBearer oauthBearer) {

        public ClientAuthentication(java.util.List<String> mechanisms, java.nio.file.Path credentials, long sessionLifetimeMs,
                int maxFailures, long failureWindowMs) {
            this(mechanisms, credentials, sessionLifetimeMs, maxFailures, failureWindowMs, null);
        }
    }

    /**
     * OAUTHBEARER token validation ({@code authentication.sasl.oauthbearer}): kafka-clients' own JWT
     * validator (KIP-768) checks each token's signature against the JWKS, its issuer, audience and expiry.
     *
     * @param jwks the JWKS: an {@code https://} URL (fetched at start, refreshed every {@code jwksRefreshMs}
     *     and when a token names an unknown key id) or a {@code file:} URL (re-read when it changes)
     * @param issuer the {@code iss} every token must carry
     * @param audience accepted {@code aud} values: a token must name one of them
     * @param subClaim the claim naming the principal
     * @param clockSkewSeconds tolerated clock difference with the issuer, for {@code exp}, {@code iat}, {@code nbf}
     * @param jwksRefreshMs how often an https JWKS is fetched again
     * @param trustCertificates PEM CA certificates the https JWKS server is verified against (null: the JDK's trust store)
     */
    public record OAuthBearer(String jwks, String issuer, java.util.List<String> audience, String subClaim, int clockSkewSeconds,
            long jwksRefreshMs, java.nio.file.Path trustCertificates) {

        public OAuthBearer {
            audience = java.util.List.copyOf(audience);
        }
    }
}
