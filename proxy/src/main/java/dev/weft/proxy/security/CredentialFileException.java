package dev.weft.proxy.security;

/**
 * A credential file that cannot be read or is not valid. The message is one line for the operator, naming
 * the file and, for a bad line, its number and the problem:
 * {@code /etc/weft/users: line 3: unknown mechanism 'SCRAM-SHA-1' (one of SCRAM-SHA-256, SCRAM-SHA-512)}.
 */
public final class CredentialFileException extends Exception {

    public CredentialFileException(String message) {
        super(message);
    }

    public CredentialFileException(String message, Throwable cause) {
        super(message, cause);
    }
}
