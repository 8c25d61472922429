package dev.weft.routing.branch.transform;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 under the configured salt, as lowercase hex: the same bytes and salt give the same text on
 * every run and replica, and without the salt nobody can test guesses against it (as with a bare hash
 * of an email address). One instance per step: {@link Mac} is not thread-safe, and the chain is single-threaded.
 */
final class SaltedHash {

    private static final String ALGORITHM = "HmacSHA256";
    private static final HexFormat HEX = HexFormat.of();

    private final Mac mac;

    SaltedHash(String salt) {
        try {
            mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(salt.getBytes(StandardCharsets.UTF_8), ALGORITHM));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every JDK has " + ALGORITHM, e);
        }
    }

    String hex(byte[] original) {
        return HEX.formatHex(mac.doFinal(original));
    }

    /** The hex text as bytes, for keys and header values. */
    byte[] hexBytes(byte[] original) {
        return hex(original).getBytes(StandardCharsets.US_ASCII);
    }
}
