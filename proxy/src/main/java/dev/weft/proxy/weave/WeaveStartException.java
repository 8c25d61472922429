package dev.weft.proxy.weave;

/** A woven virtual cluster cannot start: its message says which and why (collisions, unreachable clusters). */
public final class WeaveStartException extends RuntimeException {
    public WeaveStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
