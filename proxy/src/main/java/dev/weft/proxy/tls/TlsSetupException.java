package dev.weft.proxy.tls;

/** TLS material that cannot be used: names the config path and the file, never a secret. */
public final class TlsSetupException extends RuntimeException {
    public TlsSetupException(String message, Throwable cause) {
        super(message, cause);
    }
}
