package dev.weft.proxy.config;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.routing.node.ProxyNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code topology: collapsed}: the proxy nodes, its gateways, and what it refuses, each problem with its path. */
class CollapsedConfigTest {

    private static String config(String clusterExtra, String vcExtra, String gateway) {
        return """
                clusters:
                  east: { bootstrap: "10.0.0.1:9092"%s }
                virtualClusters:
                  main:
                    target: { cluster: east }
                    topology: collapsed
                %s
                    gateways:
                      - %s
                """.formatted(clusterExtra, vcExtra, gateway);
    }

    private static final String NODES = """
                nodes:
                  - { id: 1, address: "proxy-1.example.com:9092", rack: az2 }
                  - { id: 0, address: "proxy-0.example.com:9092", rack: az1 }
            """;

    private static List<String> problems(String yaml) {
        return assertThrows(ConfigException.class, () -> ConfigLoader.parse(yaml, "c.yaml")).problems();
    }

    private static void assertHas(List<String> problems, String expected) {
        assertTrue(problems.stream().anyMatch(p -> p.startsWith(expected)), "expected a problem starting '" + expected
                + "' in " + problems);
    }

    @Test
    void readsTheProxyNodes() throws Exception {
        WeftConfig c = ConfigLoader.parse(config("", NODES, "{ name: n0, bind: \"0.0.0.0:9092\" }"), "c.yaml");
        WeftConfig.VirtualClusterConfig vc = c.virtualClusters().get("main");
        assertEquals(WeftConfig.Topology.COLLAPSED, vc.topology());
        assertEquals(List.of(new ProxyNode(1, "proxy-1.example.com", 9092, "az2"), new ProxyNode(0, "proxy-0.example.com", 9092, "az1")),
                vc.nodes());
    }

    @Test
    void aCollapsedVirtualClusterNeedsItsNodes() {
        assertHas(problems(config("", "", "{ name: n0, bind: \"0.0.0.0:9092\" }")),
                "c.yaml: virtualClusters.main.nodes: is required for 'topology: collapsed'");
    }

    @Test
    void aDuplicateNodeIdIsNamedWithItsPath() {
        List<String> p = problems(config("", """
                    nodes:
                      - { id: 0, address: "a:9092" }
                      - { id: 0, address: "b:9092" }
                """, "{ name: n0, bind: \"0.0.0.0:9092\" }"));
        assertHas(p, "c.yaml: virtualClusters.main.nodes[1].id: duplicate node id 0");
    }

    @Test
    void everyNodeProblemNamesItsPath() {
        List<String> p = problems(config("", """
                    nodes:
                      - { id: 0, address: "a:9092" }
                      - { id: 0, address: "b:9092" }
                      - { address: "c:9092" }
                      - { id: 2, address: "d" }
                      - { id: 3, address: "e:1", colour: red }
                """, "{ name: n0, bind: \"0.0.0.0:9092\" }"));
        assertHas(p, "c.yaml: virtualClusters.main.nodes[2].id: is required");
        assertHas(p, "c.yaml: virtualClusters.main.nodes[3].address:");
        assertHas(p, "c.yaml: virtualClusters.main.nodes[4].colour: unknown setting");
    }

    @Test
    void gatewaysListenOnTheirBindAddressOnly() {
        List<String> p = problems(config("", NODES, "{ name: n0, bind: \"0.0.0.0:9092\", brokerPorts: { start: 9100 } }"));
        assertHas(p, "c.yaml: virtualClusters.main.gateways[0].brokerPorts: a collapsed virtual cluster's brokers are its 'nodes'");
    }

    /** The proxy's own connections to every broker authenticate with the cluster's credentials (issue 15). */
    @Test
    void aCollapsedVirtualClusterOverASaslClusterIsAccepted() {
        WeftConfig c = assertDoesNotThrow(() -> ConfigLoader.parse(config(", sasl: { mechanism: PLAIN, username: u, password: p }",
                NODES, "{ name: n0, bind: \"0.0.0.0:9092\" }"), "c.yaml"));
        assertEquals("u", c.clusters().values().iterator().next().sasl().username());
    }

    @Test
    void nodesBelongToCollapsedOnly() {
        String yaml = config("", NODES, "{ name: n0, bind: \"0.0.0.0:9092\" }").replace("topology: collapsed", "topology: mirrored");
        assertHas(problems(yaml), "c.yaml: virtualClusters.main.nodes: only for 'topology: collapsed'");
    }
}
