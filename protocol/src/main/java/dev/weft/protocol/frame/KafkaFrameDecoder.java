package dev.weft.protocol.frame;

import dev.weft.iocore.buffer.CoreByteBudget;
import dev.weft.iocore.time.Deadlines;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandler;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Splits a Kafka byte stream into frames: a 4-byte big-endian size, then that many bytes.
 *
 * <p>Emits each frame as a <em>retained slice</em> of the cumulation buffer: no bytes are copied, and
 * the next handler <em>takes ownership</em> of the slice. By default the slice is the frame body
 * (size prefix removed); with {@code keepSizePrefix} it starts at the size prefix, so a proxy can
 * forward it with one write and no allocation (the body then starts at
 * {@code readerIndex() + SIZE_PREFIX_BYTES}). A partial frame leaves the reader index alone until the
 * rest arrives.
 *
 * <p>A size below zero or above {@code maxFrameBytes} is refused with a {@link FrameSizeException}
 * naming the size, the limit and the peer; the decoder then discards everything after it (the stream
 * cannot be resynchronised), and the pipeline is expected to close the connection.
 *
 * <h2>Memory held by an incomplete frame</h2>
 * A frame spanning several reads is kept as a composite of the reads' own buffers. Reads that fill
 * little of their buffer (a client trickling a few bytes per segment) would pin a whole read buffer per
 * byte, so once the buffers of the incomplete frame take more than twice its bytes plus
 * {@value #COMPACT_SLACK_BYTES}, its bytes are copied into one buffer of their size. Memory per
 * incomplete frame is therefore at most about twice its bytes; dense reads (bulk traffic) are never
 * copied.
 *
 * <h2>Limits for client connections ({@link PartialFrameLimits})</h2>
 * <ul>
 *   <li><b>Time.</b> The frame must be complete {@code timeoutNanos} after its <em>first</em> byte arrived
 *       (not after the last read: a client sending one byte every few seconds does not reset it). A frame
 *       that completes resets it: the next frame's clock starts at its own first byte. A timer on the
 *       channel's event loop checks the deadline (reader-idle events never fire while bytes trickle in),
 *       with time from the limits' clock. When it passes, the decoder fires a {@link PartialFrameTimeout}
 *       user event (the session logs and counts it) and closes the connection.
 *   <li><b>Memory.</b> As soon as a frame's size prefix is in, the frame asks its core's
 *       {@link CoreByteBudget} for its whole declared size. Granted: the connection reads on until the
 *       frame is complete, then gives the grant back. Refused (the core's budget is taken, or the frame
 *       is large and another connection of the core is assembling a large one): the connection stops
 *       reading ({@code autoRead} off) and waits; it reads again as soon as a release on its core lets
 *       the grant through. A frame larger than the large-frame size but within {@code maxFrameBytes} is
 *       therefore accepted, one at a time per core, never refused for its size.
 *   <li>While waiting, the connection holds only the read that brought the size prefix. Its deadline keeps
 *       running: a connection that waited past it is closed like a slow one, and the event says it
 *       waited ({@link PartialFrameTimeout#waitingForBudget()}); one whose deadline has passed when the
 *       budget frees is closed then instead of being let in to read a burst it could not finish. A Kafka
 *       client would have given the request up by then anyway ({@code request.timeout.ms}, 30 s by
 *       default).
 * </ul>
 * Reads are paused without fighting the handlers after this one, which also turn {@code autoRead} on
 * and off for their own backpressure: while paused, a {@code read()} they ask for (which is what
 * turning {@code autoRead} on does) is held here and only remembered; the decoder restores what they
 * asked for when it resumes. That is why the decoder is also a {@link ChannelOutboundHandler}; every other
 * outbound operation passes straight through.
 *
 * <p>When the connection closes ({@code channelInactive}) or the decoder is removed, the cumulation is
 * released, and the grant, the waiting place, the reported bytes and the timer are given back.
 *
 * <p>All of it runs on the channel's event loop.
 */
public final class KafkaFrameDecoder extends ByteToMessageDecoder implements ChannelOutboundHandler {

    public static final int SIZE_PREFIX_BYTES = 4;
    /** Buffers of an incomplete frame may hold this much more than twice its bytes before it is compacted. */
    public static final int COMPACT_SLACK_BYTES = 64 * 1024;

    private final int maxFrameBytes;
    private final String peerRole;
    private final boolean keepSizePrefix;
    /** Null for streams with no limits (a broker's). */
    private final PartialFrameLimits limits;
    private final Runnable onTimer = this::onTimer;
    private final Runnable onExpired = this::onExpired;
    private final CoreByteBudget.Waiter waiter = this::budgetReleased;
    private boolean failed;

    // Everything below is touched on the channel's event loop only.
    private ChannelHandlerContext ctx;
    /** The incomplete frame's declared size, prefix included; -1 while its prefix is incomplete. */
    private long partialFrameBytes = -1;
    private int framesThisRead;
    /** Capacity of the buffers holding the incomplete frame, and of the last buffer that joined it. */
    private long heldBufferBytes;
    private long lastBufferBytes;
    /**
     * The buffer of the last compaction while it is still the cumulation (sparse reads are appended to it);
     * null otherwise. Cleared as soon as nothing is buffered: the cumulation is released then, and a pooled
     * buffer object may come back as another buffer.
     */
    private ByteBuf compacted;
    private long partialSinceNanos;
    private int reportedBytes;
    private long grantedBytes;
    private boolean waiting;
    private boolean paused;
    private boolean resumeAutoRead;
    private boolean readRequested;
    private ScheduledFuture<?> timer;
    private boolean released;
    private boolean timedOut;

    /**
     * @param maxFrameBytes the largest frame body accepted, in bytes
     * @param peerRole who sends this stream, for error messages ("client", "broker 3")
     */
    public KafkaFrameDecoder(int maxFrameBytes, String peerRole) {
        this(maxFrameBytes, peerRole, false);
    }

    /**
     * @param maxFrameBytes the largest frame body accepted, in bytes
     * @param peerRole who sends this stream, for error messages ("client", "broker 3")
     * @param keepSizePrefix emit frames starting at their 4-byte size prefix instead of the body
     */
    public KafkaFrameDecoder(int maxFrameBytes, String peerRole, boolean keepSizePrefix) {
        this(maxFrameBytes, peerRole, keepSizePrefix, null);
    }

    /**
     * @param maxFrameBytes the largest frame body accepted, in bytes
     * @param peerRole who sends this stream, for error messages ("client", "broker 3")
     * @param keepSizePrefix emit frames starting at their 4-byte size prefix instead of the body
     * @param limits time and memory bounds of incomplete frames (a client's stream), or null for none
     */
    public KafkaFrameDecoder(int maxFrameBytes, String peerRole, boolean keepSizePrefix, PartialFrameLimits limits) {
        if (maxFrameBytes <= 0) {
            throw new IllegalArgumentException("maxFrameBytes must be positive, was " + maxFrameBytes);
        }
        this.maxFrameBytes = maxFrameBytes;
        this.peerRole = peerRole;
        this.keepSizePrefix = keepSizePrefix;
        this.limits = limits;
        // A frame that spans several reads (a 1 MiB Fetch response, a big Produce) is assembled as a
        // composite of the reads' own buffers; the default merge cumulator would copy every byte of
        // it into one growing buffer, which is a copy proportional to the payload. Only sparse reads
        // are copied (see the class comment).
        setCumulator(this::cumulate);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (!(msg instanceof ByteBuf)) {
            super.channelRead(ctx, msg);
            return;
        }
        boolean hadPartial = bufferedBytes() > 0;
        framesThisRead = 0;
        try {
            super.channelRead(ctx, msg);
        } finally {
            afterRead(ctx, hadPartial);
        }
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (in.readableBytes() >= SIZE_PREFIX_BYTES) {
            int start = in.readerIndex();
            int size = in.getInt(start);
            if (size < 0 || size > maxFrameBytes) {
                failed = true;
                in.skipBytes(in.readableBytes());
                throw new FrameSizeException(size, maxFrameBytes, peerRole, String.valueOf(ctx.channel().remoteAddress()));
            }
            if (in.readableBytes() - SIZE_PREFIX_BYTES < size) {
                partialFrameBytes = SIZE_PREFIX_BYTES + (long) size;
                return; // wait for the rest of the frame
            }
            framesThisRead++;
            if (keepSizePrefix) {
                out.add(in.readRetainedSlice(SIZE_PREFIX_BYTES + size));
            } else {
                in.skipBytes(SIZE_PREFIX_BYTES);
                out.add(in.readRetainedSlice(size));
            }
        }
        partialFrameBytes = -1;
    }

    /**
     * The cumulator: the reads' own buffers as a composite, except that an incomplete frame whose buffers
     * have grown to more than twice its bytes plus {@link #COMPACT_SLACK_BYTES} is copied into one buffer
     * of twice its bytes, and later sparse reads (less than half their buffer) are appended to that buffer
     * while it has room. Without the room every compaction copied the whole frame again: a broker's 8 MiB
     * Fetch response arriving 64 KiB at a time in 1 MiB read buffers was copied ~16 times over (16 % of
     * the proxy's CPU in a profile). Now each compaction at least doubles what the frame holds, so its
     * bytes are copied about twice at most, and dense reads are still never copied.
     * Takes ownership of {@code cumulation} and {@code in}; returns the new cumulation, retained (the decoder owns it).
     */
    private ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
        if (cumulation == in || !cumulation.isReadable()) {
            compacted = null;
            lastBufferBytes = in.capacity();
            heldBufferBytes = lastBufferBytes;
            return COMPOSITE_CUMULATOR.cumulate(alloc, cumulation, in);
        }
        int bytes = in.readableBytes();
        if (cumulation == compacted && compacted.writableBytes() >= bytes && in.capacity() >= 2L * bytes) {
            compacted.writeBytes(in, in.readerIndex(), bytes); // a sparse read, into the room left for it
            in.release();
            return compacted;
        }
        long held = heldBufferBytes + in.capacity();
        long readable = (long) cumulation.readableBytes() + bytes;
        if (held <= 2L * readable + COMPACT_SLACK_BYTES || readable > Integer.MAX_VALUE / 2 - SIZE_PREFIX_BYTES) {
            compacted = null;
            lastBufferBytes = in.capacity();
            heldBufferBytes = held;
            return COMPOSITE_CUMULATOR.cumulate(alloc, cumulation, in);
        }
        ByteBuf merged = null;
        try {
            merged = alloc.buffer((int) (2 * readable));
            merged.writeBytes(cumulation, cumulation.readerIndex(), cumulation.readableBytes());
            merged.writeBytes(in, in.readerIndex(), bytes);
            lastBufferBytes = merged.capacity();
            heldBufferBytes = lastBufferBytes;
            compacted = merged;
            ByteBuf result = merged;
            merged = null;
            return result;
        } finally {
            if (merged != null) {
                merged.release();
            }
            cumulation.release();
            in.release();
        }
    }

    /** Book-keeping after each read: the buffers held, and (with limits) the clock, the grant, the timer. */
    private void afterRead(ChannelHandlerContext ctx, boolean hadPartial) {
        int buffered = bufferedBytes();
        if (buffered == 0) {
            compacted = null;
            heldBufferBytes = 0;
            partialFrameBytes = -1;
        } else if (framesThisRead > 0) {
            heldBufferBytes = lastBufferBytes; // the incomplete frame begins in the last read
        }
        if (limits == null || released) {
            return;
        }
        CoreByteBudget budget = limits.budget();
        budget.held(buffered - reportedBytes);
        reportedBytes = buffered;
        if (buffered == 0) {
            endPartialFrame();
            return;
        }
        if (framesThisRead > 0 || !hadPartial) {
            endPartialFrame(); // the previous frame (if any) completed in this read: a new one began
            partialSinceNanos = limits.clock().nanoTime();
            if (timer == null) {
                timer = ctx.executor().schedule(onTimer, limits.timeoutNanos(), TimeUnit.NANOSECONDS);
            }
        }
        if (partialFrameBytes > 0 && grantedBytes == 0 && !waiting) {
            if (budget.tryGrant(this, partialFrameBytes)) {
                grantedBytes = partialFrameBytes;
            } else {
                waiting = true;
                budget.await(waiter);
                pauseReads(ctx);
            }
        }
    }

    /** The incomplete frame is done (complete or gone): give its grant or its waiting place back. */
    private void endPartialFrame() {
        CoreByteBudget budget = limits.budget();
        if (waiting) {
            waiting = false;
            budget.cancel(waiter);
            resumeReads();
        }
        if (grantedBytes > 0) {
            long bytes = grantedBytes;
            grantedBytes = 0;
            budget.release(this, bytes);
        }
    }

    /** Called by the core's budget on a release while this connection waits; true when done waiting. */
    private boolean budgetReleased() {
        if (released || !waiting) {
            return true;
        }
        if (Deadlines.hasPassed(Deadlines.deadline(partialSinceNanos, limits.timeoutNanos()), limits.clock().nanoTime())) {
            // Too late: it would read a burst only to be closed right after. It leaves the queue still
            // waiting (never granted) and is closed on the next turn of its loop, as the timer would.
            if (ctx != null) {
                ctx.executor().execute(onExpired);
            }
            return true;
        }
        if (!limits.budget().tryGrant(this, partialFrameBytes)) {
            return false;
        }
        grantedBytes = partialFrameBytes;
        waiting = false;
        resumeReads();
        return true;
    }

    private void pauseReads(ChannelHandlerContext ctx) {
        if (paused) {
            return;
        }
        paused = true;
        ChannelConfig config = ctx.channel().config();
        resumeAutoRead = config.isAutoRead();
        readRequested = false;
        if (resumeAutoRead) {
            config.setAutoRead(false);
        }
    }

    private void resumeReads() {
        if (!paused) {
            return;
        }
        paused = false;
        boolean autoRead = resumeAutoRead;
        boolean read = readRequested;
        resumeAutoRead = false;
        readRequested = false;
        if (released) {
            return;
        }
        if (autoRead) {
            ctx.channel().config().setAutoRead(true); // which asks for a read through the pipeline, and us
        } else if (read) {
            ctx.read();
        }
    }

    /** Whether reads are paused because the core's budget cannot take the incomplete frame yet. */
    public boolean waitingForBudget() {
        return waiting;
    }

    private void onTimer() {
        timer = null;
        if (released || timedOut || ctx == null || bufferedBytes() == 0) {
            return; // the next incomplete frame arms it again
        }
        long now = limits.clock().nanoTime();
        long deadline = Deadlines.deadline(partialSinceNanos, limits.timeoutNanos());
        if (!Deadlines.hasPassed(deadline, now)) {
            timer = ctx.executor().schedule(onTimer, Deadlines.remaining(deadline, now) + 1, TimeUnit.NANOSECONDS);
            return;
        }
        timeOut(now);
    }

    /** A waiter whose deadline passed while it waited, found so by a release: closed now, never granted. */
    private void onExpired() {
        if (!released && !timedOut && ctx != null && bufferedBytes() > 0) {
            timeOut(limits.clock().nanoTime());
        }
    }

    /** Tells the handlers after this one (the session logs and counts it), then closes the connection. */
    private void timeOut(long now) {
        timedOut = true;
        CoreByteBudget budget = limits.budget();
        PartialFrameTimeout event = new PartialFrameTimeout(bufferedBytes(), partialFrameBytes, now - partialSinceNanos,
                limits.timeoutNanos(), waiting, grantedBytes, budget.grantedBytes(), budget.limitBytes(),
                budget.largeAboveBytes(), budget.largeGrantTaken());
        ctx.fireUserEventTriggered(event);
        ctx.close();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (paused) {
            // ByteToMessageDecoder would ask for another read when this one decoded nothing and autoRead
            // is off: exactly what a paused connection must not do.
            discardSomeReadBytes();
            ctx.fireChannelReadComplete();
            return;
        }
        super.channelReadComplete(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        releaseLimits();
        compacted = null; // the cumulation is released
        super.channelInactive(ctx);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        releaseLimits();
        compacted = null;
    }

    /** Gives back the grant, the waiting place, the reported bytes and the timer; idempotent. */
    private void releaseLimits() {
        if (released) {
            return;
        }
        released = true;
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        if (limits == null) {
            return;
        }
        CoreByteBudget budget = limits.budget();
        if (waiting) {
            waiting = false;
            budget.cancel(waiter);
        }
        budget.held(-reportedBytes);
        reportedBytes = 0;
        if (grantedBytes > 0) {
            long bytes = grantedBytes;
            grantedBytes = 0;
            budget.release(this, bytes);
        }
    }

    // Outbound: only read() is ours (held while paused); everything else passes through.

    @Override
    public void read(ChannelHandlerContext ctx) {
        if (!paused) {
            ctx.read();
            return;
        }
        ChannelConfig config = ctx.channel().config();
        if (config.isAutoRead()) {
            resumeAutoRead = true; // a later handler turned autoRead on: honoured when we resume
            config.setAutoRead(false);
        } else {
            readRequested = true;
        }
    }

    @Override
    public void bind(ChannelHandlerContext ctx, SocketAddress localAddress, ChannelPromise promise) {
        ctx.bind(localAddress, promise);
    }

    @Override
    public void connect(ChannelHandlerContext ctx, SocketAddress remoteAddress, SocketAddress localAddress,
            ChannelPromise promise) {
        ctx.connect(remoteAddress, localAddress, promise);
    }

    @Override
    public void disconnect(ChannelHandlerContext ctx, ChannelPromise promise) {
        ctx.disconnect(promise);
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        ctx.close(promise);
    }

    @Override
    public void deregister(ChannelHandlerContext ctx, ChannelPromise promise) {
        ctx.deregister(promise);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        ctx.write(msg, promise);
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        ctx.flush();
    }

    /** Bytes received but not yet emitted as a frame: the start of an incomplete frame. */
    public int bufferedBytes() {
        return actualReadableBytes();
    }

    /**
     * The incomplete frame's size as its prefix declares it, prefix included; -1 when there is none or
     * its prefix is incomplete.
     */
    public long partialFrameBytes() {
        return bufferedBytes() == 0 ? -1 : partialFrameBytes;
    }

    /** Capacity of the buffers that hold the incomplete frame (what it really pins in memory). */
    public long heldBufferBytes() {
        return heldBufferBytes;
    }

    /** What the incomplete frame was granted of its core's budget (0 when none). */
    public long grantedBytes() {
        return grantedBytes;
    }

    public int maxFrameBytes() {
        return maxFrameBytes;
    }
}
