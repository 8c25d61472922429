package dev.weft.iocore.mailbox;

import io.netty.channel.EventLoop;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.jctools.queues.MessagePassingQueue;
import org.jctools.queues.MpscArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way into a core from another thread: a bounded JCTools MPSC queue that the owning event loop
 * drains, applying each message through its {@link ControlMessageHandler} on the loop thread.
 *
 * <p>Any thread may {@link #offer}; it never blocks and never grows the queue: a full mailbox refuses.
 * The first offer into an idle mailbox wakes the loop by submitting the drain task; the loop then applies
 * at most {@code drainBatch} messages per turn and resubmits itself while messages remain, so a flood of
 * control traffic cannot starve the core's I/O.
 *
 * <p>Ordering: messages from one producer thread are applied in the order it offered them; there is no
 * order across producers. Every accepted message is applied exactly once, unless the loop shuts down first.
 *
 * @param <M> the message type
 */
public final class CoreMailbox<M extends ControlMessage> {

    private static final Logger LOG = LoggerFactory.getLogger(CoreMailbox.class);
    private static final VarHandle LONG = MethodHandles.arrayElementVarHandle(long[].class);

    /** Called on the owning loop when a handler throws; must not throw itself. */
    @FunctionalInterface
    public interface FailureHandler<M> {
        void onFailure(M message, Throwable failure);
    }

    private final EventLoop owner;
    private final MpscArrayQueue<M> queue;
    private final int drainBatch;
    private final ControlMessageHandler<? super M> handler;
    private final FailureHandler<? super M> failureHandler;
    private final MessagePassingQueue.Consumer<M> applyOne = this::apply;
    private final Runnable drainTask = this::drainAndReschedule;

    // True while a drain task is queued on, or running in, the owner loop. Set false -> true by the one
    // producer (any thread) or the owner that wins the CAS and then submits drainTask; set back to false
    // only by the owner loop after a drain. Producers that see true need not wake the loop.
    private final AtomicBoolean drainScheduled = new AtomicBoolean();

    // Contended only when the queue is full or the loop is gone, so a LongAdder is cheap enough.
    private final LongAdder refused = new LongAdder();

    // [0] applied, [1] failed: written only by the owner loop (plain read, release write), read by any
    // thread with acquire.
    private final long[] ownerCounts = new long[2];

    /**
     * @param owner          the event loop that applies the messages
     * @param config         capacity and batch size
     * @param handler        applies one message, on {@code owner}'s thread
     * @param failureHandler reports a handler's exception, on {@code owner}'s thread
     */
    public CoreMailbox(EventLoop owner, MailboxConfig config, ControlMessageHandler<? super M> handler,
            FailureHandler<? super M> failureHandler) {
        this.owner = Objects.requireNonNull(owner, "owner");
        this.queue = new MpscArrayQueue<>(config.capacity());
        this.drainBatch = config.drainBatch();
        this.handler = Objects.requireNonNull(handler, "handler");
        this.failureHandler = Objects.requireNonNull(failureHandler, "failureHandler");
    }

    /** A mailbox whose handler failures are logged at ERROR (and counted in {@link #failedCount()}). */
    public CoreMailbox(EventLoop owner, MailboxConfig config, ControlMessageHandler<? super M> handler) {
        this(owner, config, handler, CoreMailbox::logFailure);
    }

    /**
     * Queues {@code message} for the owning loop. Never blocks.
     *
     * @return true when queued (it will be applied on the owner loop), false when the mailbox is full or
     *         the loop is shutting down; the caller decides whether to retry, drop or report
     */
    public boolean offer(M message) {
        Objects.requireNonNull(message, "message");
        if (owner.isShuttingDown() || !queue.offer(message)) {
            refused.increment();
            return false;
        }
        if (!drainScheduled.get() && drainScheduled.compareAndSet(false, true) && !scheduleDrain()) {
            // The loop is terminating: the message will never be applied, so report it as refused.
            refused.increment();
            return false;
        }
        return true;
    }

    /**
     * Applies up to {@code drainBatch} queued messages. Owner loop only; the drain task calls it, and a
     * duty cycle that owns the loop may call it directly.
     *
     * @return the number of messages taken off the queue (the work count)
     * @throws IllegalStateException when called off the owner loop
     */
    public int drain() {
        if (!owner.inEventLoop()) {
            throw new IllegalStateException("CoreMailbox.drain() must run on its owner loop " + owner + ", not on "
                    + Thread.currentThread().getName());
        }
        return queue.drain(applyOne, drainBatch);
    }

    /** The loop that applies this mailbox's messages. */
    public EventLoop owner() {
        return owner;
    }

    /** The real capacity (the configured one rounded up to a power of two). */
    public int capacity() {
        return queue.capacity();
    }

    /** Messages queued now; approximate while producers are offering. */
    public int size() {
        return queue.size();
    }

    /** Offers refused so far (full or shutting down). */
    public long refusedCount() {
        return refused.sum();
    }

    /** Messages applied so far (including failed ones). */
    public long appliedCount() {
        return (long) LONG.getAcquire(ownerCounts, 0);
    }

    /** Messages whose handler threw so far. */
    public long failedCount() {
        return (long) LONG.getAcquire(ownerCounts, 1);
    }

    private void apply(M message) {
        try {
            handler.onMessage(message);
        } catch (Throwable failure) {
            if (failure instanceof VirtualMachineError fatal) {
                throw fatal;
            }
            LONG.setRelease(ownerCounts, 1, (long) LONG.get(ownerCounts, 1) + 1);
            failureHandler.onFailure(message, failure);
        } finally {
            LONG.setRelease(ownerCounts, 0, (long) LONG.get(ownerCounts, 0) + 1);
        }
    }

    private void drainAndReschedule() {
        drain();
        // Clear the flag before looking at the queue again: a producer that offered after our drain
        // either sees false and schedules a drain itself, or its element is visible to isEmpty() here
        // (both sides are volatile accesses, so one of the two must see the other's write).
        drainScheduled.set(false);
        if (!queue.isEmpty() && drainScheduled.compareAndSet(false, true)) {
            // More than a batch was waiting: go to the back of the loop's task queue, after I/O.
            scheduleDrain();
        }
    }

    private boolean scheduleDrain() {
        try {
            owner.execute(drainTask);
            return true;
        } catch (RejectedExecutionException shuttingDown) {
            // The loop is terminating: messages still queued will never be applied. The flag stays set,
            // so later offers skip the doomed execute; offer() reports the refusal to its producer.
            return false;
        }
    }

    private static void logFailure(Object message, Throwable failure) {
        LOG.error("control message {} failed on {}", message, Thread.currentThread().getName(), failure);
    }

    @Override
    public String toString() {
        return "CoreMailbox[owner=" + owner + ", queued=" + queue.size() + "/" + queue.capacity() + "]";
    }
}
