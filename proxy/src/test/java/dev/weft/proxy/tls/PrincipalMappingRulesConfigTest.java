package dev.weft.proxy.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.config.ConfigException;
import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.config.TlsConfig;
import dev.weft.proxy.testing.TestPki;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gateways[].tls.principalMappingRules}: Kafka's {@code ssl.principal.mapping.rules}, checked by
 * kafka-clients' own parser when the config is read; one line per mistake, naming the path.
 */
class PrincipalMappingRulesConfigTest {

    @TempDir
    static Path dir;

    private static TestPki pki;
    private static TestPki.Issued server;

    @BeforeAll
    static void pki() throws Exception {
        pki = new TestPki(dir);
        server = pki.issue("proxy");
    }

    private static String config(String extraTls) {
        return """
                clusters:
                  east: { bootstrap: "10.0.0.1:9092" }
                virtualClusters:
                  main:
                    target: { cluster: east }
                    gateways:
                      - name: mtls
                        bind: "0.0.0.0:9192"
                        tls:
                          certificate: "%s"
                          key: "%s"
                          trustCertificates: "%s"
                %s""".formatted(server.certificatePem(), server.keyPem(), pki.caPem(), extraTls.indent(10));
    }

    private static TlsConfig tls(String extraTls) throws ConfigException {
        return ConfigLoader.parse(config(extraTls), "weft.yaml").virtualClusters().get("main").gateways().get(0).tls();
    }

    private static List<String> problems(String extraTls) {
        return assertThrows(ConfigException.class, () -> ConfigLoader.parse(config(extraTls), "weft.yaml")).problems();
    }

    @Test
    void readsTheRulesAsWritten() throws Exception {
        String rules = "RULE:^CN=([^,]+),OU=ServiceUsers,.*$/$1/L, RULE:^CN=([^,]+),.*$/$1/,DEFAULT";
        assertEquals(rules, tls("""
                clientAuth: required
                principalMappingRules: "%s"
                """.formatted(rules)).principalMappingRules());
    }

    @Test
    void defaultsToDefaultWhereClientsPresentCertificatesAndIsAbsentOtherwise() throws Exception {
        assertEquals("DEFAULT", tls("clientAuth: optional").principalMappingRules());
        assertEquals("DEFAULT", tls("clientAuth: required").principalMappingRules());
        assertNull(tls("clientAuth: none").principalMappingRules());
        assertNull(tls("").principalMappingRules());
    }

    @Test
    void aRuleKafkaWouldRejectIsOneLineNamingThePath() {
        for (String bad : List.of("RULE:^CN=(.*)$/$1/X", "NOT_A_RULE", "RULE:^CN=((.*$/$1/", "DEFAULT,RULE:broken")) {
            List<String> p = problems("""
                    clientAuth: required
                    principalMappingRules: "%s"
                    """.formatted(bad));
            assertEquals(1, p.size(), bad + ": " + p);
            assertTrue(p.get(0).startsWith("weft.yaml: virtualClusters.main.gateways[0].tls.principalMappingRules: "
                    + "is not a valid Kafka ssl.principal.mapping.rules value: "), p.toString());
            assertTrue(!p.get(0).contains("\n"), "one line: " + p);
        }
    }

    @Test
    void rulesWithoutClientCertificatesAreAMistake() {
        List<String> p = problems("""
                principalMappingRules: DEFAULT
                """);
        assertEquals(List.of("weft.yaml: virtualClusters.main.gateways[0].tls.principalMappingRules: needs 'clientAuth: optional'"
                + " or 'clientAuth: required': without client certificates there is no subject to map"), p);
        assertEquals(1, problems("""
                clientAuth: none
                principalMappingRules: "RULE:^CN=(.*)$/$1/"
                """).size());
        assertTrue(problems("""
                clientAuth: required
                principalMappingRules: ""
                """).get(0).contains("tls.principalMappingRules: is empty"));
    }
}
