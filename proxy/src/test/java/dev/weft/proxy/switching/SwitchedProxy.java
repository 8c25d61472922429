package dev.weft.proxy.switching;

import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.ProxyFixture;
import java.time.Duration;

/**
 * The switching tests' Weft: virtual cluster "main" over switch "alias" (route east active, route west the
 * standby), port-per-broker on free ports, an admin endpoint, returned once it knows its clusters' brokers.
 */
final class SwitchedProxy {

    static final int NODE_IDS = 8;

    private SwitchedProxy() {
    }

    /**
     * @param extraClusters more entries under {@code clusters:} ("" for none), each line starting with two spaces
     * @param switchSettings more keys of the switch router ({@code state:}, {@code cutover:}, {@code failover:}),
     *     each line starting with four spaces
     */
    static WeftProxy start(String eastBootstrap, String westBootstrap, String extraClusters, String switchSettings) {
        WeftProxy proxy = ProxyFixture.startOnFreePorts(2 + NODE_IDS, start -> """
                server: { eventLoops: 1 }
                admin: { bind: "127.0.0.1:%d" }
                clusters:
                  east: { bootstrap: "%s" }
                  west: { bootstrap: "%s" }
                %s
                routers:
                  alias:
                    type: switch
                    active: east
                    routes:
                      - { name: east, target: { cluster: east } }
                      - { name: west, target: { cluster: west } }
                %s
                virtualClusters:
                  main:
                    target: { router: alias }
                    gateways:
                      - { name: plain, bind: "127.0.0.1:%d", brokerPorts: { start: %d, nodeIds: "0-%d" } }
                """.formatted(start + 1 + NODE_IDS, eastBootstrap, westBootstrap, extraClusters.stripTrailing(),
                switchSettings.stripTrailing(), start, start + 1, NODE_IDS - 1));
        try {
            Poll.until(Duration.ofSeconds(60), "the proxy to know its clusters' brokers", () -> proxy.readiness().isReady(),
                    () -> proxy.readiness().reasons().toString());
        } catch (RuntimeException | AssertionError e) {
            proxy.close();
            throw e;
        }
        return proxy;
    }

    /** {@code host:port} of the proxy's admin endpoint. */
    static String admin(WeftProxy proxy) {
        var a = proxy.adminAddress().orElseThrow();
        return a.getHostString() + ":" + a.getPort();
    }
}
