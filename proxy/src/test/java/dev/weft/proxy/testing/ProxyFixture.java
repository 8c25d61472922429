package dev.weft.proxy.testing;

import dev.weft.proxy.config.ConfigException;
import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.testkit.KafkaCluster;
import java.util.Collection;

/** Starts Weft in front of a running test cluster on free ports; retries if a port is taken meanwhile. */
public final class ProxyFixture {

    private ProxyFixture() {
    }

    /** Weft over {@code kafka}, one virtual cluster "main" with one plaintext gateway "plain". */
    public static WeftProxy startInFrontOf(KafkaCluster kafka) throws ConfigException {
        return startInFrontOf(kafka, kafka.brokerIds());
    }

    /** Bootstrap address of the "main" virtual cluster of a proxy started here. */
    public static String bootstrap(WeftProxy proxy) {
        return proxy.bootstrapAddresses("main").get(0);
    }

    public static WeftProxy startInFrontOf(KafkaCluster kafka, Collection<Integer> brokerIds) throws ConfigException {
        return startInFrontOf(kafka, brokerIds, "");
    }

    /**
     * @param extraServerSettings more entries for the {@code server:} map, e.g.
     *     {@code ", partialFrameTimeoutMs: 500"} (leading comma)
     */
    public static WeftProxy startInFrontOf(KafkaCluster kafka, Collection<Integer> brokerIds, String extraServerSettings)
            throws ConfigException {
        int first = brokerIds.stream().mapToInt(Integer::intValue).min().orElseThrow();
        int last = brokerIds.stream().mapToInt(Integer::intValue).max().orElseThrow() + 2; // room to scale
        return startInFrontOf(kafka.bootstrapServers(), first, last, extraServerSettings);
    }

    /**
     * The config of one virtual cluster {@code main} over cluster {@code upstream} at {@code bootstrapServers},
     * one port-per-broker gateway {@code plain}: bootstrap on {@code bootstrapPort}, node ids
     * {@code firstNodeId}..{@code lastNodeId} on the ports after it.
     *
     * @param admin the body of the {@code admin:} map, e.g. {@code bind: "127.0.0.1:0"} or {@code enabled: false}
     * @param extraServerSettings more {@code server:} entries with a leading comma, or ""
     */
    /**
     * {@code config} (a {@link #singleClusterConfig}) with a second pass-through virtual cluster,
     * {@code second}, over the same cluster: bootstrap at {@code port}, node 0 at {@code port + 1}.
     */
    public static String withSecondVirtualCluster(String config, int port) {
        return config + """
                  second:
                    target: { cluster: upstream }
                    gateways:
                      - { name: plain, bind: "127.0.0.1:%d", brokerPorts: { start: %d, nodeIds: "0" } }
                """.formatted(port, port + 1);
    }

    public static String singleClusterConfig(String admin, String bootstrapServers, int eventLoops, String extraServerSettings,
            int bootstrapPort, int firstNodeId, int lastNodeId) {
        return """
                server: { eventLoops: %d %s }
                admin: { %s }
                clusters:
                  upstream: { bootstrap: "%s" }
                virtualClusters:
                  main:
                    target: { cluster: upstream }
                    gateways:
                      - name: plain
                        bind: "127.0.0.1:%d"
                        brokerPorts: { start: %d, nodeIds: "%d-%d" }
                """.formatted(eventLoops, extraServerSettings, admin, bootstrapServers, bootstrapPort, bootstrapPort + 1,
                firstNodeId, lastNodeId);
    }

    /**
     * Weft over the cluster at {@code bootstrapServers} with ports for node ids {@code firstNodeId} to
     * {@code lastNodeId}; retries on fresh ports if one was taken between the check and the bind.
     *
     * @param extraServerSettings more {@code server:} entries with a leading comma, or ""
     */
    public static WeftProxy startInFrontOf(String bootstrapServers, int firstNodeId, int lastNodeId,
            String extraServerSettings) throws ConfigException {
        return startInFrontOf(bootstrapServers, firstNodeId, lastNodeId, extraServerSettings, java.util.function.UnaryOperator.identity());
    }

    /** Like {@link #startInFrontOf(String, int, int, String)}, the config edited by {@code edit} first. */
    public static WeftProxy startInFrontOf(String bootstrapServers, int firstNodeId, int lastNodeId,
            String extraServerSettings, java.util.function.UnaryOperator<String> edit) throws ConfigException {
        int first = firstNodeId;
        int last = lastNodeId;
        RuntimeException lastFailure = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            int start = FreePorts.randomRange(2 + last - first);
            String yaml = edit.apply(singleClusterConfig("bind: \"127.0.0.1:0\"", bootstrapServers, 2, extraServerSettings, start,
                    first, last));
            try {
                return WeftProxy.start(ConfigLoader.parse(yaml, "test config"));
            } catch (RuntimeException e) {
                lastFailure = e; // most likely a port taken between the check and the bind
            }
        }
        throw lastFailure;
    }

    /**
     * Weft from the config {@code yaml} makes for a run of {@code ports} free ports (the argument is the
     * first); tried again on another run when a port was taken between the check and the bind.
     */
    public static WeftProxy startOnFreePorts(int ports, java.util.function.IntFunction<String> yaml) {
        dev.weft.proxy.gateway.GatewayBindException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            String config = yaml.apply(FreePorts.randomRange(ports));
            try {
                return WeftProxy.start(ConfigLoader.parse(config, "test config"));
            } catch (dev.weft.proxy.gateway.GatewayBindException e) {
                last = e; // a port taken between the check and the bind
            } catch (ConfigException e) {
                throw new IllegalArgumentException(e.getMessage() + "\n" + config, e);
            }
        }
        throw last;
    }
}
