package dev.weft.proxy.tls;

import dev.weft.proxy.config.TlsConfig;
import dev.weft.proxy.config.WeftConfig;
import dev.weft.proxy.upstream.StaticBearerTokenLogin;
import java.util.HashMap;
import java.util.Map;

/**
 * The kafka-clients security properties of the proxy's own discovery client: the same TLS settings as
 * its upstream connections (trust, client certificate, host name verification) and, on a SASL
 * listener, the cluster's credentials from the config ({@code clusters.NAME.sasl}; with OAUTHBEARER, the
 * static bearer token through {@link StaticBearerTokenLogin}, which reads it on every login). The broker
 * connections Weft opens itself authenticate with the same credentials, but not through these
 * properties ({@code dev.weft.proxy.upstream.UpstreamSaslHandshake}, which reads the password per
 * connection); a pass-through virtual cluster's client connections forward the client's own SASL.
 */
public final class DiscoveryClientSecurity {

    private DiscoveryClientSecurity() {
    }

    /** Empty for a plaintext cluster without discovery credentials. */
    public static Map<String, Object> of(TlsConfig tls, WeftConfig.SaslCredentials sasl) {
        Map<String, Object> p = new HashMap<>();
        if (sasl != null) {
            p.put("security.protocol", tls == null ? "SASL_PLAINTEXT" : "SASL_SSL");
            p.put("sasl.mechanism", sasl.mechanism().kafkaName);
            if (sasl.mechanism() == WeftConfig.SaslMechanism.OAUTHBEARER) {
                // the token's secret reference, not its value: the login reads it on every login and refresh
                String reference = sasl.token().source().equals("(inline)") ? new String(sasl.token().reveal()) : sasl.token().source();
                p.put("sasl.login.callback.handler.class", StaticBearerTokenLogin.class.getName());
                p.put("sasl.jaas.config", sasl.mechanism().loginModule + " required " + StaticBearerTokenLogin.TOKEN_OPTION + "=\""
                        + escape(reference) + "\";");
            } else {
                p.put("sasl.jaas.config", sasl.mechanism().loginModule + " required username=\"" + escape(sasl.username())
                        + "\" password=\"" + escape(new String(sasl.password().reveal())) + "\";");
            }
        }
        if (tls == null) {
            return p;
        }
        p.putIfAbsent("security.protocol", "SSL");
        p.put("ssl.endpoint.identification.algorithm", tls.verifyHostname() ? "https" : "");
        if (tls.trust() != null) {
            if (tls.trust().certificates() != null) {
                p.put("ssl.truststore.type", "PEM");
                p.put("ssl.truststore.location", tls.trust().certificates().toString());
            } else {
                p.put("ssl.truststore.type", "PKCS12");
                p.put("ssl.truststore.location", tls.trust().trustStore().toString());
                if (tls.trust().trustStorePassword() != null) {
                    p.put("ssl.truststore.password", new String(tls.trust().trustStorePassword().reveal()));
                }
            }
        }
        TlsConfig.KeyMaterial id = tls.identity();
        if (id != null) {
            if (id.keyStore() != null) {
                p.put("ssl.keystore.type", "PKCS12");
                p.put("ssl.keystore.location", id.keyStore().toString());
                if (id.keyStorePassword() != null) {
                    p.put("ssl.keystore.password", new String(id.keyStorePassword().reveal()));
                }
            } else {
                p.put("ssl.keystore.type", "PEM");
                p.put("ssl.keystore.certificate.chain", id.certificateChain().toString());
                p.put("ssl.keystore.key", id.privateKey().toString());
                if (id.keyPassword() != null) {
                    p.put("ssl.key.password", new String(id.keyPassword().reveal()));
                }
            }
        }
        return p;
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
