package dev.weft.proxy.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.weft.proxy.config.WeftConfig.ClusterConfig;
import dev.weft.proxy.config.WeftConfig.EmbeddedCluster;
import dev.weft.proxy.config.WeftConfig.GatewayConfig;
import dev.weft.proxy.config.WeftConfig.NodeAddressing;
import dev.weft.proxy.config.WeftConfig.ServerSettings;
import dev.weft.proxy.config.WeftConfig.Topology;
import dev.weft.proxy.config.WeftConfig.VirtualClusterConfig;
import dev.weft.routing.dag.RouterSpec;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads and validates a Weft YAML file. Every problem is reported at once, each naming the file, the
 * path in the document and what is wrong (see {@link ConfigException}). The format:
 *
 * <pre>
 * admin:                       # optional: /metrics, /livez, /readyz over HTTP
 *   enabled: true
 *   bind: "127.0.0.1:9190"     # localhost unless configured; port 0 = any free port
 * server:                      # optional
 *   transport: auto            # auto | io_uring | epoll | nio
 *   eventLoops: 0              # 0 = one per core
 *   pinThreads: false
 *   maxFrameBytes: 100MiB
 *   connectTimeoutMs: 10000
 *   drainTimeoutMs: 5000
 *   partialFrameTimeoutMs: 30000   # a frame incomplete this long after its first byte: closed (slow-loris)
 *   idleTimeoutMs: 600000          # a client with nothing in flight and silent this long is closed
 *   maxInflightRequests: 1000      # unanswered requests per client before the proxy stops reading it
 *   maxPartialFrameBytesPerConnection: 16MiB  # larger incomplete frames: one at a time per core
 *   maxPartialFrameBytesPerCore: 256MiB       # all incomplete client frames of one event loop
 *   maxConnectionsPerIp: 1000                 # default: no limit (Kafka's max.connections.per.ip)
 *   maxConnectionsPerIpOverrides: { "10.0.4.17": 5000 }
 * clusters:
 *   local:   { bootstrap: "127.0.0.1:9092,127.0.0.1:9093" }
 *   sandbox: { embedded: { brokers: 3 } }
 * routers:                     # optional: a routing DAG (see routing/README.md)
 *   weave:
 *     type: topic-weave
 *     routes:
 *       - { name: us, target: { cluster: us-east } }
 *       - { name: eu, target: { cluster: eu-west } }
 * virtualClusters:
 *   main:
 *     target: { cluster: local }
 *     topology: mirrored
 *     gateways:
 *       - name: plain
 *         bind: "0.0.0.0:9192"
 *         advertisedHost: localhost        # default: the bind host, or localhost for 0.0.0.0
 *         nodes: port-per-broker
 *         brokerPorts: { start: 9193, nodeIds: "0-15" }   # default start: bind port + 1
 *       - name: public                     # one TLS port, brokers told apart by server name
 *         bind: "0.0.0.0:9443"
 *         nodes: sni
 *         tls: { certificate: ..., key: ... }
 *         sni:
 *           bootstrapHost: bootstrap.main.example.com
 *           brokerHostPattern: broker-$(nodeId).main.example.com
 *           advertisedPort: 443              # default: the bind port
 * </pre>
 */
public final class ConfigLoader {

    private static final YAMLMapper YAML = new YAMLMapper();

    private ConfigLoader() {
    }

