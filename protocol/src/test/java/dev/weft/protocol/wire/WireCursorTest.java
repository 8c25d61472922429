package dev.weft.protocol.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.testing.OracleSeed;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.apache.kafka.common.utils.internals.ByteUtils;
import org.junit.jupiter.api.Test;

/** {@link WireCursor} against kafka-clients' {@link ByteUtils} encodings, and its refusals. */
class WireCursorTest {

    @Test
    void varintsMatchKafkaClients() {
        long seed = OracleSeed.base();
        SplittableRandom random = new SplittableRandom(seed);
        ByteBuffer nio = ByteBuffer.allocate(10);
        ByteBuf buf = Unpooled.wrappedBuffer(nio.array());
        WireCursor cursor = new WireCursor();
        try {
            for (int i = 0; i < 20_000; i++) {
                int value = switch (i) {
                    case 0 -> 0;
                    case 1 -> -1;
                    case 2 -> Integer.MIN_VALUE;
                    case 3 -> Integer.MAX_VALUE;
                    default -> random.nextInt() >> random.nextInt(32);
                };
                nio.clear();
                ByteUtils.writeUnsignedVarint(value, nio);
                int unsignedLength = nio.position();
                assertEquals(value, cursor.wrap(buf, 0, unsignedLength).readUnsignedVarint(), "uvarint " + value + ", " + OracleSeed.replay(seed));
                assertEquals(unsignedLength, cursor.position());
                nio.clear();
                ByteUtils.writeVarint(value, nio);
                assertEquals(value, cursor.wrap(buf, 0, nio.position()).readVarint(), "varint " + value + ", " + OracleSeed.replay(seed));
                assertEquals(nio.position(), cursor.position());
            }
        } finally {
            buf.release();
        }
    }

    @Test
    void skipsEveryStringAndBytesShape() {
        ByteBuf buf = Unpooled.buffer()
                .writeShort(3).writeBytes("abc".getBytes())      // STRING
                .writeShort(-1)                                  // NULLABLE_STRING null
                .writeByte(4).writeBytes("xyz".getBytes())       // COMPACT_STRING (length + 1)
                .writeByte(0)                                    // COMPACT_NULLABLE_STRING null
                .writeInt(2).writeShort(0x0102)                  // BYTES
                .writeInt(-1)                                    // NULLABLE_BYTES null
                .writeByte(2)                                    // two tagged fields
                .writeByte(0).writeByte(1).writeByte(9)          // tag 0, 1 byte
                .writeByte(0x80).writeByte(0x01).writeByte(0);   // tag 128, empty
        try {
            WireCursor cursor = new WireCursor().wrap(buf);
            assertEquals(3, cursor.skipString("s"));
            assertEquals(-1, cursor.skipString("ns"));
            assertEquals(3, cursor.skipCompactString("cs"));
            assertEquals(-1, cursor.skipCompactString("cns"));
            assertEquals(2, cursor.skipBytes("b"));
            assertEquals(-1, cursor.skipBytes("nb"));
            cursor.skipTaggedFields();
            assertEquals(0, cursor.remaining());
        } finally {
            buf.release();
        }
    }

    @Test
    void truncatedAndLyingLengthsAreMalformed() {
        ByteBuf buf = Unpooled.buffer().writeShort(10).writeBytes(new byte[3]);
        ByteBuf negative = Unpooled.buffer().writeShort(-2);
        // An unsigned varint of 0xffffffff: a compact length of 2^32 - 2, over anything real.
        ByteBuf huge = Unpooled.buffer().writeBytes(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f});
        ByteBuf endless = Unpooled.buffer().writeBytes(new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 1});
        try {
            MalformedFrameException e = assertThrows(MalformedFrameException.class, () -> new WireCursor().wrap(buf).skipString("client_id"));
            assertEquals("truncated frame: client_id needs 10 bytes at offset 2 but only 3 remain", e.getMessage());
            e = assertThrows(MalformedFrameException.class, () -> new WireCursor().wrap(negative).skipString("topic"));
            assertEquals("invalid length -2 for topic at offset 0", e.getMessage());
            e = assertThrows(MalformedFrameException.class, () -> new WireCursor().wrap(huge).skipCompactString("topic"));
            assertEquals("invalid compact length 4294967295 for topic at offset 5", e.getMessage());
            e = assertThrows(MalformedFrameException.class, () -> new WireCursor().wrap(endless).readUnsignedVarint());
            assertTrue(e.getMessage().startsWith("unsigned varint longer than 5 bytes"), e.getMessage());
            e = assertThrows(MalformedFrameException.class, () -> new WireCursor().wrap(buf, 0, 1).readInt16());
            assertEquals("truncated frame: int16 needs 2 bytes at offset 0 but only 1 remain", e.getMessage());
        } finally {
            buf.release();
            negative.release();
            huge.release();
            endless.release();
        }
    }
}
