package dev.weft.proxy.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code virtualClusters.NAME.authentication.sasl}: what it reads, and one line per mistake naming the path. */
class ClientAuthenticationConfigTest {

    private static String config(String authentication) {
        return """
                clusters:
                  east: { bootstrap: "10.0.0.1:9092" }
                virtualClusters:
                  main:
                    target: { cluster: east }
                %s
                    gateways: [ { name: plain, bind: "0.0.0.0:9192" } ]
                """.formatted(authentication);
    }

    private static List<String> problems(String authentication) {
        return assertThrows(ConfigException.class, () -> ConfigLoader.parse(config(authentication), "weft.yaml")).problems();
    }

    @Test
    void readsTheMechanismsTheFileTheLifetimeAndTheFailureLimit() throws Exception {
        WeftConfig c = ConfigLoader.parse(config("""
                    authentication:
                      sasl:
                        mechanisms: [scram-sha-512, PLAIN]
                        credentials: /etc/weft/users
                        reauthenticateMs: 3600000
                        failures: { max: 3, windowMs: 30000 }
                """), "weft.yaml");
        assertEquals(new WeftConfig.ClientAuthentication(List.of("SCRAM-SHA-512", "PLAIN"), Path.of("/etc/weft/users"), 3_600_000, 3, 30_000),
                c.virtualClusters().get("main").authentication());
    }

    @Test
    void withoutItClientsAreNotAuthenticatedByTheProxy() throws Exception {
        assertNull(ConfigLoader.parse(config(""), "weft.yaml").virtualClusters().get("main").authentication());
    }

    @Test
    void mistakesAreOneLineEachNamingThePath() {
        List<String> p = problems("""
                    authentication:
                      sasl:
                        mechanisms: [SCRAM-SHA-1, PLAIN, PLAIN]
                        reauthenticateMs: -5
                        colour: blue
                """);
        assertTrue(p.stream().anyMatch(m -> m.startsWith("weft.yaml: virtualClusters.main.authentication.sasl.mechanisms[0]: \"SCRAM-SHA-1\""
                + " is not one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512")), p.toString());
        assertTrue(p.stream().anyMatch(m -> m.contains("mechanisms[2]") && m.contains("listed twice")), p.toString());
        assertTrue(p.stream().anyMatch(m -> m.startsWith("weft.yaml: virtualClusters.main.authentication.sasl.credentials:")), p.toString());
        assertTrue(p.stream().anyMatch(m -> m.contains("reauthenticateMs")), p.toString());
        assertTrue(p.stream().anyMatch(m -> m.contains("colour")), p.toString());
        assertTrue(p.stream().noneMatch(m -> m.contains("\n")), "one line each: " + p);
    }
}
