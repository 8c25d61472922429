package dev.weft.protocol.header;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.util.SplittableRandom;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.ResponseHeader;
import org.junit.jupiter.api.Test;

/**
 * {@link ResponseHeaderView} against kafka-clients' {@link ResponseHeader}: every API key and version,
 * random correlation ids, unknown tagged fields in v1 headers, at a random offset with body bytes after.
 */
class ResponseHeaderViewOracleTest {

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
                    checkOne(key, v, random, key.name + " v" + v + " response header #" + i + ", " + OracleSeed.replay(SEED));
                    checked++;
                }
            }
        }
        assertTrue(checked > 250 * HEADERS_PER_VERSION, "checked only " + checked);
    }

    private static void checkOne(ApiKeys key, short version, SplittableRandom random, String where) {
        short headerVersion = key.responseHeaderVersion(version);
        ResponseHeaderData data = new RandomHeaders(random).response(headerVersion);
        ResponseHeader oracle = new ResponseHeader(data, headerVersion);
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
            ResponseHeaderView view = new ResponseHeaderView().wrap(buf, offset);
            assertEquals(data.correlationId(), view.correlationId(), where);
            assertEquals(data.correlationId(), ResponseHeaderView.correlationId(buf, offset), where);
            assertEquals(oracle.size(), view.headerLength(key.id, version), where);

            int patched = random.nextInt();
            view.correlationId(patched);
            assertEquals(patched, view.correlationId(), where);
            ByteBuffer nio = buf.nioBuffer(offset, buf.writerIndex() - offset);
            ResponseHeader reparsed = ResponseHeader.parse(nio, headerVersion);
            assertEquals(patched, reparsed.correlationId(), where);
            // Not duplicate(): generated duplicates drop unknown tagged fields, and those must survive too.
            int original = data.correlationId();
            assertEquals(data.setCorrelationId(patched), reparsed.data(), where);
            data.setCorrelationId(original);
            assertEquals(oracle.size(), nio.position(), where);

            ResponseHeaderView.correlationId(buf, offset, data.correlationId());
            assertEquals(data.correlationId(), ResponseHeader.parse(buf.nioBuffer(offset, header.length), headerVersion).correlationId(), where);
        } finally {
            buf.release();
        }
        for (int cut = 0; cut < header.length; cut++) {
            ByteBuf truncated = Unpooled.wrappedBuffer(header, 0, cut);
            try {
                assertThrows(MalformedFrameException.class,
                        () -> new ResponseHeaderView().wrap(truncated).headerLength(key.id, version),
                        where + " cut at " + cut + " of " + header.length);
            } finally {
                truncated.release();
            }
        }
    }

    @Test
    void unsupportedVersionHasNoHeaderLength() {
        ByteBuf buf = Unpooled.buffer(8).writeInt(5).writeByte(0);
        try {
            ResponseHeaderView view = new ResponseHeaderView().wrap(buf);
            short tooNew = (short) (ApiKeys.FETCH.latestVersion(true) + 1);
            MalformedFrameException e = assertThrows(MalformedFrameException.class, () -> view.headerLength(ApiKeys.FETCH.id, tooNew));
            assertEquals("unsupported Fetch version " + tooNew + ": response header layout unknown", e.getMessage());
            assertThrows(MalformedFrameException.class, () -> view.headerLength(ApiKeys.LEADER_AND_ISR.id, 0));
        } finally {
            buf.release();
        }
    }
}
