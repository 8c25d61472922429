package dev.weft.proxy.config;

import java.nio.file.Path;

/**
 * TLS settings of a gateway (the proxy is the server) or of an upstream cluster (the proxy is the
 * client).
 *
 * @param identity this side's certificate and key: required on a gateway, optional upstream (mTLS)
 * @param trust certificates to trust: on a gateway, the CAs of client certificates (mTLS); upstream,
 *     the brokers' CAs (null = the JDK's default trust store)
 * @param clientAuth gateway only: whether clients must present a certificate
 * @param verifyHostname upstream only: check the broker's certificate matches its host name
 * @param principalMappingRules gateway with client certificates ({@code clientAuth} optional or required)
 *     only: how a certificate's subject becomes the connection's principal, in the syntax of Kafka's
 *     {@code ssl.principal.mapping.rules} ({@code DEFAULT}: the subject itself); null where no client
 *     certificates are asked for
 */
public record TlsConfig(KeyMaterial identity, TrustMaterial trust, ClientAuth clientAuth, boolean verifyHostname,
        String principalMappingRules) {

    /** Kafka's default mapping: the certificate's subject, RFC 2253, as the principal's name. */
    public static final String DEFAULT_PRINCIPAL_MAPPING_RULES = "DEFAULT";

    /** Settings with the default principal mapping where client certificates are asked for. */
    public TlsConfig(KeyMaterial identity, TrustMaterial trust, ClientAuth clientAuth, boolean verifyHostname) {
        this(identity, trust, clientAuth, verifyHostname, clientAuth == null || clientAuth == ClientAuth.NONE ? null
                : DEFAULT_PRINCIPAL_MAPPING_RULES);
    }

    /** Whether a gateway asks clients for certificates. */
    public enum ClientAuth {
        NONE,
        OPTIONAL,
        REQUIRED
    }

    /**
     * A certificate chain and its private key: PEM files, or a PKCS12 key store.
     *
     * @param certificateChain PEM certificate chain (with {@code privateKey}), or null
     * @param privateKey PEM PKCS#8 private key, or null
     * @param keyPassword password of an encrypted PEM key, or null
     * @param keyStore PKCS12 key store (instead of PEM files), or null
     * @param keyStorePassword its password
     */
    public record KeyMaterial(Path certificateChain, Path privateKey, Secret keyPassword, Path keyStore,
            Secret keyStorePassword) {
    }

    /**
     * Trusted certificates: a PEM file of CA certificates, or a PKCS12 trust store.
     */
    public record TrustMaterial(Path certificates, Path trustStore, Secret trustStorePassword) {
    }
}
