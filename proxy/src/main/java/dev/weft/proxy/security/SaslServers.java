package dev.weft.proxy.security;

import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.security.plain.PlainAuthenticateCallback;
import org.apache.kafka.common.security.plain.internals.PlainSaslServer;
import org.apache.kafka.common.security.scram.ScramCredentialCallback;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramSaslServer;

/**
 * The SASL servers a terminating gateway runs, one per authentication: kafka-clients' own PLAIN,
 * SCRAM and OAUTHBEARER servers (the broker's code, so clients see exactly the broker's messages and
 * state machine), with PLAIN and SCRAM callbacks answered from Weft's {@link CredentialStore} and
 * OAUTHBEARER tokens checked by kafka-clients' JWT validator ({@link OAuthBearerValidation}).
 */
public final class SaslServers {

    /** The mechanisms a gateway can terminate, by their Kafka names. */
    public static final Set<String> SUPPORTED = Set.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER");

    private final CredentialStore credentials;
    private final OAuthBearerValidation oauthBearer;

    public SaslServers(CredentialStore credentials) {
        this(credentials, null);
    }

    /**
     * @param credentials for PLAIN and SCRAM (null when neither is enabled)
     * @param oauthBearer for OAUTHBEARER (null when it is not enabled); closed by its owner, not here
     */
    public SaslServers(CredentialStore credentials, OAuthBearerValidation oauthBearer) {
        this.credentials = credentials;
        this.oauthBearer = oauthBearer;
    }

    /** A fresh server for one authentication with {@code mechanism} (one of {@link #SUPPORTED}). */
    SaslServer newServer(String mechanism) {
        String m = mechanism.toUpperCase(Locale.ROOT);
        if (m.equals("OAUTHBEARER")) {
            if (oauthBearer == null) {
                throw new IllegalArgumentException("OAUTHBEARER is not configured here");
            }
            return oauthBearer.newServer();
        }
        if (credentials == null) {
            throw new IllegalArgumentException(m + " needs a credential store, and none is configured");
        }
        if (m.equals("PLAIN")) {
            return new PlainSaslServer(callbacks -> {
                String user = null;
                for (Callback c : callbacks) {
                    if (c instanceof NameCallback name) {
                        user = name.getDefaultName();
                    } else if (c instanceof PlainAuthenticateCallback plain) {
                        plain.authenticated(user != null && credentials.verifyPlain(user, plain.password()));
                    } else {
                        throw new UnsupportedCallbackException(c);
                    }
                }
            });
        }
        ScramMechanism scram = ScramMechanism.forMechanismName(m);
        if (scram == null) {
            throw new IllegalArgumentException("not a mechanism Weft terminates: " + mechanism);
        }
        org.apache.kafka.clients.admin.ScramMechanism publicName = org.apache.kafka.clients.admin.ScramMechanism.fromMechanismName(m);
        try {
            return new ScramSaslServer(scram, Map.of(), callbacks -> {
                String user = null;
                for (Callback c : callbacks) {
                    if (c instanceof NameCallback name) {
                        user = name.getDefaultName();
                    } else if (c instanceof ScramCredentialCallback credential) {
                        credential.scramCredential(user == null ? null : credentials.scram(user, publicName));
                    } else {
                        // delegation tokens (tokenauth=true) are a broker's: not offered here
                        throw new UnsupportedCallbackException(c);
                    }
                }
            });
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM lacks " + scram.hashAlgorithm() + " for " + m, e);
        }
    }
}
