package dev.weft.proxy.security;

import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.common.security.scram.ScramCredential;

/**
 * Where a gateway that terminates SASL looks up its clients' credentials: salted SCRAM credentials only,
 * never passwords. Thread-safe; lookups are cheap (in memory) and may be called on an event loop.
 */
public interface CredentialStore {

    /** The user's credential for {@code mechanism}, or null when the user has none for it. */
    ScramCredential scram(String user, ScramMechanism mechanism);

    /**
     * Whether {@code password} is the user's (SASL PLAIN): checked against the user's strongest SCRAM
     * credential (the password salted and hashed as SCRAM does, compared with the stored key in constant
     * time). False for an unknown user.
     */
    boolean verifyPlain(String user, char[] password);
}
