package dev.weft.iocore.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

class BufferPolicyTest {

    @Test
    void defaultsArePooledDirectWithBigAdaptiveReads() {
        BufferPolicy policy = BufferPolicy.defaults();
        assertSame(BufferPolicy.sharedPooledDirect(), policy.allocator(), "one pool per process");
        PooledByteBufAllocator pool = (PooledByteBufAllocator) policy.allocator();
        assertTrue(pool.isDirectBufferPooled());
        ByteBuf buffer = policy.allocator().buffer(128); // returns retained: released below
        try {
            assertTrue(buffer.isDirect());
        } finally {
            buffer.release();
        }
        assertEquals(1024, policy.recvMinimum());
        assertEquals(16 * 1024, policy.recvInitial());
        assertEquals(1024 * 1024, policy.recvMaximum());
    }

    @Test
    void readsGrowToTheMaximumUnderBulkTrafficAndNeverBeyond() {
        BufferPolicy policy = BufferPolicy.builder().recvMinimum(1024).recvInitial(16 * 1024).recvMaximum(256 * 1024).build();
        EmbeddedChannel channel = new EmbeddedChannel();
        try {
            policy.applyTo(channel.config());
            RecvByteBufAllocator.ExtendedHandle handle = (RecvByteBufAllocator.ExtendedHandle)
                    channel.config().<RecvByteBufAllocator>getRecvByteBufAllocator().newHandle();
            assertEquals(16 * 1024, handle.guess(), "a new connection starts at the initial size");

            int largest = 0;
            for (int round = 0; round < 50; round++) {
                int guess = guessAfterRead(handle, channel, Fill.FULL);
                assertTrue(guess <= 256 * 1024, "read size " + guess + " exceeds the maximum");
                largest = Math.max(largest, guess);
            }
            assertEquals(256 * 1024, largest, "full reads grow the read size to the maximum");

            int smallest = Integer.MAX_VALUE;
            for (int round = 0; round < 200; round++) {
                smallest = Math.min(smallest, guessAfterRead(handle, channel, Fill.TINY));
            }
            assertEquals(1024, smallest, "chatty traffic shrinks the read size back to the minimum");
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    @Test
    void rejectsInconsistentSizes() {
        assertThrows(IllegalArgumentException.class, () -> BufferPolicy.builder().recvMinimum(32).build());
        assertThrows(IllegalArgumentException.class,
                () -> BufferPolicy.builder().recvMinimum(8192).recvInitial(4096).build());
        assertThrows(IllegalArgumentException.class,
                () -> BufferPolicy.builder().recvInitial(64 * 1024).recvMaximum(32 * 1024).build());
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> BufferPolicy.builder().recvMaximum(BufferPolicy.MAX_RECV_MAXIMUM + 1).build());
        assertTrue(error.getMessage().startsWith("recvMaximum: "), error.getMessage());
    }

    private enum Fill { FULL, TINY }

    /**
     * Simulates one read loop iteration the way a Netty channel drives its handle, and returns the
     * size the handle will use for the next read.
     */
    private static int guessAfterRead(RecvByteBufAllocator.ExtendedHandle handle, EmbeddedChannel channel, Fill fill) {
        handle.reset(channel.config());
        ByteBuf buffer = handle.allocate(channel.alloc()); // returns retained: released below
        try {
            int capacity = buffer.writableBytes();
            int read = fill == Fill.FULL ? capacity : 100;
            handle.attemptedBytesRead(capacity);
            handle.lastBytesRead(read);
            handle.incMessagesRead(1);
            handle.readComplete();
        } finally {
            buffer.release();
        }
        return handle.guess();
    }
}
