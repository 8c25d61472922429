package dev.weft.proxy.testing;

import dev.weft.proxy.config.ConfigException;
import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.server.WeftProxy;
import java.time.Duration;

/**
 * The switching tests' Weft: virtual cluster "main" over switch "alias" (route east active, route west the
 * standby), port-per-broker on free ports, an admin endpoint, returned once it knows its clusters' brokers.
 */
public final class SwitchedProxy {

    public static final int NODE_IDS = 8;

    private SwitchedProxy() {
    }

    /**
     * @param extraClusters more entries under {@code clusters:} ("" for none), each line starting with two spaces
     * @param switchSettings more keys of the switch router ({@code state:}, {@code cutover:}, {@code failover:}),
     *     each line starting with four spaces
     */
    public static WeftProxy start(String eastBootstrap, String westBootstrap, String extraClusters, String switchSettings) {
        WeftProxy proxy = ProxyFixture.startOnFreePorts(2 + NODE_IDS, start -> config(eastBootstrap, westBootstrap, extraClusters,
                switchSettings, "127.0.0.1", "127.0.0.1", start, "127.0.0.1:" + (start + 1 + NODE_IDS)));
        return ready(proxy);
    }

    /** Ports the gateway binds from its first one: bootstrap plus {@link #NODE_IDS} broker ports. */
    public static final int GATEWAY_PORTS = 1 + NODE_IDS;

    /**
     * Like {@link #start(String, String, String, String)} for a replica of a fleet behind a load balancer:
     * the gateway binds {@code bindHost} from {@code startPort} ({@link #GATEWAY_PORTS} ports) and
     * advertises {@code advertisedHost} on the same ports; the admin endpoint binds a free port of
     * {@code bindHost}.
     *
     * @throws dev.weft.proxy.gateway.GatewayBindException when a port is taken
     */
    public static WeftProxy startReplica(String eastBootstrap, String westBootstrap, String extraClusters, String switchSettings,
            String bindHost, String advertisedHost, int startPort) throws ConfigException {
        return ready(WeftProxy.start(ConfigLoader.parse(config(eastBootstrap, westBootstrap, extraClusters, switchSettings,
                bindHost, advertisedHost, startPort, bindHost + ":0"), "switched replica config")));
    }

    private static String config(String eastBootstrap, String westBootstrap, String extraClusters, String switchSettings,
            String bindHost, String advertisedHost, int start, String admin) {
        return """
                server: { eventLoops: 1 }
                admin: { bind: "%s" }
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
                      - { name: plain, bind: "%s:%d", advertisedHost: "%s", brokerPorts: { start: %d, nodeIds: "0-%d" } }
                """.formatted(admin, eastBootstrap, westBootstrap, extraClusters.stripTrailing(), switchSettings.stripTrailing(),
                bindHost, start, advertisedHost, start + 1, NODE_IDS - 1);
    }

    private static WeftProxy ready(WeftProxy proxy) {
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
    public static String admin(WeftProxy proxy) {
        var a = proxy.adminAddress().orElseThrow();
        return a.getHostString() + ":" + a.getPort();
    }
}
