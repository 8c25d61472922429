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
 * The SASL servers a terminating gateway runs, one per authentication: kafka-clients' own PLAIN and
 * SCRAM servers (the broker's code, so clients see exactly the broker's messages and state machine),
 * with callbacks answered from Weft's {@link CredentialStore}.
 */
public final class SaslServers {

    /** The mechanisms a gateway can terminate, by their Kafka names. */
    public static final Set<String> SUPPORTED = Set.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");

    private final CredentialStore credentials;

    public SaslServers(CredentialStore credentials) {
        this.credentials = credentials;
    }

    /** A fresh server for one authentication with {@code mechanism} (one of {@link #SUPPORTED}). */
    SaslServer newServer(String mechanism) {
        String m = mechanism.toUpperCase(Locale.ROOT);
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
