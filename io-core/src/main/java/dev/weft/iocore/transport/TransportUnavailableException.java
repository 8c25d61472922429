package dev.weft.iocore.transport;

/** A transport was forced by configuration but cannot run on this host; the cause says why. */
public final class TransportUnavailableException extends IllegalStateException {

    private final Transport transport;

    TransportUnavailableException(Transport transport, Throwable cause) {
        super("transport: '" + transport.configName() + "' is configured but unavailable on this host: "
                + describe(cause) + " (set transport to 'auto' to fall back to the best available one)", cause);
        this.transport = transport;
    }

    /** The transport that was asked for. */
    public Transport transport() {
        return transport;
    }

    static String describe(Throwable cause) {
        if (cause == null) {
            return "no reason given";
        }
        String message = cause.getMessage();
        return message == null ? cause.getClass().getName() : cause.getClass().getSimpleName() + ": " + message;
    }
}
