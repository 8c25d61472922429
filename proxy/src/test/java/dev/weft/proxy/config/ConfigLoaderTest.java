package dev.weft.proxy.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ConfigLoaderTest {

    private static final String VALID = """
            server: { eventLoops: 2, maxFrameBytes: 64MiB }
            clusters:
              east: { bootstrap: "10.0.0.1:9092,10.0.0.2:9092" }
            virtualClusters:
              main:
                target: { cluster: east }
                topology: mirrored
                gateways:
                  - name: plain
                    bind: "0.0.0.0:9192"
                    brokerPorts: { nodeIds: "0-5" }
            """;

    @Test
    void readsAValidFileWithDefaults() throws Exception {
        WeftConfig c = ConfigLoader.parse(VALID, "weft.yaml");
        assertEquals(2, c.server().eventLoops());
        assertEquals(64 << 20, c.server().maxFrameBytes());
        assertEquals("auto", c.server().transport());
        assertEquals(List.of(new HostPort("10.0.0.1", 9092), new HostPort("10.0.0.2", 9092)), c.clusters().get("east").bootstrap());
        WeftConfig.GatewayConfig g = c.virtualClusters().get("main").gateways().get(0);
        assertEquals("localhost", g.advertisedHost(), "0.0.0.0 is advertised as localhost unless set");
        assertEquals(9193, g.brokerPort(0), "broker ports start right after the bootstrap port");
        assertEquals(9198, g.brokerPort(5));
        assertEquals(-1, g.brokerPort(6), "node ids outside the range have no port");
    }

    /** The proxy's zone: server.rack for every virtual cluster, unless one sets its own ("" = none). */
    @Test
    void aVirtualClusterReadsInTheServersZoneUnlessItSetsItsOwn() throws Exception {
        String yaml = """
                server: { rack: use1-az2 }
                clusters:
                  east: { bootstrap: "10.0.0.1:9092" }
                virtualClusters:
                  inherits: { target: { cluster: east }, gateways: [ { name: a, bind: "0.0.0.0:9192" } ] }
                  own: { target: { cluster: east }, rack: use1-az3, gateways: [ { name: b, bind: "0.0.0.0:9292" } ] }
                  none: { target: { cluster: east }, rack: "", gateways: [ { name: c, bind: "0.0.0.0:9392" } ] }
                """;
        WeftConfig c = ConfigLoader.parse(yaml, "weft.yaml");
        assertEquals("use1-az2", c.server().rack());
        assertEquals("use1-az2", c.virtualClusters().get("inherits").rack());
        assertEquals("use1-az3", c.virtualClusters().get("own").rack());
        assertEquals(null, c.virtualClusters().get("none").rack(), "an empty rack turns rack-aware fetch off");
        assertEquals(null, ConfigLoader.parse(VALID, "weft.yaml").virtualClusters().get("main").rack(), "off by default");
    }

    @Test
    void aRackWithSpacesOrNotAValueIsRefusedWithItsPath() {
        String yaml = """
                server: { rack: " use1-az2" }
                clusters:
                  east: { bootstrap: "10.0.0.1:9092" }
                virtualClusters:
                  main: { target: { cluster: east }, rack: [a, b], gateways: [ { name: a, bind: "0.0.0.0:9192" } ] }
                """;
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(yaml, "weft.yaml"));
        assertContains(e.problems(), "weft.yaml: server.rack: \" use1-az2\" has leading or trailing spaces; brokers compare"
                + " broker.rack exactly");
        assertTrue(e.problems().stream().anyMatch(m -> m.startsWith("weft.yaml: virtualClusters.main.rack: must be a single value")),
                e.problems()::toString);
    }

    @Test
    void everyProblemNamesFilePathAndWhatIsWrong() {
        String yaml = """
                clusters:
                  east: { bootstrap: "10.0.0.1:x" }
                virtualClusters:
                  main:
                    target: { cluster: west }
                    topolgy: mirrored
                    gateways:
                      - name: plain
                        bind: "0.0.0.0:9192"
                      - name: public
                        bind: "0.0.0.0:9193"
                """;
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(yaml, "weft.yaml"));
        List<String> p = e.problems();
        assertContains(p, "weft.yaml: clusters.east.bootstrap: \"10.0.0.1:x\" is not host:port (port is not a number)");
        assertContains(p, "weft.yaml: virtualClusters.main.target.cluster: no cluster named 'west' (clusters: east)");
        assertContains(p, "weft.yaml: virtualClusters.main.topolgy: unknown setting");
        assertContains(p, "weft.yaml: virtualClusters.main.gateways[1].bind: port 9193 is already used by gateway 'plain' of 'main' (node 0)");
    }

    @Test
    void aClusterNeedsExactlyOneOfBootstrapOrEmbedded() {
        String yaml = """
                clusters:
                  both: { bootstrap: "h:1", embedded: { brokers: 1 } }
                virtualClusters:
                  main: { target: { cluster: both }, gateways: [ { name: g, bind: "127.0.0.1:9000" } ] }
                """;
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(yaml, "f.yaml"));
        assertContains(e.problems(), "f.yaml: clusters.both: needs exactly one of 'bootstrap' (a running cluster) or 'embedded'");
    }

    @Test
    void badYamlSaysWhere() {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse("clusters: [\n  a: b", "x.yaml"));
        assertTrue(e.getMessage().startsWith("x.yaml:"), e.getMessage());
        assertTrue(e.getMessage().contains("not valid YAML"), e.getMessage());
    }

    @Test
    void sizesAndRangesAreChecked() {
        String yaml = """
                server: { maxFrameBytes: lots, eventLoops: -1, transport: dpdk }
                clusters: { a: { bootstrap: "h:1" } }
                virtualClusters:
                  main: { target: { cluster: a }, gateways: [ { name: g, bind: "127.0.0.1:65530", brokerPorts: { nodeIds: "0-15" } } ] }
                """;
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(yaml, "s.yaml"));
        assertContains(e.problems(), "s.yaml: server.maxFrameBytes: \"lots\" is not a size");
        assertContains(e.problems(), "s.yaml: server.eventLoops: -1 is out of range (0 to 1024)");
        assertContains(e.problems(), "s.yaml: server.transport: \"dpdk\" is not one of auto, io_uring, epoll, nio");
        assertContains(e.problems(), "s.yaml: virtualClusters.main.gateways[0].brokerPorts: ports 65531 to 65546 for node ids 0-15 run past 65535");
    }

    @Test
    void partialFrameBudgetsHaveDefaultsAndAreChecked() throws Exception {
        WeftConfig c = ConfigLoader.parse(VALID, "weft.yaml");
        assertEquals(16L << 20, c.server().maxPartialFrameBytesPerConnection());
        assertEquals(256L << 20, c.server().maxPartialFrameBytesPerCore());
        String set = VALID.replace("maxFrameBytes: 64MiB", "maxPartialFrameBytesPerConnection: 4MiB, maxPartialFrameBytesPerCore: 1GiB");
        WeftConfig s = ConfigLoader.parse(set, "weft.yaml");
        assertEquals(4L << 20, s.server().maxPartialFrameBytesPerConnection());
        assertEquals(1L << 30, s.server().maxPartialFrameBytesPerCore());

        String inverted = VALID.replace("maxFrameBytes: 64MiB", "maxPartialFrameBytesPerConnection: 64MiB, maxPartialFrameBytesPerCore: 32MiB");
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(inverted, "w.yaml"));
        assertContains(e.problems(), "w.yaml: server.maxPartialFrameBytesPerConnection: 67108864 bytes is more than "
                + "server.maxPartialFrameBytesPerCore (33554432 bytes)");
        String tiny = VALID.replace("maxFrameBytes: 64MiB", "maxPartialFrameBytesPerCore: 12, maxPartialFrameBytesPerConnection: much");
        ConfigException t = assertThrows(ConfigException.class, () -> ConfigLoader.parse(tiny, "w.yaml"));
        assertContains(t.problems(), "w.yaml: server.maxPartialFrameBytesPerCore: 12 is out of range (1024 to ");
        assertContains(t.problems(), "w.yaml: server.maxPartialFrameBytesPerConnection: \"much\" is not a size");
    }

    @Test
    void zeroCopySendIsOffUnlessAThresholdIsSet() throws Exception {
        assertEquals(0, ConfigLoader.parse(VALID, "weft.yaml").server().zeroCopySendThresholdBytes());
        String on = VALID.replace("maxFrameBytes: 64MiB", "zeroCopySendThreshold: 64KiB");
        assertEquals(64 * 1024, ConfigLoader.parse(on, "weft.yaml").server().zeroCopySendThresholdBytes());
        String bad = VALID.replace("maxFrameBytes: 64MiB", "zeroCopySendThreshold: -1");
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(bad, "w.yaml"));
        assertContains(e.problems(), "w.yaml: server.zeroCopySendThreshold: ");
    }

    private static void assertContains(List<String> problems, String prefix) {
        assertTrue(problems.stream().anyMatch(p -> p.startsWith(prefix)),
                () -> "expected a problem starting with\n  " + prefix + "\nbut got\n  " + String.join("\n  ", problems));
    }
}
