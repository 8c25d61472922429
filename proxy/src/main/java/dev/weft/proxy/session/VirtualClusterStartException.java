package dev.weft.proxy.session;

/** A woven virtual cluster cannot start: its message says which and why (collisions, unreachable clusters). */
public final class VirtualClusterStartException extends RuntimeException {
    public VirtualClusterStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
