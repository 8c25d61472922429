package dev.weft.proxy.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.server.UnsupportedConfigurationException;
import dev.weft.proxy.server.WeftProxy;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The routing DAG in the YAML file: read into routing specs, validated with paths in the file. */
class RoutersConfigTest {

    private static final String CLUSTERS = """
            clusters:
              us-east: { bootstrap: "10.0.0.1:9092" }
              eu-west: { bootstrap: "10.1.0.1:9092" }
            """;

    private static final String GATEWAY = """
                gateways: [ { name: g, bind: "127.0.0.1:9192" } ]
            """;

    @Test
    void aTopicWeaveOverTwoClustersIsValid() throws Exception {
        WeftConfig c = ConfigLoader.parse(CLUSTERS + """
                routers:
                  weave:
                    type: topic-weave
                    collisions: qualify
                    routes:
                      - name: us
                        target: { cluster: us-east }
                        topics: { include: ["orders", "re:payments-.*"] }
                        naming: { prefix: "us." }
                      - name: eu
                        target: { cluster: eu-west }
                    groups: { homes: [ { prefix: "eu-", route: eu } ], default: us }
                virtualClusters:
                  main:
                    target: { router: weave }
                """ + GATEWAY, "w.yaml");
        assertEquals("weave", c.virtualClusters().get("main").targetRouter());
        assertEquals(List.of("us", "eu"), c.routers().get("weave").routeNames());
    }

    @Test
    void cyclesDanglingReferencesUnusedRoutersAndBadSettingsAreNamedByPath() {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(CLUSTERS + """
                routers:
                  a:
                    type: topic-weave
                    routes:
                      - { name: x, target: { router: b } }
                      - { name: y, target: { cluster: ap-south } }
                  b:
                    type: topic-weave
                    routes:
                      - { name: back, target: { router: a } }
                  spare:
                    type: topic-weave
                    routes:
                      - { name: z, target: { cluster: us-east } }
                virtualClusters:
                  main:
                    target: { router: a }
                """ + GATEWAY, "g.yaml"));
        String m = e.getMessage();
        assertTrue(m.contains("g.yaml: routers.a.routes[1].target: route 'y' targets cluster 'ap-south', which is not defined"), m);
        assertTrue(m.contains("cycle: a -> b -> a"), m);
        assertTrue(m.contains("g.yaml: routers.spare: router 'spare' is not used by any virtual cluster"), m);
    }

    @Test
    void routerSettingsAreCheckedByTheRouterType() {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(CLUSTERS + """
                routers:
                  weave:
                    type: topic-weave
                    collisions: whatever
                    routes:
                      - { name: us, target: { cluster: us-east } }
                virtualClusters:
                  main: { target: { router: weave }, gateways: [ { name: g, bind: "127.0.0.1:9192" } ] }
                """, "s.yaml"));
        assertTrue(e.getMessage().contains("s.yaml: routers.weave.collisions"), e.getMessage());
    }

    @Test
    void aBranchRouterIsValidAndItsProblemsAreNamedByPath() throws Exception {
        WeftConfig ok = ConfigLoader.parse(CLUSTERS + """
                routers:
                  shadow:
                    type: branch
                    routes:
                      - { name: prod, target: { cluster: us-east } }
                      - name: staging
                        target: { cluster: eu-west }
                        topics: { include: ["orders"] }
                        naming: { prefix: "shadow." }
                virtualClusters:
                  main:
                    target: { router: shadow }
                """ + GATEWAY, "b.yaml");
        assertEquals(List.of("prod", "staging"), ok.routers().get("shadow").routeNames());
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(CLUSTERS + """
                routers:
                  shadow:
                    type: branch
                    routes:
                      - { name: prod, target: { cluster: us-east }, naming: { prefix: "p." } }
                      - { name: staging, target: { cluster: eu-west }, qualify: "x." }
                  weave:
                    type: topic-weave
                    routes:
                      - { name: inner, target: { router: shadow } }
                virtualClusters:
                  main:
                    target: { router: weave }
                """ + GATEWAY, "bb.yaml"));
        String m = e.getMessage();
        assertTrue(m.contains("bb.yaml: routers.shadow.routes[0].naming: the primary route takes every topic as it is"), m);
        assertTrue(m.contains("bb.yaml: routers.shadow.routes[1].qualify: unknown key 'qualify'"), m);
        ConfigException nested = assertThrows(ConfigException.class, () -> ConfigLoader.parse(CLUSTERS + """
                routers:
                  shadow:
                    type: branch
                    routes:
                      - { name: prod, target: { cluster: us-east } }
                      - { name: staging, target: { cluster: eu-west } }
                  weave:
                    type: topic-weave
                    routes:
                      - { name: inner, target: { router: shadow } }
                virtualClusters:
                  main:
                    target: { router: weave }
                """ + GATEWAY, "bn.yaml"));
        assertTrue(nested.getMessage().contains(
                "bn.yaml: routers.weave.routes[0].target: router 'shadow' (type branch) cannot sit under another router"),
                nested.getMessage());
    }

    @Test
    void aVirtualClusterNeedsExactlyOneTarget() {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(CLUSTERS + """
                virtualClusters:
                  main: { target: { cluster: us-east, router: r }, gateways: [ { name: g, bind: "127.0.0.1:9192" } ] }
                """, "t.yaml"));
        assertTrue(e.getMessage().contains("t.yaml: virtualClusters.main.target: needs exactly one of 'cluster'"), e.getMessage());
    }
}
