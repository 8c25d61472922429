package dev.weft.proxy.tls;

import dev.weft.proxy.config.Secret;
import dev.weft.proxy.config.TlsConfig;
import dev.weft.proxy.config.TlsConfig.KeyMaterial;
import dev.weft.proxy.config.TlsConfig.TrustMaterial;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Arrays;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds Netty {@link SslContext}s from {@link TlsConfig}: OpenSSL (BoringSSL through netty-tcnative)
 * where it loads, because it is faster and allocates less per record; the JDK's TLS otherwise. Which
 * one is in use is logged once.
 */
public final class TlsContexts {

    private static final Logger LOG = LoggerFactory.getLogger(TlsContexts.class);
    private static volatile boolean providerLogged; // set once by whichever thread builds the first context

    private TlsContexts() {
    }

    /** The provider Weft uses: OpenSSL when netty-tcnative loads here, else the JDK. */
    public static SslProvider provider() {
        SslProvider provider = OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
        if (!providerLogged) {
            providerLogged = true;
            if (provider == SslProvider.OPENSSL) {
                LOG.info("TLS provider: OpenSSL ({})", OpenSsl.versionString());
            } else {
                LOG.info("TLS provider: JDK (OpenSSL unavailable: {})", String.valueOf(OpenSsl.unavailabilityCause()));
            }
        }
        return provider;
    }

    /**
     * The server context of a gateway.
     *
     * @param where the config path, for error messages
     * @throws TlsSetupException naming the path and the file that could not be used
     */
    public static SslContext server(TlsConfig tls, String where) {
        try {
            SslContextBuilder b = identityForServer(tls.identity(), where);
            b.sslProvider(provider());
            b.clientAuth(switch (tls.clientAuth()) {
                case NONE -> ClientAuth.NONE;
                case OPTIONAL -> ClientAuth.OPTIONAL;
                case REQUIRED -> ClientAuth.REQUIRE;
            });
            if (tls.trust() != null) {
                trust(b, tls.trust(), where);
            }
            return b.build();
        } catch (SSLException | RuntimeException e) {
            throw new TlsSetupException(where + ": cannot set up TLS: " + e.getMessage(), e);
        }
    }

    /** The client context for connections to an upstream cluster's brokers. */
    public static SslContext client(TlsConfig tls, String where) {
        try {
            SslContextBuilder b = SslContextBuilder.forClient().sslProvider(provider());
            if (tls.trust() != null) {
                trust(b, tls.trust(), where);
            }
            if (tls.identity() != null) {
                KeyMaterial id = tls.identity();
                if (id.keyStore() != null) {
                    b.keyManager(keyManagers(id, where));
                } else {
                    b.keyManager(id.certificateChain().toFile(), id.privateKey().toFile(), password(id.keyPassword()));
                }
            }
            b.endpointIdentificationAlgorithm(tls.verifyHostname() ? "HTTPS" : null);
            return b.build();
        } catch (SSLException | RuntimeException e) {
            throw new TlsSetupException(where + ": cannot set up TLS: " + e.getMessage(), e);
        }
    }

    private static SslContextBuilder identityForServer(KeyMaterial id, String where) {
        if (id.keyStore() != null) {
            return SslContextBuilder.forServer(keyManagers(id, where));
        }
        return SslContextBuilder.forServer(id.certificateChain().toFile(), id.privateKey().toFile(), password(id.keyPassword()));
    }

    private static void trust(SslContextBuilder b, TrustMaterial trust, String where) {
        if (trust.certificates() != null) {
            b.trustManager(trust.certificates().toFile());
            return;
        }
        try {
            KeyStore store = load(trust.trustStore(), trust.trustStorePassword(), where + ".trustStore");
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            b.trustManager(tmf);
        } catch (GeneralSecurityException e) {
            throw new TlsSetupException(where + ".trustStore: " + trust.trustStore() + " cannot be used: " + e.getMessage(), e);
        }
    }

    private static KeyManagerFactory keyManagers(KeyMaterial id, String where) {
        char[] password = id.keyStorePassword() == null ? new char[0] : id.keyStorePassword().reveal();
        try {
            KeyStore store = load(id.keyStore(), id.keyStorePassword(), where + ".keyStore");
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(store, password);
            return kmf;
        } catch (GeneralSecurityException e) {
            throw new TlsSetupException(where + ".keyStore: " + id.keyStore() + " cannot be used: " + e.getMessage(), e);
        } finally {
            Arrays.fill(password, '\0');
        }
    }

    private static KeyStore load(Path file, Secret password, String where) throws GeneralSecurityException {
        char[] pw = password == null ? null : password.reveal();
        try (InputStream in = Files.newInputStream(file)) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, pw);
            return store;
        } catch (IOException e) {
            // A wrong password surfaces as an IOException from PKCS12: say so without the password.
            throw new TlsSetupException(where + ": cannot read " + file + " (wrong password"
                    + (password != null ? " from " + password.source() : "") + ", or not PKCS12): " + e.getMessage(), e);
        } finally {
            if (pw != null) {
                Arrays.fill(pw, '\0');
            }
        }
    }

    private static String password(Secret secret) {
        return secret == null ? null : new String(secret.reveal());
    }
}
