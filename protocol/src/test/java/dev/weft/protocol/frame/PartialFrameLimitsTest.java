package dev.weft.protocol.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.iocore.buffer.CoreByteBudget;
import dev.weft.iocore.time.ManualNanoClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The time and memory bounds {@link KafkaFrameDecoder} puts on incomplete frames ({@link PartialFrameLimits}),
 * driven through {@link EmbeddedChannel}s whose scheduler and {@link ManualNanoClock} are stepped together:
 * no sleeping. Every buffer is released (PARANOID leak checks fail the class otherwise).
 */
class PartialFrameLimitsTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int MAX_FRAME = 64 * 1024;

    private final ManualNanoClock clock = new ManualNanoClock(Long.MAX_VALUE - TimeUnit.SECONDS.toNanos(40)); // wraps during tests
    private final List<Connection> connections = new ArrayList<>();

    @AfterEach
    void closeAll() {
        for (Connection c : connections) {
            c.channel.finishAndReleaseAll();
            c.frames.forEach(ByteBuf::release);
        }
    }

    // --- time: counted from the frame's first byte ---------------------------------------------------

    @Test
    void aClientTricklingOneBytePerFiveSecondsIsClosedThirtySecondsAfterTheFramesFirstByte() {
        CoreByteBudget budget = new CoreByteBudget(1 << 20, 1 << 16);
        Connection c = connect(budget);
        byte[] wire = frame(100);
        for (int i = 0; i < 6; i++) { // bytes at 0, 5, 10, 15, 20, 25 s
            if (i > 0) {
                step(Duration.ofSeconds(5));
            }
            c.send(wire[i]);
            assertTrue(c.channel.isOpen(), "open after byte " + i);
        }
        step(Duration.ofSeconds(4)); // 29 s after the first byte, 4 s after the last
        assertTrue(c.channel.isOpen(), "not closed 29 s after the first byte");
        assertTrue(c.events.isEmpty());
        step(Duration.ofSeconds(1)); // exactly 30 s: the deadline is reached, not passed
        assertTrue(c.channel.isOpen(), "a timeout of T fires on the first reading later than T");
        step(Duration.ofMillis(1));
        assertFalse(c.channel.isOpen(), "closed once 30 s have passed since the frame's first byte");
        PartialFrameTimeout event = c.onlyEvent();
        assertEquals(6, event.bufferedBytes());
        assertEquals(104, event.frameBytes());
        assertEquals(TimeUnit.SECONDS.toNanos(30) + TimeUnit.MILLISECONDS.toNanos(1), event.ageNanos());
        assertFalse(event.waitingForBudget());
        assertEquals(104, event.grantedBytes(), "the frame held its declared size of the budget");
        assertEquals(0, budget.grantedBytes(), "given back on close");
        assertEquals(0, budget.heldBytes());
    }

    @Test
    void aFrameWhosePrefixIsStillIncompleteIsTimedToo() {
        CoreByteBudget budget = new CoreByteBudget(1 << 20, 1 << 16);
        Connection c = connect(budget);
        c.send((byte) 0);
        step(Duration.ofSeconds(20));
        c.send((byte) 0);
        step(Duration.ofSeconds(10).plusMillis(1));
        assertFalse(c.channel.isOpen());
        PartialFrameTimeout event = c.onlyEvent();
        assertEquals(2, event.bufferedBytes());
        assertEquals(-1, event.frameBytes(), "its size is not known yet");
        assertEquals(0, event.grantedBytes());
    }

    @Test
    void aCompleteFrameResetsTheClockToTheNextFramesFirstByte() {
        CoreByteBudget budget = new CoreByteBudget(1 << 20, 1 << 16);
        Connection c = connect(budget);
        byte[] a = frame(10);
        byte[] b = frame(10);
        c.send(slice(a, 0, 5));
        step(Duration.ofSeconds(20));
        // The rest of frame a and the first 3 bytes of frame b arrive in one read, 20 s after a began.
        byte[] read = new byte[a.length - 5 + 3];
        System.arraycopy(a, 5, read, 0, a.length - 5);
        System.arraycopy(b, 0, read, a.length - 5, 3);
        c.send(read);
        assertEquals(1, c.frames.size(), "frame a is complete");
        step(Duration.ofSeconds(25)); // 45 s after a's first byte, 25 s after b's
        assertTrue(c.channel.isOpen(), "b's clock started at b's first byte");
        step(Duration.ofSeconds(5).plusMillis(1));
        assertFalse(c.channel.isOpen());
        assertEquals(TimeUnit.SECONDS.toNanos(30) + TimeUnit.MILLISECONDS.toNanos(1), c.onlyEvent().ageNanos());
    }

    @Test
    void aConnectionWithNothingIncompleteIsNeverTimed() {
        CoreByteBudget budget = new CoreByteBudget(1 << 20, 1 << 16);
        Connection c = connect(budget);
        byte[] a = frame(10);
        c.send(slice(a, 0, 3));
        step(Duration.ofSeconds(29));
        c.send(slice(a, 3, a.length));
        assertEquals(1, c.frames.size());
        step(Duration.ofMinutes(5));
        assertTrue(c.channel.isOpen(), "silent with no incomplete frame: the idle timeout's business, not this one's");
        assertTrue(c.events.isEmpty());
        c.send(slice(frame(10), 0, 4)); // a new frame starts 5.5 minutes later: its own 30 s
        step(Duration.ofSeconds(29));
        assertTrue(c.channel.isOpen());
        step(Duration.ofSeconds(1).plusMillis(1));
        assertFalse(c.channel.isOpen());
    }

    // --- memory: per-core budget, one large frame at a time -------------------------------------------

    @Test
    void readsPauseWhenTheCoreBudgetIsExhaustedAndResumeWhenAFrameCompletes() {
        CoreByteBudget budget = new CoreByteBudget(1000, 400);
        Connection c1 = connect(budget);
        Connection c2 = connect(budget);
        Connection c3 = connect(budget);
        Connection c4 = connect(budget);
        byte[] f1 = frame(300);
        c1.send(slice(f1, 0, 100));
        c2.send(slice(frame(300), 0, 100));
        c3.send(slice(frame(300), 0, 100));
        assertEquals(3 * 304, budget.grantedBytes());
        assertEquals(300, budget.heldBytes());
        int readsBefore = c4.reads.count;

        c4.send(slice(frame(300), 0, 50)); // 912 + 304 > 1000
        assertTrue(c4.decoder.waitingForBudget());
        assertFalse(c4.channel.config().isAutoRead(), "reads paused");
        assertEquals(readsBefore, c4.reads.count, "no read asked for while paused, not even by the decoder itself");
        assertEquals(1, budget.waiting());
        assertEquals(3 * 304, budget.grantedBytes(), "the waiting frame holds no grant");
        assertEquals(350, budget.heldBytes(), "but its one read is counted as held");

        c4.channel.config().setAutoRead(true); // the session behind it wants to read: held back, remembered
        assertFalse(c4.channel.config().isAutoRead());
        assertEquals(readsBefore, c4.reads.count);

        c1.send(slice(f1, 100, f1.length)); // frame 1 completes: its 304 bytes go back, c4 fits now
        assertEquals(1, c1.frames.size());
        assertFalse(c4.decoder.waitingForBudget());
        assertTrue(c4.channel.config().isAutoRead(), "reads resumed as the session asked");
        assertEquals(readsBefore + 1, c4.reads.count);
        assertEquals(3 * 304, budget.grantedBytes());
        assertEquals(0, budget.waiting());
    }

    @Test
    void aClosedConnectionGivesItsBudgetBackAndWakesTheWaiters() {
        CoreByteBudget budget = new CoreByteBudget(1000, 1000);
        Connection big = connect(budget);
        Connection waiter = connect(budget);
        big.send(slice(frame(900), 0, 600));
        waiter.send(slice(frame(200), 0, 10));
        assertTrue(waiter.decoder.waitingForBudget());
        assertEquals(610, budget.heldBytes());

        big.channel.close();
        assertEquals(0, big.decoder.bufferedBytes(), "the cumulation is released on close");
        assertFalse(waiter.decoder.waitingForBudget());
        assertTrue(waiter.channel.config().isAutoRead());
        assertEquals(204, budget.grantedBytes());
        assertEquals(10, budget.heldBytes());

        waiter.channel.close();
        assertEquals(0, budget.grantedBytes());
        assertEquals(0, budget.heldBytes());
        assertEquals(0, budget.waiting());
    }

    @Test
    void aConnectionClosedWhileWaitingLeavesTheQueue() {
        CoreByteBudget budget = new CoreByteBudget(1000, 1000);
        Connection big = connect(budget);
        Connection waiter = connect(budget);
        big.send(slice(frame(900), 0, 10));
        waiter.send(slice(frame(200), 0, 10));
        assertEquals(1, budget.waiting());
        waiter.channel.close();
        assertEquals(0, budget.waiting());
        assertEquals(10, budget.heldBytes());
        big.channel.close();
        assertEquals(0, budget.grantedBytes());
        assertEquals(0, budget.heldBytes());
    }

    @Test
    void largeFramesAreAssembledOneAtATimePerCoreWhileSmallOnesGoOn() {
        CoreByteBudget budget = new CoreByteBudget(10_000, 400);
        Connection large1 = connect(budget);
        Connection large2 = connect(budget);
        Connection small = connect(budget);
        byte[] l1 = frame(1000);
        byte[] l2 = frame(2000);
        large1.send(slice(l1, 0, 100));
        large2.send(slice(l2, 0, 100));
        assertTrue(large2.decoder.waitingForBudget(), "the core's large turn is taken, though 3008 bytes would fit");
        assertFalse(large2.channel.config().isAutoRead());
        byte[] s = frame(300);
        small.send(s);
        assertEquals(1, small.frames.size(), "a frame within the per-connection size is not held up");

        large1.send(slice(l1, 100, l1.length));
        assertEquals(1, large1.frames.size(), "a frame above the per-connection size is accepted, not refused");
        assertFalse(large2.decoder.waitingForBudget(), "the turn passes on");
        assertTrue(budget.largeGrantTaken());
        large2.send(slice(l2, 100, l2.length));
        assertEquals(1, large2.frames.size());
        assertEquals(2004, large2.frames.get(0).readableBytes());
        assertEquals(0, budget.grantedBytes());
        assertFalse(budget.largeGrantTaken());
    }

    @Test
    void aFrameBiggerThanTheWholeCoreBudgetIsAssembledAlone() {
        CoreByteBudget budget = new CoreByteBudget(1000, 400);
        Connection huge = connect(budget);
        Connection other = connect(budget);
        byte[] h = frame(5000);
        huge.send(slice(h, 0, 1000));
        assertFalse(huge.decoder.waitingForBudget(), "nothing else is granted on the core: it may go alone");
        other.send(slice(frame(10), 0, 6));
        assertTrue(other.decoder.waitingForBudget(), "meanwhile the core is over its budget");
        huge.send(slice(h, 1000, h.length));
        assertEquals(1, huge.frames.size());
        assertFalse(other.decoder.waitingForBudget());
    }

    @Test
    void aConnectionThatWaitedPastTheTimeoutIsClosedSayingItWaited() {
        CoreByteBudget budget = new CoreByteBudget(1000, 1000);
        Connection holder = connect(budget);
        Connection waiter = connect(budget);
        holder.send(slice(frame(900), 0, 10));
        step(Duration.ofSeconds(10));
        waiter.send(slice(frame(200), 0, 10));
        step(Duration.ofSeconds(20).plusMillis(1));
        assertFalse(holder.channel.isOpen(), "the holder stalled past its deadline");
        assertFalse(holder.onlyEvent().waitingForBudget());
        assertTrue(waiter.channel.isOpen());
        assertFalse(waiter.decoder.waitingForBudget(), "the holder's close let it in");
        step(Duration.ofSeconds(10));
        assertFalse(waiter.channel.isOpen(), "its own deadline counts from its first byte");
        PartialFrameTimeout event = waiter.onlyEvent();
        assertFalse(event.waitingForBudget(), "it was granted in the end, so it stalled itself");

        Connection waiter2 = connect(budget); // connected first, so its timer runs first in a step
        Connection holder2 = connect(budget);
        holder2.send(slice(frame(900), 0, 10));
        waiter2.send(slice(frame(200), 0, 10));
        step(Duration.ofSeconds(30).plusMillis(1));
        PartialFrameTimeout waited = waiter2.onlyEvent();
        assertTrue(waited.waitingForBudget(), "never granted: it waited");
        assertEquals(0, waited.grantedBytes());
        assertEquals(904, waited.coreGrantedBytes(), "what the holder had");
        assertEquals(1000, waited.coreLimitBytes());
        assertFalse(holder2.channel.isOpen());

        // The other order: the holder's timer runs first and its close frees the budget. The waiter's own
        // deadline has passed by then, so it is not let in to read a burst only to be closed: it is closed
        // as one that waited.
        Connection holder3 = connect(budget);
        Connection waiter3 = connect(budget);
        holder3.send(slice(frame(900), 0, 10));
        waiter3.send(slice(frame(200), 0, 10));
        step(Duration.ofSeconds(30).plusMillis(1));
        assertFalse(holder3.onlyEvent().waitingForBudget());
        assertFalse(waiter3.channel.isOpen());
        PartialFrameTimeout late = waiter3.onlyEvent();
        assertTrue(late.waitingForBudget());
        assertEquals(0, late.grantedBytes());
        assertEquals(0, budget.grantedBytes());
        assertEquals(0, budget.waiting());
        assertEquals(0, budget.heldBytes());
    }

    @Test
    void aReadAskedForWhilePausedWithAutoReadOffIsMadeOnceOnResume() {
        CoreByteBudget budget = new CoreByteBudget(1000, 1000);
        Connection holder = connect(budget);
        Connection paused = connect(budget);
        paused.channel.config().setAutoRead(false); // the session's own backpressure
        holder.send(slice(frame(900), 0, 10));
        paused.send(slice(frame(200), 0, 10));
        int reads = paused.reads.count;
        paused.channel.read(); // the session asks for one read
        assertEquals(reads, paused.reads.count, "held while paused");
        holder.channel.close();
        assertEquals(reads + 1, paused.reads.count, "made once on resume");
        assertFalse(paused.channel.config().isAutoRead(), "autoRead stays as the session left it");
    }

    @Test
    void bytesFromSeveralFramesInOneReadAreAccountedAsTheLastIncompleteOne() {
        CoreByteBudget budget = new CoreByteBudget(1000, 1000);
        Connection c = connect(budget);
        byte[] a = frame(20);
        byte[] b = frame(30);
        byte[] read = new byte[a.length + 10];
        System.arraycopy(a, 0, read, 0, a.length);
        System.arraycopy(b, 0, read, a.length, 10);
        c.send(read);
        assertEquals(1, c.frames.size());
        assertEquals(34, budget.grantedBytes());
        assertEquals(10, budget.heldBytes());
        c.send(slice(b, 10, b.length));
        assertEquals(2, c.frames.size());
        assertEquals(0, budget.grantedBytes());
        assertEquals(0, budget.heldBytes());
    }

    // --- harness ---------------------------------------------------------------------------------------

    /** Moves the manual clock and the channels' schedulers forward together, then runs what is due. */
    private void step(Duration d) {
        clock.advance(d);
        for (Connection c : connections) {
            c.channel.advanceTimeBy(d.toNanos(), TimeUnit.NANOSECONDS);
        }
        for (Connection c : connections) {
            c.channel.runScheduledPendingTasks();
            c.channel.runPendingTasks();
        }
    }

    private Connection connect(CoreByteBudget budget) {
        Connection c = new Connection(budget, clock);
        connections.add(c);
        return c;
    }

    /** A frame with an {@code n}-byte body of a recognisable pattern, size prefix included. */
    private static byte[] frame(int n) {
        byte[] wire = new byte[4 + n];
        wire[0] = (byte) (n >>> 24);
        wire[1] = (byte) (n >>> 16);
        wire[2] = (byte) (n >>> 8);
        wire[3] = (byte) n;
        for (int i = 0; i < n; i++) {
            wire[4 + i] = (byte) (i * 31 + 7);
        }
        return wire;
    }

    private static byte[] slice(byte[] bytes, int from, int to) {
        byte[] out = new byte[to - from];
        System.arraycopy(bytes, from, out, 0, out.length);
        return out;
    }

    /** One client connection: read counter at the head, the decoder, a recorder standing for the session. */
    private static final class Connection {
        final KafkaFrameDecoder decoder;
        final ReadCounter reads = new ReadCounter();
        final List<ByteBuf> frames = new ArrayList<>();
        final List<PartialFrameTimeout> events = new ArrayList<>();
        final EmbeddedChannel channel;

        Connection(CoreByteBudget budget, ManualNanoClock clock) {
            decoder = new KafkaFrameDecoder(MAX_FRAME, "client", true, new PartialFrameLimits(budget, TIMEOUT.toNanos(), clock));
            channel = new EmbeddedChannel();
            channel.freezeTime();
            channel.pipeline().addLast(reads, decoder, new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    frames.add((ByteBuf) msg);
                }

                @Override
                public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                    if (evt instanceof PartialFrameTimeout t) {
                        events.add(t);
                    }
                }
            });
        }

        void send(byte... bytes) {
            channel.writeInbound(PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length).writeBytes(bytes));
        }

        PartialFrameTimeout onlyEvent() {
            assertEquals(1, events.size(), "one timeout event: " + events);
            assertNotNull(events.get(0));
            return events.get(0);
        }
    }

    /** Counts the reads that reach the transport (EmbeddedChannel's are no-ops). */
    private static final class ReadCounter extends ChannelDuplexHandler {
        int count;

        @Override
        public void read(ChannelHandlerContext ctx) {
            count++;
            ctx.read();
        }
    }

    @Test
    void noEventWithoutLimits() {
        EmbeddedChannel plain = new EmbeddedChannel(new KafkaFrameDecoder(MAX_FRAME, "broker 1", true));
        plain.writeInbound(PooledByteBufAllocator.DEFAULT.directBuffer().writeBytes(slice(frame(10), 0, 5)));
        plain.runScheduledPendingTasks();
        assertNull(plain.readInbound());
        assertTrue(plain.isOpen());
        assertFalse(plain.finishAndReleaseAll());
    }
}
