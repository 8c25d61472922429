package dev.weft.protocol.skim;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;

/**
 * Delegates to the pooled allocator and counts the buffers asked of it (composites are not counted):
 * a builder whose size hint is right takes one metadata chunk per frame.
 */
public final class ChunkCountingAllocator extends AbstractByteBufAllocator {

    public int buffers;

    public ChunkCountingAllocator() {
        super(true);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        buffers++;
        return PooledByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        buffers++;
        return PooledByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return true;
    }
}
