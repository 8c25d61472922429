package dev.weft.proxy.security;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;

/**
 * Passwords turned into SCRAM credentials and checked against them, with kafka-clients' own
 * {@link ScramFormatter} (so a credential made here is exactly what a broker would store). Passwords are
 * taken as {@code char[]} and their bytes wiped after use, so they do not linger as Strings.
 */
final class ScramPasswords {

    private ScramPasswords() {
    }

    /** A fresh credential with a random salt. */
    static ScramCredential derive(ScramMechanism mechanism, char[] password, int iterations) {
        ScramFormatter formatter = formatter(mechanism);
        byte[] salt = formatter.secureRandomBytes();
        byte[] salted = saltedPassword(formatter, password, salt, iterations);
        try {
            return formatter.generateCredential(salt, salted, iterations);
        } finally {
            Arrays.fill(salted, (byte) 0);
        }
    }

    /** Whether {@code password} salted and hashed as SCRAM does gives the credential's stored key (constant-time compare). */
    static boolean matches(ScramMechanism mechanism, ScramCredential credential, char[] password) {
        ScramFormatter formatter = formatter(mechanism);
        byte[] salted = saltedPassword(formatter, password, credential.salt(), credential.iterations());
        try {
            byte[] storedKey = formatter.storedKey(formatter.clientKey(salted));
            return MessageDigest.isEqual(storedKey, credential.storedKey());
        } catch (InvalidKeyException e) {
            throw new IllegalStateException("HMAC refused a salted password", e);
        } finally {
            Arrays.fill(salted, (byte) 0);
        }
    }

    /** The hash length of the mechanism: the length of its stored and server keys. */
    static int keyLength(ScramMechanism mechanism) {
        return mechanism == ScramMechanism.SCRAM_SHA_512 ? 64 : 32;
    }

    /** Hi(password, salt, i) of RFC 5802, on the password's UTF-8 bytes as {@link ScramFormatter#normalize} gives them. */
    private static byte[] saltedPassword(ScramFormatter formatter, char[] password, byte[] salt, int iterations) {
        if (password.length == 0) {
            throw new IllegalArgumentException("an empty password"); // HMAC has no empty key
        }
        ByteBuffer encoded = StandardCharsets.UTF_8.encode(CharBuffer.wrap(password));
        byte[] bytes = new byte[encoded.remaining()];
        encoded.get(bytes);
        try {
            return formatter.hi(bytes, salt, iterations);
        } catch (InvalidKeyException e) {
            throw new IllegalStateException("HMAC refused a password", e);
        } finally {
            Arrays.fill(bytes, (byte) 0);
            if (encoded.hasArray()) {
                Arrays.fill(encoded.array(), (byte) 0);
            }
        }
    }

    private static ScramFormatter formatter(ScramMechanism mechanism) {
        var internal = org.apache.kafka.common.security.scram.internals.ScramMechanism.forMechanismName(mechanism.mechanismName());
        if (internal == null) {
            throw new IllegalArgumentException("not a SCRAM mechanism: " + mechanism);
        }
        try {
            // one per use: a ScramFormatter holds a MessageDigest and a Mac, which are not thread-safe
            return new ScramFormatter(internal);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM lacks " + internal.hashAlgorithm() + " for " + mechanism.mechanismName(), e);
        }
    }
}
