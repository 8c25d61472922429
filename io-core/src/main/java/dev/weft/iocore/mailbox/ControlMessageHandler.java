package dev.weft.iocore.mailbox;

/**
 * Applies control messages on the owning core's loop thread, one at a time, in arrival order per
 * producer. It may touch the core's state freely (it runs where that state lives) and must not block.
 *
 * <p>Typical shape: {@code switch (message) { case Reload r -> onReload(r); case Shutdown s -> onShutdown(s); }}
 *
 * @param <M> the message type
 */
@FunctionalInterface
public interface ControlMessageHandler<M extends ControlMessage> {

    /** Called on the owning event loop thread; an exception here is reported and the drain goes on. */
    void onMessage(M message);
}
