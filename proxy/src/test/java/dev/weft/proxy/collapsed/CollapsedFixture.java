package dev.weft.proxy.collapsed;

import dev.weft.proxy.config.ConfigException;
import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.gateway.GatewayBindException;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.routing.node.CollapsedNodes;
import dev.weft.routing.node.ProxyNode;
import dev.weft.testkit.KafkaCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Starts Weft with one collapsed virtual cluster "main" (DESIGN §4 "collapsed", issue 9) on free
 * loopback ports: the proxy fleet is the broker list ({@code nodes}), each node one gateway port, and
 * a fleet of several replicas (each a {@link WeftProxy} of its own, all in this JVM) shares one node list
 * while each binds only the ports of the nodes it serves. The node at index {@code i} of the list has
 * id {@code firstId + i} (ids other than the real brokers' show where a real id leaks through) and is
 * served by replica {@code i % replicas}. Racks: the first node is in {@code az1}, the second in
 * {@code az2}, the others have none (the rack is optional).
 */
final class CollapsedFixture {

    static final String HOST = "127.0.0.1";

    private CollapsedFixture() {
    }

    /** What the virtual cluster targets: YAML of {@code clusters:}, {@code routers:} (or "") and the target. */
    record Upstreams(String clustersYaml, String routersYaml, String targetYaml) {

        /** One real cluster, named {@code upstream}: {@code target: { cluster: upstream }}. */
        static Upstreams cluster(KafkaCluster kafka) {
            return new Upstreams("  upstream: { bootstrap: \"" + kafka.bootstrapServers() + "\" }\n", "",
                    "{ cluster: upstream }");
        }

        /**
         * A topic-weave router {@code weave} over clusters {@code c0, c1, ...}; route k targets cluster ck.
         *
         * @param routes one YAML route entry per cluster without its target, e.g. {@code "name: east"}
         * @param routerSettings more router keys as YAML lines indented by 4 spaces, or ""
         */
        static Upstreams weave(List<KafkaCluster> clusters, List<String> routes, String routerSettings) {
            return router("topic-weave", clusters, routes, routerSettings);
        }

        /** {@link #weave} with a router of another type (still named {@code weave}). */
        static Upstreams router(String type, List<KafkaCluster> clusters, List<String> routes, String routerSettings) {
            StringBuilder c = new StringBuilder();
            StringBuilder r = new StringBuilder("routers:\n  weave:\n    type: " + type + "\n    routes:\n");
            for (int k = 0; k < clusters.size(); k++) {
                c.append("  c").append(k).append(": { bootstrap: \"").append(clusters.get(k).bootstrapServers()).append("\" }\n");
                r.append("      - { ").append(routes.get(k)).append(", target: { cluster: c").append(k).append(" } }\n");
            }
            r.append(routerSettings);
            return new Upstreams(c.toString(), r.toString(), "{ router: weave }");
        }
    }

    /** Closes each of {@code resources} (nulls skipped) in the order given; rethrows the first failure. */
    static void closeAll(AutoCloseable... resources) {
        Throwable first = null;
        for (AutoCloseable r : resources) {
            if (r == null) {
                continue;
            }
            try {
                r.close();
            } catch (Exception | Error e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first instanceof Error e) {
            throw e;
        }
        if (first != null) {
            throw new AssertionError("cleanup failed: " + first, first);
        }
    }

    static String rackOf(int index) {
        return index < 2 ? "az" + (index + 1) : null;
    }

    /** The collapsed fleet: its nodes and the replicas serving them. */
    static final class Fleet implements AutoCloseable {

        private final List<ProxyNode> nodes;
        private final List<WeftProxy> replicas;
        private final int replicaCount;
        private final List<String> yaml;

        private Fleet(List<ProxyNode> nodes, List<WeftProxy> replicas, List<String> yaml) {
            this.nodes = List.copyOf(nodes); // in index order
            this.replicas = List.copyOf(replicas);
            this.replicaCount = replicas.size();
            this.yaml = List.copyOf(yaml);
        }

        List<ProxyNode> nodes() {
            return nodes;
        }

        /** Node ids, ascending. */
        List<Integer> ids() {
            return nodes.stream().map(ProxyNode::id).sorted().toList();
        }

        /** {@code host:port} of node {@code id}. */
        String address(int id) {
            return node(id).hostPort();
        }

        ProxyNode node(int id) {
            return nodes.stream().filter(n -> n.id() == id).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no proxy node " + id + " in " + nodes));
        }

        /** Node id → {@code host:port}. */
        Map<Integer, String> addresses() {
            Map<Integer, String> out = new TreeMap<>();
            nodes.forEach(n -> out.put(n.id(), n.hostPort()));
            return out;
        }

        /** Every node's address, comma-separated: a bootstrap list over the whole fleet. */
        String bootstrap() {
            return nodes.stream().map(ProxyNode::hostPort).collect(Collectors.joining(","));
        }

        /** The addresses of the nodes replica {@code r} serves, comma-separated. */
        String bootstrapOf(int replica) {
            List<String> out = new ArrayList<>();
            for (int i = replica; i < nodes.size(); i += replicaCount) {
                out.add(nodes.get(i).hostPort());
            }
            return String.join(",", out);
        }

        /** The ids of the nodes replica {@code r} serves. */
        List<Integer> idsOf(int replica) {
            List<Integer> out = new ArrayList<>();
            for (int i = replica; i < nodes.size(); i += replicaCount) {
                out.add(nodes.get(i).id());
            }
            return out;
        }

        List<WeftProxy> replicas() {
            return replicas;
        }

        WeftProxy replica(int r) {
            return replicas.get(r);
        }

        /** The config each replica was started with (for messages). */
        List<String> yaml() {
            return yaml;
        }

        /** The node list as the routing module models it: the arithmetic of virtual leaders (same on every replica). */
        CollapsedNodes collapsedNodes() {
            return CollapsedNodes.of("nodes", nodes);
        }

        @Override
        public void close() {
            RuntimeException first = null;
            for (WeftProxy p : replicas) {
                try {
                    p.close();
                } catch (RuntimeException e) {
                    if (first == null) {
                        first = e;
                    }
                }
            }
            if (first != null) {
                throw first;
            }
        }
    }

    /** One replica serving {@code nodeCount} collapsed nodes with ids from {@code firstId}. */
    static Fleet start(Upstreams upstreams, int nodeCount, int firstId) {
        return start(upstreams, nodeCount, firstId, 1);
    }

    /**
     * {@code replicas} Weft instances sharing one list of {@code nodeCount} nodes (ids {@code firstId}
     * on, ports of a free range); retried on fresh ports when a port was taken between the check and
     * the bind.
     */
    static Fleet start(Upstreams upstreams, int nodeCount, int firstId, int replicas) {
        RuntimeException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            int first = FreePorts.randomRange(nodeCount);
            List<ProxyNode> nodes = new ArrayList<>();
            for (int i = 0; i < nodeCount; i++) {
                nodes.add(new ProxyNode(firstId + i, HOST, first + i, rackOf(i)));
            }
            List<WeftProxy> started = new ArrayList<>();
            List<String> yamls = new ArrayList<>();
            try {
                for (int r = 0; r < replicas; r++) {
                    String yaml = yaml(upstreams, nodes, r, replicas);
                    yamls.add(yaml);
                    started.add(WeftProxy.start(ConfigLoader.parse(yaml, "collapsed test config (replica " + r + ")")));
                }
                return new Fleet(nodes, started, yamls);
            } catch (GatewayBindException e) {
                last = e; // a port taken meanwhile: try another range
                started.forEach(WeftProxy::close);
            } catch (ConfigException e) {
                started.forEach(WeftProxy::close);
                throw new AssertionError("Weft refused the collapsed config:\n" + yamls.getLast() + "\n" + e.getMessage(), e);
            } catch (RuntimeException | Error e) {
                started.forEach(WeftProxy::close);
                throw e;
            }
        }
        throw last;
    }

    /** The config of replica {@code replica}: the whole node list, gateways for its own nodes only. */
    static String yaml(Upstreams upstreams, List<ProxyNode> nodes, int replica, int replicas) {
        StringBuilder y = new StringBuilder("server: { eventLoops: 2 }\n")
                .append("admin: { bind: \"127.0.0.1:0\" }\n")
                .append("clusters:\n").append(upstreams.clustersYaml())
                .append(upstreams.routersYaml())
                .append("virtualClusters:\n")
                .append("  main:\n")
                .append("    target: ").append(upstreams.targetYaml()).append('\n')
                .append("    topology: collapsed\n")
                .append("    nodes:\n");
        for (ProxyNode n : nodes) {
            y.append("      - { id: ").append(n.id()).append(", address: \"").append(n.hostPort()).append('"');
            if (n.rack() != null) {
                y.append(", rack: ").append(n.rack());
            }
            y.append(" }\n");
        }
        y.append("    gateways:\n");
        for (int i = replica; i < nodes.size(); i += replicas) {
            ProxyNode n = nodes.get(i);
            y.append("      - { name: n").append(n.id()).append(", bind: \"").append(n.hostPort()).append("\" }\n");
        }
        return y.toString();
    }
}
