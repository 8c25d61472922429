package dev.weft.iocore.mailbox;

/**
 * A command sent from one thread to a core through its {@link CoreMailbox}: config reload, cluster
 * switch, shutdown, and the like.
 *
 * <p>Implementations must be immutable (records of immutable values or published snapshots): a message
 * is built on one thread and read on another with no lock, and may be broadcast to every core at once.
 * Define the proxy's messages as a sealed interface extending this one, so the owning loop's handler
 * can switch over them exhaustively and call one {@code onXxx(...)} per kind.
 */
public interface ControlMessage {
}