    public static WeftConfig load(Path file) throws ConfigException {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new ConfigException(List.of(file + ": cannot read the file: " + e.getMessage()));
        }
        return parse(text, file.toString());
    }

    public static WeftConfig parse(String yaml, String source) throws ConfigException {
        JsonNode root;
        try {
            root = YAML.readTree(yaml);
        } catch (JsonProcessingException e) {
            var loc = e.getLocation();
            throw new ConfigException(List.of(source + (loc != null ? ":" + loc.getLineNr() + ":" + loc.getColumnNr() : "")
                    + ": not valid YAML: " + e.getOriginalMessage()));
        }
        ConfigNode.Problems problems = new ConfigNode.Problems(source);
        ConfigNode doc = new ConfigNode(root, "", problems);
        if (doc.isMissing()) {
            problems.add("the file is empty: it needs at least 'clusters' and 'virtualClusters'");
            throw problems.toException();
        }
        doc.allowOnly(Set.of("admin", "server", "clusters", "routers", "virtualClusters"));
        ServerSettings server = server(doc.get("server"));
        WeftConfig.AdminSettings admin = admin(doc.get("admin"));
        Map<String, ClusterConfig> clusters = clusters(doc.get("clusters"));
        Map<String, RouterSpec> routers = RoutersReader.read(doc.get("routers"));
        Map<String, VirtualClusterConfig> virtualClusters = virtualClusters(doc.get("virtualClusters"), clusters, routers,
                server.rack());
        RoutersReader.validate(routers, clusters.keySet(), virtualClusters, problems);
        checkPortsUnique(virtualClusters, problems);
        if (!problems.isEmpty()) {
            throw problems.toException();
        }
        return new WeftConfig(source, server, admin, routers, clusters, virtualClusters, ConfigFingerprints.of(root));
    }

    private static ServerSettings server(ConfigNode n) {
        n.allowOnly(Set.of("transport", "eventLoops", "pinThreads", "maxFrameBytes", "connectTimeoutMs", "drainTimeoutMs",
                "partialFrameTimeoutMs", "idleTimeoutMs", "maxInflightRequests", "maxPartialFrameBytesPerConnection",
                "maxPartialFrameBytesPerCore", "zeroCopySendThreshold", "rack", "maxConnectionsPerIp", "maxConnectionsPerIpOverrides"));
        String transport = n.get("transport").text("auto");
        if (!Set.of("auto", "io_uring", "epoll", "nio").contains(transport)) {
            n.get("transport").problem("\"" + transport + "\" is not one of auto, io_uring, epoll, nio");
        }
        ConfigNode perConnection = n.get("maxPartialFrameBytesPerConnection");
        long perConnectionBytes = perConnection.bytes(16L << 20, 1024, 1L << 40);
        long perCoreBytes = n.get("maxPartialFrameBytesPerCore").bytes(256L << 20, 1024, 1L << 40);
        if (perConnectionBytes > perCoreBytes) {
            perConnection.problem(perConnectionBytes + " bytes is more than server.maxPartialFrameBytesPerCore ("
                    + perCoreBytes + " bytes): the per-connection size must fit in the core's budget");
        }
        return new ServerSettings(
                transport,
                n.get("eventLoops").integer(0, 0, 1024),
                n.get("pinThreads").bool(false),
                (int) n.get("maxFrameBytes").bytes(100L << 20, 1024, Integer.MAX_VALUE),
                n.get("connectTimeoutMs").integer(10_000, 1, 600_000),
                n.get("drainTimeoutMs").integer(5_000, 0, 600_000),
                n.get("partialFrameTimeoutMs").integer(30_000, 100, 3_600_000),
                n.get("idleTimeoutMs").integer(600_000, 100, 86_400_000),
                n.get("maxInflightRequests").integer(1000, 1, 1_000_000),
                perConnectionBytes,
                perCoreBytes,
                (int) n.get("zeroCopySendThreshold").bytes(0, 0, 1L << 30),
                rack(n.get("rack"), null),
                n.get("maxConnectionsPerIp").integer(Integer.MAX_VALUE, 1, Integer.MAX_VALUE),
                connectionsPerIpOverrides(n.get("maxConnectionsPerIpOverrides")));
    }

    /** {@code server.maxConnectionsPerIpOverrides}: IP address literals (v4 or v6) to their own limit. */
    private static Map<InetAddress, Integer> connectionsPerIpOverrides(ConfigNode n) {
        if (n.isMissing() || !n.requireObject()) {
            return Map.of();
        }
        Map<InetAddress, Integer> overrides = new LinkedHashMap<>();
        for (Map.Entry<String, ConfigNode> e : n.entries().entrySet()) {
            int limit = e.getValue().integer(0, 0, Integer.MAX_VALUE);
            try {
                overrides.put(InetAddress.ofLiteral(e.getKey()), limit);
            } catch (IllegalArgumentException notAnAddress) {
                e.getValue().problem("\"" + e.getKey() + "\" is not an IP address (write addresses, not host names)");
            }
        }
        return overrides;
    }

    /**
     * A zone name as brokers give theirs in {@code broker.rack}; {@code ""} says "none" (a virtual cluster
     * leaving {@code server.rack} out), a missing key gives {@code inherited}.
     */
    private static String rack(ConfigNode n, String inherited) {
        if (n.isMissing()) {
            return inherited;
        }
        String rack = n.text(null);
        if (rack == null) {
            return inherited;
        }
        if (!rack.equals(rack.strip())) {
            n.problem("\"" + rack + "\" has leading or trailing spaces; brokers compare broker.rack exactly");
        }
        return rack.isEmpty() ? null : rack;
    }

    private static WeftConfig.AdminSettings admin(ConfigNode n) {
        n.allowOnly(Set.of("enabled", "bind"));
        boolean enabled = n.get("enabled").bool(true);
        HostPort bind = new HostPort("127.0.0.1", 9190);
        String text = n.get("bind").text(null);
        if (text != null) {
            try {
                bind = HostPort.parse(text, true);
            } catch (IllegalArgumentException e) {
                n.get("bind").problem(e.getMessage());
            }
        }
        return new WeftConfig.AdminSettings(enabled, bind);
    }

    private static Map<String, ClusterConfig> clusters(ConfigNode n) {
        Map<String, ClusterConfig> out = new LinkedHashMap<>();
        if (n.isMissing()) {
            n.problem("is required: name at least one Kafka cluster");
            return out;
        }
        for (Map.Entry<String, ConfigNode> e : n.entries().entrySet()) {
            ConfigNode c = e.getValue();
            if (!c.requireObject()) {
                continue;
            }
            c.allowOnly(Set.of("bootstrap", "embedded", "tls", "sasl", "principals"));
            ConfigNode bootstrap = c.get("bootstrap");
            ConfigNode embedded = c.get("embedded");
            if (bootstrap.isMissing() == embedded.isMissing()) {
                c.problem("needs exactly one of 'bootstrap' (a running cluster) or 'embedded' (start one in-process)");
                continue;
            }
            if (!embedded.isMissing()) {
                embedded.allowOnly(Set.of("brokers"));
                if (!c.get("tls").isMissing()) {
                    c.get("tls").problem("is not supported for embedded clusters (they listen in plaintext on loopback)");
                }
                if (!c.get("principals").isMissing()) {
                    c.get("principals").problem("is not supported for embedded clusters (they have no SASL listener)");
                }
                out.put(e.getKey(), new ClusterConfig(e.getKey(), List.of(),
                        new EmbeddedCluster(embedded.get("brokers").integer(1, 1, 9)), null, null, Map.of()));
                continue;
            }
            List<HostPort> addresses = new ArrayList<>();
            for (String part : bootstrap.text("").split(",")) {
                if (part.isBlank()) {
                    continue;
                }
                try {
                    addresses.add(HostPort.parse(part, false));
                } catch (IllegalArgumentException ex) {
                    bootstrap.problem(ex.getMessage());
                }
            }
            if (addresses.isEmpty()) {
                bootstrap.problem("names no broker address (expected host:port[,host:port...])");
            }
            TlsConfig tls = TlsSettingsReader.upstream(c.get("tls"));
            out.put(e.getKey(), new ClusterConfig(e.getKey(), List.copyOf(addresses), null, tls, sasl(c.get("sasl")),
                    principals(c.get("principals"), !c.get("sasl").isMissing(), c.get("tls").isMissing() ? null : tls)));
        }
        if (out.isEmpty() && !n.isMissing()) {
            n.problem("is empty: name at least one Kafka cluster");
        }
        return out;
    }

    private static Map<String, VirtualClusterConfig> virtualClusters(ConfigNode n, Map<String, ClusterConfig> clusters,
            Map<String, RouterSpec> routers, String serverRack) {
        Map<String, VirtualClusterConfig> out = new LinkedHashMap<>();
        if (n.isMissing()) {
            n.problem("is required: name at least one virtual cluster for clients to connect to");
            return out;
        }
        for (Map.Entry<String, ConfigNode> e : n.entries().entrySet()) {
            ConfigNode v = e.getValue();
            if (!v.requireObject()) {
                continue;
            }
            v.allowOnly(Set.of("target", "topology", "gateways", "nodes", "rack", "authentication", "authorization"));
            ConfigNode target = v.get("target");
            String cluster = null;
            String router = null;
            if (target.requireObject()) {
                target.allowOnly(Set.of("cluster", "router"));
                if (target.get("cluster").isMissing() == target.get("router").isMissing()) {
                    target.problem("needs exactly one of 'cluster' (a Kafka cluster) or 'router' (the root of a routing DAG)");
                } else if (!target.get("cluster").isMissing()) {
                    cluster = target.get("cluster").requiredText();
                    if (cluster != null && !clusters.containsKey(cluster)) {
                        target.get("cluster").problem("no cluster named '" + cluster + "' (clusters: "
                                + String.join(", ", clusters.keySet()) + ")");
                    }
                } else {
                    router = target.get("router").requiredText(); // checked with the routing graph
                }
            }
            Topology topology = v.get("topology").choice(Topology.class, Topology.MIRRORED);
            String path = "virtualClusters." + e.getKey();
            List<dev.weft.routing.node.ProxyNode> nodes = proxyNodes(v.get("nodes"), topology, path);
            List<GatewayConfig> gateways = new ArrayList<>();
            Set<String> names = new java.util.HashSet<>();
            List<ConfigNode> gatewayNodes = v.get("gateways").elements();
            if (gatewayNodes.isEmpty()) {
                v.get("gateways").problem("is required: at least one gateway (where clients connect)");
            }
            for (ConfigNode g : gatewayNodes) {
                GatewayConfig gateway = gateway(g);
                if (gateway == null) {
                    continue;
                }
                if (topology == Topology.COLLAPSED) {
                    if (gateway.nodes() != NodeAddressing.PORT_PER_BROKER) {
                        g.get("nodes").problem("a collapsed virtual cluster's brokers are its 'nodes', each at its own"
                                + " address: a gateway listens on its 'bind' address only (leave 'nodes' out)");
                    }
                    if (!g.get("brokerPorts").isMissing()) {
                        g.get("brokerPorts").problem("a collapsed virtual cluster's brokers are its 'nodes', each at its own"
                                + " address: a gateway listens on its 'bind' address only (leave 'brokerPorts' out)");
                    }
                }
                if (!names.add(gateway.name())) {
                    g.get("name").problem("'" + gateway.name() + "' is already the name of another gateway of '" + e.getKey() + "'");
                }
                gateways.add(gateway);
            }
            WeftConfig.ClientAuthentication authentication = clientAuthentication(v.get("authentication"));
            dev.weft.routing.access.AccessPolicy authorization = AuthorizationReader.read(v.get("authorization"));
            if (authorization != null && v.get("authentication").isMissing()
                    && gateways.stream().noneMatch(g -> g.tls() != null && g.tls().clientAuth() != TlsConfig.ClientAuth.NONE)) {
                v.get("authorization").problem("needs clients that authenticate: 'authentication.sasl', or gateways whose"
                        + " 'tls.clientAuth' asks for client certificates (else every client is ANONYMOUS)");
            }
            out.put(e.getKey(), new VirtualClusterConfig(e.getKey(), cluster, router, topology, List.copyOf(gateways),
                    nodes, rack(v.get("rack"), serverRack), authentication, authorization));
        }
        return out;
    }

    /**
     * The proxy fleet of a collapsed virtual cluster: {@code nodes: [ { id, address: "host:port", rack } ]},
     * the same list on every replica; required for {@code topology: collapsed}, refused otherwise.
     */
    private static List<dev.weft.routing.node.ProxyNode> proxyNodes(ConfigNode n, Topology topology, String path) {
        if (topology != Topology.COLLAPSED) {
            if (!n.isMissing()) {
                n.problem("only for 'topology: collapsed' (a mirrored virtual cluster's brokers are its clusters' brokers)");
            }
            return List.of();
        }
        if (n.isMissing()) {
            n.problem("is required for 'topology: collapsed': the proxy nodes clients see as brokers, e.g."
                    + " [ { id: 0, address: \"proxy-0.example.com:9092\", rack: az1 } ], the same list on every replica");
            return List.of();
        }
        List<dev.weft.routing.node.ProxyNode> out = new ArrayList<>();
        boolean complete = true; // the node list's own checks name entries by index: only on a list read whole
        for (ConfigNode node : n.elements()) {
            if (!node.requireObject()) {
                complete = false;
                continue;
            }
            node.allowOnly(Set.of("id", "address", "rack"));
            if (node.get("id").isMissing()) {
                node.get("id").problem("is required: the node id clients see for this proxy node");
                complete = false;
                continue;
            }
            int id = node.get("id").integer(0, 0, Integer.MAX_VALUE);
            String address = node.get("address").requiredText();
            if (address == null) {
                complete = false;
                continue;
            }
            HostPort hp;
            try {
                hp = HostPort.parse(address, false);
            } catch (IllegalArgumentException ex) {
                node.get("address").problem(ex.getMessage());
                complete = false;
                continue;
            }
            out.add(new dev.weft.routing.node.ProxyNode(id, hp.host(), hp.port(), node.get("rack").text(null)));
        }
        for (dev.weft.routing.dag.RoutingProblem p : complete
                ? dev.weft.routing.node.CollapsedNodes.validate(path + ".nodes", out) : List.<dev.weft.routing.dag.RoutingProblem>of()) {
            n.problemAt(p.path(), p.message());
        }
        return List.copyOf(out);
    }

    private static GatewayConfig gateway(ConfigNode g) {
        if (!g.requireObject()) {
            return null;
        }
        g.allowOnly(Set.of("name", "bind", "advertisedHost", "nodes", "brokerPorts", "tls", "sni"));
        String name = g.get("name").requiredText();
        String bindText = g.get("bind").requiredText();
        if (name == null || bindText == null) {
            return null;
        }
        HostPort bind;
        try {
            bind = HostPort.parse(bindText, false);
        } catch (IllegalArgumentException ex) {
            g.get("bind").problem(ex.getMessage());
            return null;
        }
        String advertised = g.get("advertisedHost").text(defaultAdvertisedHost(bind.host()));
        NodeAddressing nodes = g.get("nodes").choice(NodeAddressing.class, NodeAddressing.PORT_PER_BROKER);
        ConfigNode ports = g.get("brokerPorts");
        ports.allowOnly(Set.of("start", "nodeIds"));
        int start = ports.get("start").integer(bind.port() + 1, 1, 65535);
        NodeIdRange ids;
        try {
            ids = NodeIdRange.parse(ports.get("nodeIds").text("0-15"));
        } catch (IllegalArgumentException ex) {
            ports.get("nodeIds").problem(ex.getMessage());
            return null;
        }
        if ((long) start + ids.size() - 1 > 65535) {
            ports.problem("ports " + start + " to " + (start + ids.size() - 1) + " for node ids " + ids + " run past 65535");
            return null;
        }
        TlsConfig tls = TlsSettingsReader.gateway(g.get("tls"));
        WeftConfig.SniNames sni = null;
        if (nodes == NodeAddressing.SNI) {
            if (g.get("tls").isMissing()) {
                g.get("tls").problem("an SNI gateway needs 'tls': the server name travels in the TLS handshake");
            }
            if (!ports.isMissing()) {
                ports.problem("an SNI gateway serves every broker on its one port: leave 'brokerPorts' out");
            }
            sni = sniNames(g.get("sni"), bind.port());
        } else if (!g.get("sni").isMissing()) {
            g.get("sni").problem("only for 'nodes: sni' gateways");
        }
        return new GatewayConfig(name, bind, advertised, nodes, start, ids, tls, sni);
    }

    /**
     * {@code authentication: { sasl: { mechanisms, credentials, reauthenticateMs, failures: { max, windowMs },
     * oauthbearer: { jwks, issuer, audience, subClaim, clockSkewMs, jwksRefreshMs, trustCertificates } } }}.
     */
    private static WeftConfig.ClientAuthentication clientAuthentication(ConfigNode n) {
        if (n.isMissing() || !n.requireObject()) {
            return null;
        }
        n.allowOnly(Set.of("sasl"));
        ConfigNode sasl = n.get("sasl");
        if (sasl.isMissing()) {
            n.problem("needs 'sasl' (the only client authentication Weft terminates so far)");
            return null;
        }
        if (!sasl.requireObject()) {
            return null;
        }
        sasl.allowOnly(Set.of("mechanisms", "credentials", "reauthenticateMs", "failures", "oauthbearer"));
        List<String> mechanisms = new ArrayList<>();
        List<ConfigNode> listed = sasl.get("mechanisms").elements();
        if (listed.isEmpty()) {
            sasl.get("mechanisms").problem("is required: a list of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER");
        }
        for (ConfigNode m : listed) {
            String name = m.requiredText();
            if (name == null) {
                continue;
            }
            String upper = name.toUpperCase(java.util.Locale.ROOT);
            if (!dev.weft.proxy.security.SaslServers.SUPPORTED.contains(upper)) {
                m.problem("\"" + name + "\" is not one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER");
            } else if (mechanisms.contains(upper)) {
                m.problem("\"" + name + "\" is listed twice");
            } else {
                mechanisms.add(upper);
            }
        }
        boolean oauth = mechanisms.contains("OAUTHBEARER");
        boolean onlyOauth = oauth && mechanisms.size() == 1;
        String credentials = onlyOauth ? sasl.get("credentials").text(null) : sasl.get("credentials").requiredText();
        long reauthMs = sasl.get("reauthenticateMs").integer(0, 0, Integer.MAX_VALUE);
        ConfigNode failures = sasl.get("failures");
        int maxFailures = 5;
        long windowMs = 60_000;
        if (!failures.isMissing() && failures.requireObject()) {
            failures.allowOnly(Set.of("max", "windowMs"));
            maxFailures = failures.get("max").integer(5, 1, 1_000_000);
            windowMs = failures.get("windowMs").integer(60_000, 1, 86_400_000);
        }
        ConfigNode o = sasl.get("oauthbearer");
        WeftConfig.OAuthBearer oauthBearer = null;
        if (oauth && o.isMissing()) {
            o.problem("is required with OAUTHBEARER in 'mechanisms': { jwks, issuer, audience }");
        } else if (!oauth && !o.isMissing()) {
            o.problem("only with OAUTHBEARER in 'mechanisms'");
        } else if (oauth) {
            oauthBearer = oauthBearer(o);
        }
        return (credentials == null && !onlyOauth) || mechanisms.isEmpty() || (oauth && oauthBearer == null) ? null
                : new WeftConfig.ClientAuthentication(List.copyOf(mechanisms), credentials == null ? null : java.nio.file.Path.of(credentials),
                        reauthMs, maxFailures, windowMs, oauthBearer);
    }

    /** {@code oauthbearer: { jwks, issuer, audience, subClaim, clockSkewMs, jwksRefreshMs, trustCertificates }}. */
    private static WeftConfig.OAuthBearer oauthBearer(ConfigNode o) {
        if (!o.requireObject()) {
            return null;
        }
        o.allowOnly(Set.of("jwks", "issuer", "audience", "subClaim", "clockSkewMs", "jwksRefreshMs", "trustCertificates"));
        String jwks = o.get("jwks").requiredText();
        if (jwks != null) {
            String lower = jwks.toLowerCase(java.util.Locale.ROOT);
            if (!(lower.startsWith("https://") || lower.startsWith("file:"))) {
                o.get("jwks").problem("\"" + jwks + "\" is neither an https:// URL nor a file: URL");
                jwks = null;
            } else {
                try {
                    java.net.URI uri = new java.net.URI(jwks);
                    if (lower.startsWith("https://") && (uri.getHost() == null || uri.getHost().isEmpty())) {
                        o.get("jwks").problem("\"" + jwks + "\" names no host");
                        jwks = null;
                    } else if (lower.startsWith("file:") && (uri.getPath() == null || !uri.getPath().startsWith("/"))) {
                        o.get("jwks").problem("\"" + jwks + "\" is not an absolute file: URL (file:/path/jwks.json)");
                        jwks = null;
                    }
                } catch (java.net.URISyntaxException e) {
                    o.get("jwks").problem("\"" + jwks + "\" is not a URL: " + e.getReason());
                    jwks = null;
                }
            }
        }
        String issuer = o.get("issuer").requiredText();
        ConfigNode aud = o.get("audience");
        List<String> audience = new ArrayList<>();
        if (aud.isMissing()) {
            aud.problem("is required: the audience (\"aud\") tokens for this virtual cluster carry, or a list of them");
        } else if (aud.json().isArray()) {
            for (ConfigNode a : aud.elements()) {
                String text = a.requiredText();
                if (text != null && !text.isBlank()) {
                    audience.add(text);
                }
            }
            if (audience.isEmpty()) {
                aud.problem("lists no audience");
            }
        } else {
            String text = aud.text(null);
            if (text != null && !text.isBlank()) {
                audience.add(text);
            } else {
                aud.problem("is empty");
            }
        }
        String subClaim = o.get("subClaim").text("sub");
        int skewMs = o.get("clockSkewMs").integer(30_000, 0, 3_600_000);
        int refreshMs = o.get("jwksRefreshMs").integer(3_600_000, 1_000, Integer.MAX_VALUE);
        String trust = o.get("trustCertificates").text(null);
        if (trust != null && jwks != null && !jwks.toLowerCase(java.util.Locale.ROOT).startsWith("https://")) {
            o.get("trustCertificates").problem("only for an https:// 'jwks'");
        }
        if (!o.get("jwksRefreshMs").isMissing() && jwks != null && !jwks.toLowerCase(java.util.Locale.ROOT).startsWith("https://")) {
            o.get("jwksRefreshMs").problem("only for an https:// 'jwks' (a file: JWKS is re-read when it changes)");
        }
        return jwks == null || issuer == null || audience.isEmpty() ? null
                : new WeftConfig.OAuthBearer(jwks, issuer, audience, subClaim, (int) ((skewMs + 999L) / 1000), refreshMs,
                        trust == null ? null : java.nio.file.Path.of(trust));
    }

    /**
     * {@code clusters.NAME.principals}: USER → { sasl: credentials, tls: a client certificate }. Each
     * replaces what the cluster has of its own, which it therefore needs: the proxy's discovery client and
     * the principals no entry names still connect with that.
     */
    private static Map<String, WeftConfig.UpstreamIdentity> principals(ConfigNode n, boolean ownSasl, TlsConfig ownTls) {
        if (n.isMissing() || !n.requireObject()) {
            return Map.of();
        }
        Map<String, WeftConfig.UpstreamIdentity> out = new LinkedHashMap<>();
        for (Map.Entry<String, ConfigNode> e : n.entries().entrySet()) {
            ConfigNode p = e.getValue();
            if (!p.requireObject()) {
                continue;
            }
            p.allowOnly(Set.of("sasl", "tls"));
            if (p.get("sasl").isMissing() && p.get("tls").isMissing()) {
                p.problem("needs 'sasl' (a SASL login) or 'tls' (a client certificate): who this principal's broker"
                        + " connections are");
                continue;
            }
            if (!p.get("sasl").isMissing() && !ownSasl) {
                p.get("sasl").problem("needs the cluster's own 'sasl' too: the proxy's discovery client and the principals"
                        + " not named here log in with it");
            }
            if (!p.get("tls").isMissing() && ownTls == null) {
                p.get("tls").problem("needs the cluster's own 'tls' too (its trust and host name checks are the principal's)");
            }
            WeftConfig.SaslCredentials credentials = p.get("sasl").isMissing() ? null : sasl(p.get("sasl"));
            TlsConfig tls = p.get("tls").isMissing() || ownTls == null ? null
                    : TlsSettingsReader.principalCertificate(p.get("tls"), ownTls);
            if (credentials != null || tls != null) {
                out.put(e.getKey(), new WeftConfig.UpstreamIdentity(credentials, tls));
            }
        }
        return out;
    }

    private static WeftConfig.SaslCredentials sasl(ConfigNode n) {
        if (n.isMissing() || !n.requireObject()) {
            return null;
        }
        n.allowOnly(Set.of("mechanism", "username", "password", "token"));
        String mechanism = n.get("mechanism").requiredText();
        WeftConfig.SaslMechanism m = null;
        for (WeftConfig.SaslMechanism candidate : WeftConfig.SaslMechanism.values()) {
            if (candidate.kafkaName.equalsIgnoreCase(String.valueOf(mechanism))) {
                m = candidate;
            }
        }
        if (mechanism != null && m == null) {
            n.get("mechanism").problem("\"" + mechanism + "\" is not one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER");
            return null;
        }
        if (m == WeftConfig.SaslMechanism.OAUTHBEARER) {
            for (String key : List.of("username", "password")) {
                if (!n.get(key).isMissing()) {
                    n.get(key).problem("is not used with OAUTHBEARER: give the bearer token as 'token'"
                            + " (env:NAME, file:/path or the token itself)");
                }
            }
            String token = n.get("token").requiredText();
            if (token != null && token.isBlank()) {
                n.get("token").problem("is empty (expected env:NAME, file:/path or the token itself)");
                return null;
            }
            return token == null ? null : WeftConfig.SaslCredentials.bearer(Secret.of(token));
        }
        if (!n.get("token").isMissing()) {
            n.get("token").problem("is only used with mechanism OAUTHBEARER (" + (m == null ? "PLAIN and SCRAM" : m.kafkaName)
                    + " logs in with 'username' and 'password')");
        }
        String user = n.get("username").requiredText();
        String password = n.get("password").requiredText();
        return m == null || user == null || password == null ? null
                : new WeftConfig.SaslCredentials(m, user, Secret.of(password));
    }

    private static WeftConfig.SniNames sniNames(ConfigNode n, int bindPort) {
        if (!n.requireObject()) {
            return null;
        }
        n.allowOnly(Set.of("bootstrapHost", "brokerHostPattern", "advertisedPort"));
        String bootstrap = n.get("bootstrapHost").requiredText();
        String pattern = n.get("brokerHostPattern").requiredText();
        int port = n.get("advertisedPort").integer(bindPort, 1, 65535);
        if (bootstrap == null || pattern == null) {
            return null;
        }
        String placeholder = WeftConfig.SniNames.NODE_ID_PLACEHOLDER;
        int at = pattern.indexOf(placeholder);
        if (at < 0 || pattern.indexOf(placeholder, at + 1) >= 0) {
            n.get("brokerHostPattern").problem("\"" + pattern + "\" must contain " + placeholder + " exactly once, e.g. broker-"
                    + placeholder + ".main.example.com");
            return null;
        }
        String lower = pattern.toLowerCase(java.util.Locale.ROOT);
        WeftConfig.SniNames names = new WeftConfig.SniNames(bootstrap.toLowerCase(java.util.Locale.ROOT),
                lower.substring(0, at), lower.substring(at + placeholder.length()), port);
        if (names.nodeIdOf(names.bootstrapHost()) >= 0) {
            n.get("bootstrapHost").problem("\"" + bootstrap + "\" matches the broker host pattern too");
        }
        return names;
    }

    private static String defaultAdvertisedHost(String bindHost) {
        return bindHost.equals("0.0.0.0") || bindHost.equals("::") ? "localhost" : bindHost;
    }

    /** Every bootstrap and broker port of every gateway must be distinct. */
    private static void checkPortsUnique(Map<String, VirtualClusterConfig> virtualClusters, ConfigNode.Problems problems) {
        Map<Integer, String> owners = new HashMap<>();
        for (VirtualClusterConfig vc : virtualClusters.values()) {
            for (int i = 0; i < vc.gateways().size(); i++) {
                GatewayConfig g = vc.gateways().get(i);
                String path = "virtualClusters." + vc.name() + ".gateways[" + i + "]";
                String owner = "gateway '" + g.name() + "' of '" + vc.name() + "'";
                claim(owners, g.bind().port(), owner + (g.nodes() == NodeAddressing.SNI ? "" : " (bootstrap)"), path + ".bind", problems);
                if (g.nodes() == NodeAddressing.SNI || vc.topology() == Topology.COLLAPSED) {
                    continue; // one port: SNI names the broker; a collapsed gateway serves every node on it
                }
                for (int id = g.nodeIds().first(); id <= g.nodeIds().last(); id++) {
                    if (!claim(owners, g.brokerPort(id), owner + " (node " + id + ")", path + ".brokerPorts", problems)) {
                        break;
                    }
                }
            }
        }
    }

    private static boolean claim(Map<Integer, String> owners, int port, String owner, String path, ConfigNode.Problems problems) {
        String previous = owners.putIfAbsent(port, owner);
        if (previous != null) {
            problems.add(path + ": port " + port + " is already used by " + previous);
            return false;
        }
        return true;
    }
}
