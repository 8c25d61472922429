package dev.weft.proxy.server;

/** A valid configuration asking for something this version of Weft cannot serve; the message says what. */
public final class UnsupportedConfigurationException extends RuntimeException {
    public UnsupportedConfigurationException(String message) {
        super(message);
    }
}
