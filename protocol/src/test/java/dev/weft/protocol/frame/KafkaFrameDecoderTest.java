package dev.weft.protocol.frame;

import dev.weft.protocol.skim.CountingAllocator;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link KafkaFrameDecoder} driven through an {@link EmbeddedChannel}; every buffer is released (PARANOID leak checks). */
class KafkaFrameDecoderTest {

    private static final int LIMIT = 1024;

    private final EmbeddedChannel channel = new EmbeddedChannel(new KafkaFrameDecoder(LIMIT, "client"));

    @AfterEach
    void closeChannel() {
        channel.finishAndReleaseAll();
    }

    @Test
    void manyFramesInOneReadComeOutInOrderWithoutSizePrefixes() {
        List<byte[]> bodies = new ArrayList<>();
        SplittableRandom random = new SplittableRandom(42);
        ByteBuf in = PooledByteBufAllocator.DEFAULT.directBuffer();
        for (int i = 0; i < 50; i++) {
            byte[] body = new byte[random.nextInt(0, 200)];
            random.nextBytes(body);
            bodies.add(body);
            in.writeInt(body.length).writeBytes(body);
        }
        byte[] partialNext = {0, 0, 0, 9, 1, 2}; // the start of a 51st frame stays behind
        in.writeBytes(partialNext);
        channel.writeInbound(in);
        for (byte[] body : bodies) {
            assertFrame(body, channel.readInbound());
        }
        assertNull(channel.readInbound());
        ByteBuf rest = PooledByteBufAllocator.DEFAULT.directBuffer().writeBytes(new byte[] {3, 4, 5, 6, 7, 8, 9});
        channel.writeInbound(rest);
        assertFrame(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9}, channel.readInbound());
        assertNull(channel.readInbound());
    }

    @Test
    void oneFrameSplitByteByByteAcrossReads() {
        byte[] body = "a frame that arrives one byte per read".getBytes(StandardCharsets.UTF_8);
        byte[] wire = withPrefix(body);
        for (int i = 0; i < wire.length - 1; i++) {
            channel.writeInbound(oneByte(wire[i]));
            assertNull(channel.readInbound(), "emitted a frame after " + (i + 1) + " of " + wire.length + " bytes");
        }
        channel.writeInbound(oneByte(wire[wire.length - 1]));
        assertFrame(body, channel.readInbound());
        assertNull(channel.readInbound());
    }

    @Test
    void frameOfExactlyTheLimitIsAccepted() {
        byte[] body = new byte[LIMIT];
        new SplittableRandom(7).nextBytes(body);
        channel.writeInbound(PooledByteBufAllocator.DEFAULT.directBuffer().writeBytes(withPrefix(body)));
        assertFrame(body, channel.readInbound());
    }

    @Test
    void frameOneOverTheLimitIsRefusedNamingSizeLimitAndPeer() {
        ByteBuf in = PooledByteBufAllocator.DEFAULT.directBuffer().writeInt(LIMIT + 1).writeZero(16);
        FrameSizeException e = assertThrows(FrameSizeException.class, () -> channel.writeInbound(in));
        assertEquals(LIMIT + 1, e.size());
        assertEquals(LIMIT, e.limit());
        assertTrue(e.getMessage().contains("frame of " + (LIMIT + 1) + " bytes"), e.getMessage());
        assertTrue(e.getMessage().contains("limit of " + LIMIT + " bytes"), e.getMessage());
        assertTrue(e.getMessage().contains("from client embedded"), e.getMessage());
        assertTrue(e.getMessage().contains("raise maxFrameBytes"), e.getMessage());
        assertEquals(0, in.refCnt(), "the refused bytes were not released");
        afterFailureEverythingIsDiscarded();
    }

    @Test
    void oversizedPrefixIsRefusedBeforeItsBodyArrives() {
        // The check happens on the 4-byte prefix alone: no buffering up to the claimed size first.
        ByteBuf in = PooledByteBufAllocator.DEFAULT.directBuffer().writeInt(Integer.MAX_VALUE);
        FrameSizeException e = assertThrows(FrameSizeException.class, () -> channel.writeInbound(in));
        assertEquals(Integer.MAX_VALUE, e.size());
    }

    @Test
    void negativeSizeIsRefused() {
        ByteBuf in = PooledByteBufAllocator.DEFAULT.directBuffer().writeInt(-2).writeZero(8);
        FrameSizeException e = assertThrows(FrameSizeException.class, () -> channel.writeInbound(in));
        assertEquals(-2, e.size());
        assertEquals(LIMIT, e.limit());
        assertTrue(e.getMessage().contains("invalid frame size -2 (negative) from client embedded"), e.getMessage());
        afterFailureEverythingIsDiscarded();
    }

    @Test
    void httpRequestOnTheKafkaPortIsNamed() {
        String[] requests = {"GET / HTTP/1.1\r\n", "POST /x HTTP/1.1\r\n", "HEAD / HTTP/1.0\r\n", "PUT /y HTTP/1.1\r\n",
            "DELETE /z HTTP/1.1\r\n", "OPTIONS * HTTP/1.1\r\n", "PATCH /p HTTP/1.1\r\n", "CONNECT h:1 HTTP/1.1\r\n",
            "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"};
        for (String method : requests) {
            EmbeddedChannel http = new EmbeddedChannel(new KafkaFrameDecoder(LIMIT, "client"));
            try {
                ByteBuf in = PooledByteBufAllocator.DEFAULT.directBuffer().writeBytes(method.getBytes(StandardCharsets.US_ASCII));
                FrameSizeException e = assertThrows(FrameSizeException.class, () -> http.writeInbound(in));
                assertTrue(e.getMessage().contains("looks like an HTTP request on the Kafka port"), method + ": " + e.getMessage());
            } finally {
                http.finishAndReleaseAll();
            }
        }
    }

    @Test
    void tlsClientHelloOnAPlaintextPortIsNamed() {
        // A TLS record header: content type 22 (handshake), version 3.1, length 0x0200; then ClientHello (1).
        byte[] hello = {0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, (byte) 0xfc, 0x03, 0x03};
        ByteBuf in = PooledByteBufAllocator.DEFAULT.directBuffer().writeBytes(hello);
        FrameSizeException e = assertThrows(FrameSizeException.class, () -> channel.writeInbound(in));
        assertEquals(0x16030102, e.size());
        assertTrue(e.getMessage().contains("looks like a TLS ClientHello on a plaintext port"), e.getMessage());
    }

    @Test
    void zeroLengthFrameIsAnEmptyFrame() {
        ByteBuf in = PooledByteBufAllocator.DEFAULT.directBuffer().writeInt(0).writeInt(2).writeShort(0x0102);
        channel.writeInbound(in);
        assertFrame(new byte[0], channel.readInbound());
        assertFrame(new byte[] {1, 2}, channel.readInbound());
        assertNull(channel.readInbound());
    }

    @Test
    void partialFrameAtCloseIsDroppedAndReleased() {
        ByteBuf in = PooledByteBufAllocator.DEFAULT.directBuffer().writeInt(10).writeBytes(new byte[] {1, 2, 3});
        channel.writeInbound(in);
        assertNull(channel.readInbound());
        assertFalse(channel.finish(), "a partial frame must not be emitted at close");
    }

    @Test
    void keepSizePrefixEmitsWholeFramesReadyToForwardInOneWrite() {
        EmbeddedChannel forwarding = new EmbeddedChannel(new KafkaFrameDecoder(LIMIT, "broker 3", true));
        try {
            byte[] first = withPrefix("first".getBytes(StandardCharsets.UTF_8));
            byte[] empty = withPrefix(new byte[0]);
            byte[] limit = withPrefix(new byte[LIMIT]);
            byte[] wire = new byte[first.length + empty.length + limit.length];
            System.arraycopy(first, 0, wire, 0, first.length);
            System.arraycopy(empty, 0, wire, first.length, empty.length);
            System.arraycopy(limit, 0, wire, first.length + empty.length, limit.length);
            // Byte by byte up to the middle of the last frame, then the rest in one read.
            int half = first.length + empty.length + limit.length / 2;
            for (int i = 0; i < half; i++) {
                forwarding.writeInbound(oneByte(wire[i]));
            }
            forwarding.writeInbound(PooledByteBufAllocator.DEFAULT.directBuffer().writeBytes(wire, half, wire.length - half));
            assertFrame(first, forwarding.readInbound());
            assertFrame(empty, forwarding.readInbound());
            assertFrame(limit, forwarding.readInbound());
            assertNull(forwarding.readInbound());

            ByteBuf over = PooledByteBufAllocator.DEFAULT.directBuffer().writeInt(LIMIT + 1);
            FrameSizeException e = assertThrows(FrameSizeException.class, () -> forwarding.writeInbound(over));
            assertTrue(e.getMessage().contains("from broker 3 embedded"), e.getMessage());
        } finally {
            forwarding.finishAndReleaseAll();
        }
    }

    @Test
    void sparseReadsAreCompactedSoAnIncompleteFrameNeverPinsMuchMoreThanItsBytes() {
        // A client trickling one byte per TCP segment: each read lands in a 4 KiB buffer. Kept as a
        // composite of those buffers, 32 KiB of frame would pin 128 MiB.
        EmbeddedChannel trickle = new EmbeddedChannel(new KafkaFrameDecoder(1 << 20, "client", true));
        KafkaFrameDecoder decoder = trickle.pipeline().get(KafkaFrameDecoder.class);
        try {
            byte[] body = new byte[32 * 1024];
            new SplittableRandom(11).nextBytes(body);
            byte[] wire = withPrefix(body);
            long mostHeld = 0;
            for (int i = 0; i < wire.length - 1; i++) {
                trickle.writeInbound(PooledByteBufAllocator.DEFAULT.directBuffer(4096).writeByte(wire[i]));
                long held = decoder.heldBufferBytes();
                mostHeld = Math.max(mostHeld, held);
                assertTrue(held <= 2L * decoder.bufferedBytes() + KafkaFrameDecoder.COMPACT_SLACK_BYTES + 4096,
                        "after " + (i + 1) + " one-byte reads the buffers hold " + held + " bytes");
            }
            assertTrue(mostHeld >= KafkaFrameDecoder.COMPACT_SLACK_BYTES, "it did grow before compacting: " + mostHeld);
            assertNull(trickle.readInbound());
            trickle.writeInbound(oneByte(wire[wire.length - 1]));
            assertFrame(wire, trickle.readInbound());
            assertEquals(0, decoder.heldBufferBytes());
        } finally {
            trickle.finishAndReleaseAll();
        }
    }

    @Test
    void aLargeFrameInSparseReadsIsCopiedAboutTwiceAtMostNotOncePerCompaction() {
        // A broker's 8 MiB Fetch response arriving 64 KiB at a time in 1 MiB read buffers.
        CountingAllocator counting = new CountingAllocator();
        EmbeddedChannel upstream = new EmbeddedChannel();
        upstream.config().setAllocator(counting);
        upstream.pipeline().addLast(new KafkaFrameDecoder(16 << 20, "broker 0", true));
        KafkaFrameDecoder decoder = upstream.pipeline().get(KafkaFrameDecoder.class);
        try {
            byte[] body = new byte[8 << 20];
            new SplittableRandom(17).nextBytes(body);
            byte[] wire = withPrefix(body);
            int chunk = 64 * 1024;
            for (int at = 0; at < wire.length; at += chunk) {
                int n = Math.min(chunk, wire.length - at);
                upstream.writeInbound(PooledByteBufAllocator.DEFAULT.directBuffer(1 << 20).writeBytes(wire, at, n));
                if (at + n < wire.length) {
                    assertTrue(decoder.heldBufferBytes() <= 2L * decoder.bufferedBytes() + KafkaFrameDecoder.COMPACT_SLACK_BYTES
                            + (1 << 20), "held " + decoder.heldBufferBytes() + " for " + decoder.bufferedBytes() + " bytes");
                }
            }
            assertFrame(wire, upstream.readInbound());
            // Each compaction copies the frame so far into twice its size, and sparse reads fill that room:
            // the decoder allocates (and copies) well under 4x the frame, where copying everything at every
            // compaction took ~16x.
            assertTrue(counting.requested < 4L * wire.length, "the decoder allocated " + counting.requested + " bytes for a "
                    + wire.length + "-byte frame");
        } finally {
            upstream.finishAndReleaseAll();
        }
    }

    @Test
    void denseReadsAreNeverCopied() {
        EmbeddedChannel bulk = new EmbeddedChannel(new KafkaFrameDecoder(1 << 20, "client", true));
        KafkaFrameDecoder decoder = bulk.pipeline().get(KafkaFrameDecoder.class);
        try {
            byte[] body = new byte[512 * 1024];
            new SplittableRandom(13).nextBytes(body);
            byte[] wire = withPrefix(body);
            int chunk = 64 * 1024;
            int at = 0;
            while (wire.length - at > chunk) {
                bulk.writeInbound(PooledByteBufAllocator.DEFAULT.directBuffer(chunk, chunk).writeBytes(wire, at, chunk));
                at += chunk;
                // The buffers hold exactly the frame's bytes: they are the reads' own, not a copy.
                assertEquals(decoder.bufferedBytes(), decoder.heldBufferBytes());
            }
            ByteBuf last = PooledByteBufAllocator.DEFAULT.directBuffer(wire.length - at).writeBytes(wire, at, wire.length - at);
            bulk.writeInbound(last);
            assertFrame(wire, bulk.readInbound());
        } finally {
            bulk.finishAndReleaseAll();
        }
    }

    @Test
    void rejectsANonPositiveLimit() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new KafkaFrameDecoder(0, "client"));
        assertEquals("maxFrameBytes must be positive, was 0", e.getMessage());
    }

    /** The stream cannot be resynchronised after a bad size: later bytes are swallowed, never framed. */
    private void afterFailureEverythingIsDiscarded() {
        ByteBuf later = PooledByteBufAllocator.DEFAULT.directBuffer().writeInt(2).writeShort(7);
        channel.writeInbound(later);
        assertNull(channel.readInbound());
        assertEquals(0, later.refCnt());
    }

    private static ByteBuf oneByte(byte b) {
        return PooledByteBufAllocator.DEFAULT.directBuffer(1).writeByte(b);
    }

    private static byte[] withPrefix(byte[] body) {
        byte[] wire = new byte[4 + body.length];
        wire[0] = (byte) (body.length >>> 24);
        wire[1] = (byte) (body.length >>> 16);
        wire[2] = (byte) (body.length >>> 8);
        wire[3] = (byte) body.length;
        System.arraycopy(body, 0, wire, 4, body.length);
        return wire;
    }

    /** Checks a frame's bytes and releases it: the decoder handed over ownership. */
    private static void assertFrame(byte[] expected, Object frame) {
        ByteBuf buf = (ByteBuf) frame;
        try {
            assertArrayEquals(expected, ByteBufUtil.getBytes(buf));
        } finally {
            buf.release();
        }
    }
}
