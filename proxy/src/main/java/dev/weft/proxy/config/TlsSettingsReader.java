package dev.weft.proxy.config;

import dev.weft.proxy.config.TlsConfig.ClientAuth;
import dev.weft.proxy.config.TlsConfig.KeyMaterial;
import dev.weft.proxy.config.TlsConfig.TrustMaterial;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.apache.kafka.common.security.ssl.SslPrincipalMapper;

/**
 * Reads a {@code tls:} map of a gateway or a cluster:
 * <pre>
 * tls:
 *   certificate: /etc/weft/server.pem       # PEM chain + PKCS#8 key ...
 *   key: /etc/weft/server.key
 *   keyPassword: env:WEFT_KEY_PASSWORD      # secrets: env:NAME, file:/path, or inline
 *   keyStore: /etc/weft/server.p12          # ... or a PKCS12 key store
 *   keyStorePassword: file:/run/secrets/ks
 *   trustCertificates: /etc/weft/ca.pem     # PEM CAs ... (gateway: of client certs; cluster: of brokers)
 *   trustStore: /etc/weft/trust.p12         # ... or a PKCS12 trust store
 *   trustStorePassword: env:WEFT_TRUST
 *   clientAuth: none | optional | required  # gateway only
 *   principalMappingRules: DEFAULT          # gateway with clientAuth optional|required only (Kafka's
 *                                           #   ssl.principal.mapping.rules syntax)
 *   verifyHostname: true                    # cluster only
 * </pre>
 * Files must exist when the config is read, so a typo fails at start, not at the first handshake.
 */
final class TlsSettingsReader {

    private static final Set<String> KEYS = Set.of("certificate", "key", "keyPassword", "keyStore", "keyStorePassword",
            "trustCertificates", "trustStore", "trustStorePassword");

    private TlsSettingsReader() {
    }

    static TlsConfig gateway(ConfigNode n) {
        if (n.isMissing()) {
            return null;
        }
        n.allowOnly(union(union(KEYS, "clientAuth"), "principalMappingRules"));
        KeyMaterial identity = identity(n);
        if (identity == null) {
            n.problem("a TLS gateway needs its certificate: 'certificate' and 'key' (PEM) or 'keyStore' (PKCS12)");
        }
        ClientAuth auth = n.get("clientAuth").choice(ClientAuth.class, ClientAuth.NONE);
        TrustMaterial trust = trust(n);
        if (auth != ClientAuth.NONE && trust == null) {
            n.get("clientAuth").problem("'" + ConfigNames.of(auth) + "' needs 'trustCertificates' or 'trustStore' to verify client certificates");
        }
        return new TlsConfig(identity, trust, auth, false, principalMappingRules(n.get("principalMappingRules"), auth));
    }

    /**
     * The rules, checked by kafka-clients' own parser (the one a broker's {@code ssl.principal.mapping.rules}
     * goes through), so a rule the proxy accepts means what it means to Kafka.
     */
    private static String principalMappingRules(ConfigNode n, ClientAuth auth) {
        String rules = n.text(null);
        if (rules == null) {
            return auth == ClientAuth.NONE ? null : TlsConfig.DEFAULT_PRINCIPAL_MAPPING_RULES;
        }
        if (auth == ClientAuth.NONE) {
            n.problem("needs 'clientAuth: optional' or 'clientAuth: required': without client certificates there is no subject to map");
            return null;
        }
        if (rules.isBlank()) {
            n.problem("is empty: give rules in the syntax of Kafka's ssl.principal.mapping.rules, or DEFAULT");
            return null;
        }
        try {
            SslPrincipalMapper.fromRules(rules);
        } catch (RuntimeException e) {
            n.problem("is not a valid Kafka ssl.principal.mapping.rules value: " + oneLine(e.getMessage()));
            return null;
        }
        return rules;
    }

    private static String oneLine(String message) {
        return message == null ? "?" : message.replaceAll("\\s*[\\r\\n]+\\s*", " ").strip();
    }

    static TlsConfig upstream(ConfigNode n) {
        if (n.isMissing()) {
            return null;
        }
        n.allowOnly(union(KEYS, "verifyHostname"));
        return new TlsConfig(identity(n), trust(n), ClientAuth.NONE, n.get("verifyHostname").bool(true));
    }

    /**
     * {@code clusters.NAME.principals.USER.tls}: a principal's client certificate, with the cluster's
     * trust and host name checks ({@code clusterTls}).
     */
    static TlsConfig principalCertificate(ConfigNode n, TlsConfig clusterTls) {
        if (!n.requireObject()) {
            return null;
        }
        n.allowOnly(Set.of("certificate", "key", "keyPassword", "keyStore", "keyStorePassword"));
        KeyMaterial identity = identity(n);
        if (identity == null) {
            n.problem("needs the principal's client certificate: 'certificate' and 'key' (PEM) or 'keyStore' (PKCS12)");
            return null;
        }
        return new TlsConfig(identity, clusterTls.trust(), ClientAuth.NONE, clusterTls.verifyHostname());
    }

    private static KeyMaterial identity(ConfigNode n) {
        Path cert = file(n.get("certificate"));
        Path key = file(n.get("key"));
        Path store = file(n.get("keyStore"));
        if (store != null && (cert != null || key != null)) {
            n.problem("give either 'certificate' + 'key' (PEM) or 'keyStore' (PKCS12), not both");
            return null;
        }
        if (n.get("certificate").isMissing() != n.get("key").isMissing()) {
            n.problem("'certificate' and 'key' go together");
            return null;
        }
        if ((cert == null) != (key == null)) {
            return null; // one of the two files is missing: already reported
        }
        if (store != null && n.get("keyStorePassword").isMissing()) {
            n.get("keyStorePassword").problem("is required with 'keyStore'");
        }
        if (cert == null && store == null) {
            return null;
        }
        return new KeyMaterial(cert, key, Secret.of(n.get("keyPassword").text(null)), store,
                Secret.of(n.get("keyStorePassword").text(null)));
    }

    private static TrustMaterial trust(ConfigNode n) {
        Path pem = file(n.get("trustCertificates"));
        Path store = file(n.get("trustStore"));
        if (pem != null && store != null) {
            n.problem("give either 'trustCertificates' (PEM) or 'trustStore' (PKCS12), not both");
            return null;
        }
        if (pem == null && store == null) {
            return null;
        }
        return new TrustMaterial(pem, store, Secret.of(n.get("trustStorePassword").text(null)));
    }

    private static Path file(ConfigNode n) {
        String text = n.text(null);
        if (text == null) {
            return null;
        }
        Path p = Path.of(text);
        if (!Files.isReadable(p)) {
            n.problem("file " + p + " does not exist or cannot be read");
            return null;
        }
        return p;
    }

    private static Set<String> union(Set<String> a, String b) {
        java.util.HashSet<String> s = new java.util.HashSet<>(a);
        s.add(b);
        return s;
    }
}
