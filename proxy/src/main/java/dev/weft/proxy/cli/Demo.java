package dev.weft.proxy.cli;

import dev.weft.proxy.config.ConfigException;
import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.config.WeftConfig;
import dev.weft.proxy.net.FreePorts;
import dev.weft.proxy.server.WeftProxy;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * {@code weft demo}: two real embedded Kafka clusters (demo: 3 brokers, west: 1) behind three virtual
 * clusters — {@code demo} (the first cluster as it is), {@code woven} (topic weaving over both) and
 * {@code shadowed} (stream branching: the first cluster, with every record produced to {@code orders}
 * copied to west as {@code shadow.orders}) — and what to try against them.
 */
final class Demo {

    /** Ports from the first free run at or after 9192: demo bootstrap + 3 brokers, admin, woven 1 + 8, shadowed 1 + 8. */
    private static final int PORTS = 23;

    private Demo() {
    }

    /** Starts the clusters, Weft and the demo topics, prints what to try; the caller closes the proxy. */
    static WeftProxy start(PrintStream out) throws ConfigException {
        int port = FreePorts.rangeFrom(9192, PORTS);
        String yaml = """
                admin: { bind: "127.0.0.1:%d" }
                clusters:
                  demo:
                    embedded: { brokers: 3 }
                  west:
                    embedded: { brokers: 1 }
                routers:
                  weave:
                    type: topic-weave
                    routes:
                      - { name: demo, target: { cluster: demo } }
                      - { name: west, target: { cluster: west }, naming: { prefix: "w." } }
                    placement: { rules: [ { prefix: "w.", route: west } ] }
                  shadow:
                    type: branch
                    routes:
                      - { name: demo, target: { cluster: demo } }
                      - { name: west, target: { cluster: west }, topics: { include: [orders] }, naming: { prefix: "shadow." } }
                virtualClusters:
                  demo:
                    target: { cluster: demo }
                    gateways:
                      - name: plain
                        bind: "127.0.0.1:%d"
                        advertisedHost: 127.0.0.1
                        brokerPorts: { start: %d, nodeIds: "0-2" }
                  woven:
                    target: { router: weave }
                    gateways:
                      - name: plain
                        bind: "127.0.0.1:%d"
                        advertisedHost: 127.0.0.1
                        brokerPorts: { start: %d, nodeIds: "0-7" }
                  shadowed:
                    target: { router: shadow }
                    gateways:
                      - name: plain
                        bind: "127.0.0.1:%d"
                        advertisedHost: 127.0.0.1
                        brokerPorts: { start: %d, nodeIds: "0-7" }
                """.formatted(port + 4, port, port + 1, port + 5, port + 6, port + 14, port + 15);
        WeftConfig config = ConfigLoader.parse(yaml, "weft demo (built-in config)");
        out.println("weft demo: starting two real Kafka clusters (3 brokers and 1 broker, KRaft, in-process) and Weft in front ...");
        WeftProxy proxy = WeftProxy.start(config);
        String bootstrap = proxy.bootstrapAddresses("demo").get(0);
        String woven = proxy.bootstrapAddresses("woven").get(0);
        String shadowed = proxy.bootstrapAddresses("shadowed").get(0);
        String west = proxy.embeddedClusters().get(1).bootstrapServers();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, woven));
                Admin westAdmin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, west))) {
            // created through the woven cluster: the placement rule puts w.* on west (as "payments")
            admin.createTopics(List.of(new NewTopic("orders", 3, (short) 1), new NewTopic("w.payments", 1, (short) 1)))
                    .all().get(60, TimeUnit.SECONDS);
            // the branch's copies of orders go to west's shadow.orders, which exists there like any target topic
            westAdmin.createTopics(List.of(new NewTopic("shadow.orders", 3, (short) 1))).all().get(60, TimeUnit.SECONDS);
            // read the new topics now rather than at the next discovery round
            proxy.virtualCluster("woven").refreshCatalog().get(30, TimeUnit.SECONDS);
            proxy.virtualCluster("shadowed").refreshCatalog().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            out.println("weft demo: could not create the demo topics: " + e.getMessage());
        }
        out.println();
        out.println("  Kafka (direct):     demo " + proxy.embeddedClusters().get(0).bootstrapServers() + ", west " + west);
        out.println("  Weft bootstrap:     " + bootstrap + "   virtual cluster 'demo' over cluster demo (transport " + proxy.transport() + ")");
        out.println("  Woven bootstrap:    " + woven + "   virtual cluster 'woven': topics of demo and west (west's as w.*)");
        out.println("  Shadowed bootstrap: " + shadowed + "   virtual cluster 'shadowed': cluster demo, orders copied to west");
        proxy.adminAddress().ifPresent(a -> out.println("  Metrics:            http://" + a.getHostString() + ":" + a.getPort() + "/metrics"));
        out.println();
        out.println("  Try it (in another terminal):");
        out.println("    kcat -b " + bootstrap + " -L");
        out.println("    echo 'hello weft' | kcat -b " + bootstrap + " -t demo -P");
        out.println("    kcat -b " + bootstrap + " -t demo -C -e");
        out.println("  Topic weaving: one cluster view over both clusters");
        out.println("    kcat -b " + woven + " -L                      # orders (demo) and w.payments (west)");
        out.println("    echo 'paid' | kcat -b " + woven + " -t w.payments -P");
        out.println("    kcat -b " + west + " -t payments -C -e   # landed on west as 'payments'");
        out.println("  Stream branching: what demo acknowledges for orders is copied to west on the side");
        out.println("    echo 'order 1' | kcat -b " + shadowed + " -t orders -P");
        out.println("    kcat -b " + west + " -t shadow.orders -C -e   # the copy (copies begin once Weft has read west's");
        out.println("                                                  # leaders of shadow.orders: within 10 s of the start)");
        out.println("  or with the Kafka CLI tools:");
        out.println("    kafka-console-producer.sh --bootstrap-server " + bootstrap + " --topic demo");
        out.println("    kafka-console-consumer.sh --bootstrap-server " + woven + " --include 'orders|w\\..*' --from-beginning");
        out.println();
        out.println("  Ctrl-C stops Weft and the Kafka clusters and removes their files.");
        return proxy;
    }
}
