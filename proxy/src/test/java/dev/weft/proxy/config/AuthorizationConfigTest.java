package dev.weft.proxy.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.routing.access.AccessPolicy;
import dev.weft.routing.access.AccessRules;
import dev.weft.routing.access.ClusterOperation;
import dev.weft.routing.access.HiddenTopics;
import dev.weft.routing.access.TopicOperation;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code virtualClusters.NAME.authorization}: the grants it compiles, and one line per mistake naming the path. */
class AuthorizationConfigTest {

    private static final String SASL = """
                authentication:
                  sasl: { mechanisms: [PLAIN], credentials: /etc/weft/users }
            """;

    private static String config(String authentication, String authorization) {
        return """
                clusters:
                  east: { bootstrap: "10.0.0.1:9092" }
                virtualClusters:
                  main:
                    target: { cluster: east }
                %s%s
                    gateways: [ { name: plain, bind: "0.0.0.0:9192" } ]
                """.formatted(authentication, authorization);
    }

    private static List<String> problems(String authentication, String authorization) {
        return assertThrows(ConfigException.class, () -> ConfigLoader.parse(config(authentication, authorization), "weft.yaml")).problems();
    }

    @Test
    void compilesTenantsGrantsGroupsTransactionalIdsAndClusterOperations() throws Exception {
        AccessPolicy policy = ConfigLoader.parse(config(SASL, """
                    authorization:
                      hiddenTopics: unknown
                      principals:
                        "User:alice":
                          tenant: "acme."
                          topics: [ { prefix: "", operations: [all] } ]
                          groups: [ { prefix: "acme-" } ]
                        carol:
                          topics:
                            - { name: audit, operations: [read] }
                            - { regex: "metrics-[0-9]+", operations: [write] }
                          transactionalIds: [ { name: "*" } ]
                          cluster: [describe]
                """), "weft.yaml").virtualClusters().get("main").authorization();
        assertEquals(HiddenTopics.UNKNOWN, policy.hiddenTopics());
        AccessRules alice = policy.rulesFor("alice");
        assertEquals("acme.", alice.tenant());
        assertEquals("orders", alice.clientNameOf("acme.orders"));
        assertNull(alice.clientNameOf("globex.orders"));
        assertTrue(alice.allows(TopicOperation.DELETE, "orders"));
        assertTrue(alice.allowsGroup("acme-readers"));
        assertFalse(alice.allowsGroup("globex-readers"));
        assertFalse(alice.allowsTransactionalId("acme-tx"), "no transactional ids granted");
        AccessRules carol = policy.rulesFor("carol");
        assertTrue(carol.allows(TopicOperation.READ, "audit"));
        assertTrue(carol.allows(TopicOperation.DESCRIBE, "audit"), "read implies describe");
        assertFalse(carol.allows(TopicOperation.WRITE, "audit"));
        assertTrue(carol.allows(TopicOperation.WRITE, "metrics-12"));
        assertFalse(carol.allows(TopicOperation.WRITE, "metrics-x"), "a regex matches the whole name");
        assertTrue(carol.allowsTransactionalId("anything"));
        assertTrue(carol.allowsCluster(ClusterOperation.DESCRIBE));
        assertFalse(carol.allowsCluster(ClusterOperation.ALTER));
        AccessRules mallory = policy.rulesFor("mallory");
        assertEquals(0, mallory.topicOperations("audit"), "a principal not named, without \"*\", may do nothing");
    }

    @Test
    void withoutItNothingIsAuthorizedPerPrincipal() throws Exception {
        assertNull(ConfigLoader.parse(config(SASL, ""), "weft.yaml").virtualClusters().get("main").authorization());
    }

    @Test
    void mistakesAreOneLineEachNamingThePath() {
        List<String> p = problems(SASL, """
                    authorization:
                      hiddenTopics: maybe
                      principals:
                        alice:
                          tenant: ""
                          topics:
                            - { regex: "([", operations: [read] }
                            - { name: a, prefix: b, operations: [read] }
                            - { name: c, operations: [fly] }
                            - { name: d }
                          colour: blue
                """);
        String at = "weft.yaml: virtualClusters.main.authorization.";
        assertTrue(p.stream().anyMatch(m -> m.startsWith(at + "hiddenTopics: \"maybe\" is not one of authorization-failed, unknown")), p.toString());
        assertTrue(p.stream().anyMatch(m -> m.startsWith(at + "principals.alice.tenant: is empty")), p.toString());
        assertTrue(p.stream().anyMatch(m -> m.startsWith(at + "principals.alice.topics[0].regex: \"([\" is not a regular expression")), p.toString());
        assertTrue(p.stream().anyMatch(m -> m.startsWith(at + "principals.alice.topics[1]: needs exactly one of")), p.toString());
        assertTrue(p.stream().anyMatch(m -> m.startsWith(at + "principals.alice.topics[2].operations[0]: \"fly\" is not one of")), p.toString());
        assertTrue(p.stream().anyMatch(m -> m.startsWith(at + "principals.alice.topics[3].operations: is required")), p.toString());
        assertTrue(p.stream().anyMatch(m -> m.contains("colour")), p.toString());
        assertTrue(p.stream().noneMatch(m -> m.contains("\n")), "one line each: " + p);
    }

    @Test
    void itNeedsClientsThatAuthenticate() {
        List<String> p = problems("", """
                    authorization:
                      principals: { alice: { topics: [ { name: "*", operations: [all] } ] } }
                """);
        assertTrue(p.stream().anyMatch(m -> m.startsWith("weft.yaml: virtualClusters.main.authorization: needs clients that authenticate")),
                p.toString());
    }
}
