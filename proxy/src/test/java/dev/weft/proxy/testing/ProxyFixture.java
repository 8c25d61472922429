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

    public static WeftProxy startInFrontOf(KafkaCluster kafka, Collection<Integer> brokerIds) throws ConfigException {
        int first = brokerIds.stream().mapToInt(Integer::intValue).min().orElseThrow();
        int last = brokerIds.stream().mapToInt(Integer::intValue).max().orElseThrow() + 2; // room to scale
        RuntimeException lastFailure = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            int start = FreePorts.randomRange(2 + last - first);
            String yaml = """
                    server: { eventLoops: 2 }
                    admin: { bind: "127.0.0.1:0" }
                    clusters:
                      upstream: { bootstrap: "%s" }
                    virtualClusters:
                      main:
                        target: { cluster: upstream }
                        gateways:
                          - name: plain
                            bind: "127.0.0.1:%d"
                            brokerPorts: { start: %d, nodeIds: "%d-%d" }
                    """.formatted(kafka.bootstrapServers(), start, start + 1, first, last);
            try {
                return WeftProxy.start(ConfigLoader.parse(yaml, "test config"));
            } catch (RuntimeException e) {
                lastFailure = e; // most likely a port taken between the check and the bind
            }
        }
        throw lastFailure;
    }
}
