package dev.weft.proxy.gateway;

import dev.weft.proxy.config.StartupException;

/** A gateway port could not be bound; the message names the address, its purpose and the config path. */
public final class GatewayBindException extends StartupException {
    public GatewayBindException(String message, Throwable cause) {
        super(message, cause);
    }
}
