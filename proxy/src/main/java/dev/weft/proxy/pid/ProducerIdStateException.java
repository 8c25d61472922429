package dev.weft.proxy.pid;

/**
 * The producer-id state could not be read, written or decided; the message names the home cluster,
 * the state topic and what to do when the operator can do something.
 */
public final class ProducerIdStateException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ProducerIdStateException(String message) {
        super(message);
    }

    public ProducerIdStateException(String message, Throwable cause) {
        super(message, cause);
    }
}
