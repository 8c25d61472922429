package dev.weft.proxy.tls;

import dev.weft.proxy.config.TlsConfig;
import java.util.HashMap;
import java.util.Map;

/**
 * The kafka-clients properties that give the proxy's own discovery client the same TLS settings as
 * its upstream connections (trust, client certificate, host name verification).
 */
public final class KafkaClientTlsProperties {

    private KafkaClientTlsProperties() {
    }

    /** Empty for a plaintext cluster. */
    public static Map<String, Object> of(TlsConfig tls) {
        Map<String, Object> p = new HashMap<>();
        if (tls == null) {
            return p;
        }
        p.put("security.protocol", "SSL");
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
}
