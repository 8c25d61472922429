package dev.weft.proxy.gateway;

/** A gateway port could not be bound; the message names the address, its purpose and the config path. */
public final class GatewayBindException extends RuntimeException {
    public GatewayBindException(String message, Throwable cause) {
        super(message, cause);
    }
}
