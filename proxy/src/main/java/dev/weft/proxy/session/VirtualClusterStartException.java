package dev.weft.proxy.session;

import dev.weft.proxy.config.StartupException;

/** A woven virtual cluster cannot start: its message says which and why (collisions, unreachable clusters). */
public final class VirtualClusterStartException extends StartupException {
    public VirtualClusterStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
