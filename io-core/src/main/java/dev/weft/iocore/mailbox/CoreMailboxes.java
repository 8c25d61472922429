package dev.weft.iocore.mailbox;

import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * One {@link CoreMailbox} per core, indexed like the cores of {@code EventLoops}.
 *
 * @param <M> the message type
 */
public final class CoreMailboxes<M extends ControlMessage> {

    private final List<CoreMailbox<M>> mailboxes;

    private CoreMailboxes(List<CoreMailbox<M>> mailboxes) {
        this.mailboxes = List.copyOf(mailboxes);
    }

    /**
     * Creates a mailbox for each loop; {@code handlerForCore.apply(i)} is the handler of core {@code i}
     * (typically an object holding that core's sessions).
     */
    public static <M extends ControlMessage> CoreMailboxes<M> create(List<? extends EventLoop> cores,
            MailboxConfig config, IntFunction<? extends ControlMessageHandler<? super M>> handlerForCore) {
        List<CoreMailbox<M>> mailboxes = new ArrayList<>(cores.size());
        for (int i = 0; i < cores.size(); i++) {
            mailboxes.add(new CoreMailbox<>(cores.get(i), config, handlerForCore.apply(i)));
        }
        return new CoreMailboxes<>(mailboxes);
    }

    /** The mailbox of core {@code index}. */
    public CoreMailbox<M> core(int index) {
        return mailboxes.get(index);
    }

    /** Number of cores. */
    public int size() {
        return mailboxes.size();
    }

    /**
     * Offers {@code message} to every core (it must be immutable: all cores read the same instance).
     *
     * @return how many cores accepted it; less than {@link #size()} when some mailboxes were full
     */
    public int broadcast(M message) {
        int accepted = 0;
        for (CoreMailbox<M> mailbox : mailboxes) {
            if (mailbox.offer(message)) {
                accepted++;
            }
        }
        return accepted;
    }
}
