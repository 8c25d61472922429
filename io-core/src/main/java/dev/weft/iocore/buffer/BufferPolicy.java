package dev.weft.iocore.buffer;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelOption;
import io.netty.channel.RecvByteBufAllocator;
import java.util.Objects;

/**
 * How Weft allocates buffers: one pooled, direct-preferring allocator for the whole process, and reads
 * sized by an adaptive predictor that grows to a large maximum under bulk traffic (fewer syscalls per
 * byte) and shrinks again for chatty connections.
 *
 * <p>Configure once at startup and apply the same instance to every server and client bootstrap
 * ({@link #applyTo(ServerBootstrap)}, {@link #applyTo(Bootstrap)}) so all channels share the pool.
 *
 * <p>Why the maximum is bounded: the hot path forwards retained slices of read buffers, so one read
 * buffer stays alive until the last slice of it is written. A bigger maximum means fewer reads but more
 * memory held per connection while a slice waits on a slow peer.
 */
public final class BufferPolicy {

    /** Smallest read buffer: enough for a Kafka heartbeat or metadata request in one read. */
    public static final int DEFAULT_RECV_MINIMUM = 1024;
    /** First guess for a new connection. */
    public static final int DEFAULT_RECV_INITIAL = 16 * 1024;
    /** Largest read buffer: fetch responses stream through in 1 MiB reads. */
    public static final int DEFAULT_RECV_MAXIMUM = 1024 * 1024;
    /** A single read above this is a configuration mistake. */
    public static final int MAX_RECV_MAXIMUM = 64 * 1024 * 1024;

    private final ByteBufAllocator allocator;
    private final int recvMinimum;
    private final int recvInitial;
    private final int recvMaximum;
    private final RecvByteBufAllocator recvAllocator;

    private BufferPolicy(ByteBufAllocator allocator, int recvMinimum, int recvInitial, int recvMaximum) {
        this.allocator = Objects.requireNonNull(allocator, "allocator");
        if (recvMinimum < 64) {
            throw new IllegalArgumentException("recvMinimum: " + recvMinimum + " is below 64 bytes");
        }
        if (recvInitial < recvMinimum) {
            throw new IllegalArgumentException("recvInitial: " + recvInitial + " is below recvMinimum " + recvMinimum);
        }
        if (recvMaximum < recvInitial) {
            throw new IllegalArgumentException("recvMaximum: " + recvMaximum + " is below recvInitial " + recvInitial);
        }
        if (recvMaximum > MAX_RECV_MAXIMUM) {
            throw new IllegalArgumentException("recvMaximum: " + recvMaximum + " is above the limit " + MAX_RECV_MAXIMUM);
        }
        this.recvMinimum = recvMinimum;
        this.recvInitial = recvInitial;
        this.recvMaximum = recvMaximum;
        // Stateless and shareable: each channel gets its own Handle from newHandle().
        this.recvAllocator = new AdaptiveRecvByteBufAllocator(recvMinimum, recvInitial, recvMaximum);
    }

    /** The shared pooled direct allocator with the default read sizes (1 KiB, 16 KiB, 1 MiB). */
    public static BufferPolicy defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The process-wide pooled allocator that prefers direct buffers (sockets read and write direct
     * memory without a copy). One instance per process so every loop thread's cache sits on one pool.
     */
    public static PooledByteBufAllocator sharedPooledDirect() {
        return SharedPool.INSTANCE;
    }

    /** The allocator every channel uses; {@code buffer()} and {@code ioBuffer()} return direct buffers. */
    public ByteBufAllocator allocator() {
        return allocator;
    }

    /** The read-size predictor every channel uses (adaptive between the minimum and maximum). */
    public RecvByteBufAllocator recvAllocator() {
        return recvAllocator;
    }

    public int recvMinimum() {
        return recvMinimum;
    }

    public int recvInitial() {
        return recvInitial;
    }

    public int recvMaximum() {
        return recvMaximum;
    }

    /** Sets the allocator and read sizing on the listening channel and on every accepted channel. */
    public ServerBootstrap applyTo(ServerBootstrap bootstrap) {
        return bootstrap
                .option(ChannelOption.ALLOCATOR, allocator)
                .childOption(ChannelOption.ALLOCATOR, allocator)
                .childOption(ChannelOption.RECVBUF_ALLOCATOR, recvAllocator);
    }

    /** Sets the allocator and read sizing on client (upstream) channels. */
    public Bootstrap applyTo(Bootstrap bootstrap) {
        return bootstrap
                .option(ChannelOption.ALLOCATOR, allocator)
                .option(ChannelOption.RECVBUF_ALLOCATOR, recvAllocator);
    }

    /** Applies the policy to a channel created without a bootstrap (e.g. in tests). */
    public void applyTo(ChannelConfig config) {
        config.setAllocator(allocator);
        config.setRecvByteBufAllocator(recvAllocator);
    }

    @Override
    public String toString() {
        return "BufferPolicy[allocator=" + allocator.getClass().getSimpleName() + ", recv=" + recvMinimum + ".."
                + recvInitial + ".." + recvMaximum + "]";
    }

    /** Builds a {@link BufferPolicy}; every setting has a default. */
    public static final class Builder {
        private ByteBufAllocator allocator;
        private int recvMinimum = DEFAULT_RECV_MINIMUM;
        private int recvInitial = DEFAULT_RECV_INITIAL;
        private int recvMaximum = DEFAULT_RECV_MAXIMUM;

        private Builder() {
        }

        /** Overrides the allocator (default {@link #sharedPooledDirect()}). */
        public Builder allocator(ByteBufAllocator allocator) {
            this.allocator = Objects.requireNonNull(allocator, "allocator");
            return this;
        }

        public Builder recvMinimum(int bytes) {
            this.recvMinimum = bytes;
            return this;
        }

        public Builder recvInitial(int bytes) {
            this.recvInitial = bytes;
            return this;
        }

        public Builder recvMaximum(int bytes) {
            this.recvMaximum = bytes;
            return this;
        }

        public BufferPolicy build() {
            return new BufferPolicy(allocator != null ? allocator : sharedPooledDirect(), recvMinimum, recvInitial,
                    recvMaximum);
        }
    }

    /** Created on first use, so merely loading BufferPolicy allocates no arenas. */
    private static final class SharedPool {
        static final PooledByteBufAllocator INSTANCE = new PooledByteBufAllocator(true);
    }
}
