package dev.weft.protocol.header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.testing.KafkaWire;
import dev.weft.protocol.testing.OracleSeed;
import dev.weft.protocol.testing.RandomHeaders;
import dev.weft.protocol.wire.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

/**
 * {@link RequestHeaderView} against kafka-clients' {@link RequestHeader}: every API key, every version,
 * random headers (null, empty, non-ASCII and long client ids; unknown tagged fields in v2 headers),
 * placed at a random offset in a pooled direct buffer with body bytes after them.
 */
class RequestHeaderViewOracleTest {

    private static final int HEADERS_PER_VERSION = 40;
    private static final long SEED = OracleSeed.base();

    @Test
    void readsAndPatchesEveryApiKeyAndVersionLikeKafkaClients() {
        int checked = 0;
        for (ApiKeys key : ApiKeys.values()) {
            if (!key.hasValidVersion()) {
                continue;
            }
            for (short v = key.oldestVersion(); v <= key.latestVersion(true); v++) {
                for (int i = 0; i < HEADERS_PER_VERSION; i++) {
                    SplittableRandom random = OracleSeed.forCase(SEED, key.id, v, i);
                    checkOne(key, v, random, key.name + " v" + v + " header #" + i + ", " + OracleSeed.replay(SEED));
                    checked++;
                }
            }
        }
        assertTrue(checked > 250 * HEADERS_PER_VERSION, "checked only " + checked);
    }

    private static void checkOne(ApiKeys key, short version, SplittableRandom random, String where) {
        short headerVersion = key.requestHeaderVersion(version);
        RequestHeaderData data = new RandomHeaders(random).request(key.id, version, headerVersion);
        RequestHeader oracle = new RequestHeader(data, headerVersion);
        byte[] header = KafkaWire.bytes(data, headerVersion);
        assertEquals(oracle.size(), header.length, where);

        int offset = random.nextInt(0, 9);
        int bodyBytes = random.nextInt(0, 24);
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(offset + header.length + bodyBytes);
        try {
            buf.writeZero(offset).writeBytes(header);
            for (int i = 0; i < bodyBytes; i++) {
                buf.writeByte(random.nextInt(256));
            }
            RequestHeaderView view = new RequestHeaderView().wrap(buf, offset);
            assertEquals(key.id, view.apiKey(), where);
            assertEquals(version, view.apiVersion(), where);
            assertEquals(data.correlationId(), view.correlationId(), where);
            assertEquals(data.clientId(), view.clientId(), where);
            assertEquals(data.clientId() == null ? -1 : data.clientId().getBytes(StandardCharsets.UTF_8).length,
                    view.clientIdLength(), where);
            assertEquals(headerVersion, view.headerVersion(), where);
            assertTrue(view.isSupported(), where);
            assertEquals(oracle.size(), view.headerLength(), where);
            assertEquals(offset + oracle.size(), view.bodyOffset(), where);
            assertEquals(key.id, RequestHeaderView.apiKey(buf, offset), where);
            assertEquals(version, RequestHeaderView.apiVersion(buf, offset), where);

            int patched = random.nextInt();
            view.correlationId(patched);
            assertEquals(patched, view.correlationId(), where);
            ByteBuffer nio = buf.nioBuffer(offset, buf.writerIndex() - offset);
            RequestHeader reparsed = RequestHeader.parse(nio);
            assertEquals(patched, reparsed.correlationId(), where);
            // kafka-clients reads a null client id as "" (RequestHeader.parse says why: a protocol quirk).
            // Not duplicate(): generated duplicates drop unknown tagged fields, and those must survive too.
            data.setCorrelationId(patched).setClientId(data.clientId() == null ? "" : data.clientId());
            assertEquals(data, reparsed.data(), where);
            assertEquals(oracle.size(), nio.position(), where);
        } finally {
            buf.release();
        }
        if (random.nextInt(4) == 0) {
            truncationsAreMalformed(header, random, where);
        }
    }

    /**
     * Each strict prefix of a header lacks bytes the header needs: a clear error, never an index
     * exception. Every cut near the ends (fixed fields, client id length, tagged fields) and a sample
     * of the cuts inside long client ids.
     */
    private static void truncationsAreMalformed(byte[] header, SplittableRandom random, String where) {
        for (int cut = 0; cut < header.length; cut++) {
            if (cut > 64 && cut < header.length - 64 && random.nextInt(64) != 0) {
                continue;
            }
            ByteBuf truncated = Unpooled.wrappedBuffer(header, 0, cut);
            try {
                RequestHeaderView view = new RequestHeaderView();
                assertThrows(MalformedFrameException.class, () -> view.wrap(truncated).headerLength(),
                        where + " cut at " + cut + " of " + header.length);
            } finally {
                truncated.release();
            }
        }
    }

    @Test
    void unsupportedVersionsAndUnknownKeysHaveNoHeaderLength() {
        ByteBuf buf = Unpooled.buffer(16);
        try {
            ApiKeys metadata = ApiKeys.METADATA;
            short tooNew = (short) (metadata.latestVersion(true) + 1);
            buf.writeShort(metadata.id).writeShort(tooNew).writeInt(7).writeShort(-1);
            RequestHeaderView view = new RequestHeaderView().wrap(buf);
            assertFalse(view.isSupported());
            assertEquals(7, view.correlationId());
            MalformedFrameException e = assertThrows(MalformedFrameException.class, view::headerLength);
            assertEquals("unsupported Metadata version " + tooNew + ": header layout unknown", e.getMessage());

            buf.setShort(0, 999);
            e = assertThrows(MalformedFrameException.class, new RequestHeaderView().wrap(buf)::headerLength);
            assertTrue(e.getMessage().startsWith("unsupported UnknownApiKey(999) version"), e.getMessage());

            buf.setShort(0, ApiKeys.PRODUCE.id).setShort(2, 0); // Produce v0-v2 are gone since Kafka 4.0
            assertFalse(new RequestHeaderView().wrap(buf).isSupported());
        } finally {
            buf.release();
        }
    }

    @Test
    void clientIdLongerThanTheFrameIsMalformed() {
        ByteBuf buf = Unpooled.buffer(16);
        try {
            buf.writeShort(ApiKeys.METADATA.id).writeShort(12).writeInt(1).writeShort(100).writeBytes(new byte[3]);
            RequestHeaderView view = new RequestHeaderView().wrap(buf);
            MalformedFrameException e = assertThrows(MalformedFrameException.class, view::clientId);
            assertTrue(e.getMessage().contains("client_id of 100 bytes"), e.getMessage());
            assertThrows(MalformedFrameException.class, view::headerLength);

            buf.setShort(RequestHeaderView.CLIENT_ID_LENGTH_OFFSET, -2);
            e = assertThrows(MalformedFrameException.class, new RequestHeaderView().wrap(buf)::clientId);
            assertEquals("invalid client_id length -2", e.getMessage());
            assertThrows(MalformedFrameException.class, new RequestHeaderView().wrap(buf)::headerLength);
        } finally {
            buf.release();
        }
    }
}
