package dev.weft.iocore.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.iocore.EventLoops;
import dev.weft.iocore.EventLoopsConfig;
import dev.weft.iocore.testing.Await;
import io.netty.channel.EventLoop;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CoreMailboxTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** The messages under test, shaped like the proxy's: a sealed family dispatched to onXxx. */
    sealed interface Command extends ControlMessage permits Numbered, Explode {
    }

    record Numbered(int producer, int sequence) implements Command {
    }

    record Explode(String why) implements Command {
    }

    /** Applies commands; its state is touched only on the owner loop, like a core's session table. */
    static final class Core implements ControlMessageHandler<Command> {
        final EventLoop owner;
        final List<Numbered> applied = new ArrayList<>();
        final AtomicLong offLoop = new AtomicLong(); // written from any thread, if the contract were broken

        Core(EventLoop owner) {
            this.owner = owner;
        }

        @Override
        public void onMessage(Command command) {
            if (!owner.inEventLoop()) {
                offLoop.incrementAndGet();
            }
            switch (command) {
                case Numbered numbered -> onNumbered(numbered);
                case Explode explode -> onExplode(explode);
            }
        }

        private void onNumbered(Numbered numbered) {
            applied.add(numbered);
        }

        private void onExplode(Explode explode) {
            throw new IllegalStateException(explode.why());
        }

        /** A copy of what was applied, read on the owner loop. */
        List<Numbered> appliedSnapshot() throws Exception {
            return owner.submit(() -> List.copyOf(applied)).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    private EventLoops loops;

    @BeforeEach
    void startLoops() {
        loops = EventLoops.start(EventLoopsConfig.defaults().withLoopCount(2));
    }

    @AfterEach
    void stopLoops() {
        loops.close();
    }

    @Test
    void everyMessageFromManyProducersIsAppliedOnceOnTheOwnerInPerProducerOrder() throws Exception {
        int producers = 4;
        int perProducer = 25_000;
        Core core = new Core(loops.core(0));
        // Small on purpose: producers hit a full mailbox and must retry, which must not reorder anything.
        CoreMailbox<Command> mailbox = new CoreMailbox<>(core.owner, new MailboxConfig(64, 16), core);
        CyclicBarrier start = new CyclicBarrier(producers);
        List<CompletableFuture<Long>> retries = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int producer = p;
            CompletableFuture<Long> done = new CompletableFuture<>();
            retries.add(done);
            threads.add(Thread.ofPlatform().name("producer-" + p).start(() -> {
                try {
                    start.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                    long refusals = 0;
                    for (int seq = 0; seq < perProducer; seq++) {
                        Numbered message = new Numbered(producer, seq);
                        while (!mailbox.offer(message)) {
                            refusals++;
                            Thread.onSpinWait();
                        }
                    }
                    done.complete(refusals);
                } catch (Throwable t) {
                    done.completeExceptionally(t);
                }
            }));
        }
        long refusals = 0;
        for (CompletableFuture<Long> done : retries) {
            refusals += done.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
        for (Thread thread : threads) {
            thread.join(TIMEOUT.toMillis());
        }
        long total = (long) producers * perProducer;
        Await.until(TIMEOUT, () -> mailbox.appliedCount() == total, () -> "applied " + mailbox.appliedCount() + "/" + total);

        List<Numbered> applied = core.appliedSnapshot();
        assertEquals(total, applied.size(), "exactly once: nothing lost, nothing doubled");
        int[] next = new int[producers];
        for (Numbered message : applied) {
            assertEquals(next[message.producer()], message.sequence(), "producer " + message.producer() + " out of order");
            next[message.producer()]++;
        }
        for (int p = 0; p < producers; p++) {
            assertEquals(perProducer, next[p]);
        }
        assertEquals(0, core.offLoop.get(), "every message was applied on the owner loop");
        assertEquals(refusals, mailbox.refusedCount());
        assertEquals(0, mailbox.failedCount());
        assertEquals(0, mailbox.size());
    }

    @Test
    void aFullMailboxRefusesInsteadOfBlockingOrGrowing() throws Exception {
        Core core = new Core(loops.core(0));
        CoreMailbox<Command> mailbox = new CoreMailbox<>(core.owner, new MailboxConfig(8, 4), core);
        CountDownLatch release = blockLoop(core.owner);
        try {
            for (int seq = 0; seq < 8; seq++) {
                assertTrue(mailbox.offer(new Numbered(0, seq)), "slot " + seq);
            }
            assertEquals(8, mailbox.capacity());
            assertEquals(8, mailbox.size());
            assertFalse(mailbox.offer(new Numbered(0, 8)), "a full mailbox refuses");
            assertFalse(mailbox.offer(new Numbered(0, 9)));
            assertEquals(2, mailbox.refusedCount());
            assertEquals(8, mailbox.size(), "refusals do not grow the queue");
        } finally {
            release.countDown();
        }
        Await.until(TIMEOUT, () -> mailbox.appliedCount() == 8, () -> "applied " + mailbox.appliedCount());
        assertEquals(8, core.appliedSnapshot().size());
        assertTrue(mailbox.offer(new Numbered(0, 8)), "space again once drained");
        Await.until(TIMEOUT, () -> mailbox.appliedCount() == 9, () -> "applied " + mailbox.appliedCount());
    }

    @Test
    void drainsInBoundedBatchesLettingOtherLoopWorkRunBetween() throws Exception {
        Core core = new Core(loops.core(0));
        CoreMailbox<Command> mailbox = new CoreMailbox<>(core.owner, new MailboxConfig(256, 16), core);
        CompletableFuture<Integer> seenByOtherTask = new CompletableFuture<>();
        CountDownLatch release = blockLoop(core.owner);
        try {
            assertTrue(mailbox.offer(new Numbered(0, 0))); // empty -> non-empty: queues the drain task
            // Queued behind the drain task: runs after the first batch, before the rest.
            core.owner.execute(() -> seenByOtherTask.complete(core.applied.size()));
            for (int seq = 1; seq < 40; seq++) {
                assertTrue(mailbox.offer(new Numbered(0, seq)));
            }
        } finally {
            release.countDown();
        }
        assertEquals(16, seenByOtherTask.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS), "one batch per turn");
        Await.until(TIMEOUT, () -> mailbox.appliedCount() == 40, () -> "applied " + mailbox.appliedCount());
    }

    @Test
    void aDutyCycleOnTheOwnerMayDrainDirectlyAndGetsItsWorkCount() throws Exception {
        Core core = new Core(loops.core(0));
        CoreMailbox<Command> mailbox = new CoreMailbox<>(core.owner, new MailboxConfig(64, 5), core);
        CompletableFuture<List<Integer>> workCounts = new CompletableFuture<>();
        core.owner.execute(() -> {
            // Offers from the owner itself queue a drain task for later; drain() here runs first.
            for (int seq = 0; seq < 12; seq++) {
                mailbox.offer(new Numbered(0, seq));
            }
            workCounts.complete(List.of(mailbox.drain(), mailbox.drain(), mailbox.drain(), mailbox.drain()));
        });
        assertEquals(List.of(5, 5, 2, 0), workCounts.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
        IllegalStateException error = assertThrows(IllegalStateException.class, mailbox::drain);
        assertTrue(error.getMessage().startsWith("CoreMailbox.drain() must run on its owner loop"), error.getMessage());
        Await.until(TIMEOUT, () -> mailbox.appliedCount() == 12, () -> "applied " + mailbox.appliedCount());
    }

    @Test
    void aFailingHandlerIsReportedOnTheOwnerAndTheNextMessagesStillApply() throws Exception {
        Core core = new Core(loops.core(1));
        CompletableFuture<String> reported = new CompletableFuture<>();
        CoreMailbox<Command> mailbox = new CoreMailbox<>(core.owner, MailboxConfig.defaults(), core,
                (message, failure) -> reported.complete(
                        message + " " + failure.getMessage() + " onOwner=" + core.owner.inEventLoop()));
        assertTrue(mailbox.offer(new Numbered(0, 0)));
        assertTrue(mailbox.offer(new Explode("bad config")));
        assertTrue(mailbox.offer(new Numbered(0, 1)));
        assertEquals("Explode[why=bad config] bad config onOwner=true", reported.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
        Await.until(TIMEOUT, () -> mailbox.appliedCount() == 3, () -> "applied " + mailbox.appliedCount());
        assertEquals(1, mailbox.failedCount());
        assertEquals(List.of(new Numbered(0, 0), new Numbered(0, 1)), core.appliedSnapshot());
    }

    @Test
    void offersAreRefusedOnceTheOwnerShutsDown() {
        Core core = new Core(loops.core(0));
        CoreMailbox<Command> mailbox = new CoreMailbox<>(core.owner, MailboxConfig.defaults(), core);
        loops.close();
        assertFalse(mailbox.offer(new Numbered(0, 0)));
        assertEquals(1, mailbox.refusedCount());
    }

    @Test
    void broadcastReachesEveryCoreOnItsOwnLoop() throws Exception {
        List<Core> cores = new ArrayList<>();
        CoreMailboxes<Command> mailboxes = CoreMailboxes.create(loops.cores(), MailboxConfig.defaults(), index -> {
            Core core = new Core(loops.core(index));
            cores.add(core);
            return core;
        });
        assertEquals(2, mailboxes.size());
        assertEquals(2, mailboxes.broadcast(new Numbered(7, 0)));
        for (int i = 0; i < cores.size(); i++) {
            CoreMailbox<Command> mailbox = mailboxes.core(i);
            assertSame(loops.core(i), mailbox.owner());
            Await.until(TIMEOUT, () -> mailbox.appliedCount() == 1, () -> "core applied " + mailbox.appliedCount());
            assertEquals(List.of(new Numbered(7, 0)), cores.get(i).appliedSnapshot());
            assertEquals(0, cores.get(i).offLoop.get());
        }
    }

    @Test
    void rejectsNonsenseSizing() {
        assertThrows(IllegalArgumentException.class, () -> new MailboxConfig(1, 1));
        assertThrows(IllegalArgumentException.class, () -> new MailboxConfig(16, 0));
        assertThrows(IllegalArgumentException.class, () -> new MailboxConfig(MailboxConfig.MAX_CAPACITY + 1, 1));
    }

    /** Occupies {@code loop} until the returned latch is released, so messages pile up. */
    private static CountDownLatch blockLoop(EventLoop loop) throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        loop.execute(() -> {
            running.countDown();
            try {
                release.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(running.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
        return release;
    }
}
