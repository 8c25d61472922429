package dev.weft.protocol.cold;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.protocol.header.RequestHeaderView;
import dev.weft.protocol.header.ResponseHeaderView;
import dev.weft.protocol.testing.KafkaWire;
import dev.weft.protocol.testing.OracleSeed;
import dev.weft.protocol.testing.RandomHeaders;
import dev.weft.protocol.testing.RandomSchemaBytes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * kafka-clients as the oracle for the cold path, property-style, after kafka's own {@code MessageTest}:
 * for every API key and every version kafka-clients 4.4 knows, request and response bodies, many random
 * messages each.
 *
 * <p>Per message: {@link RandomSchemaBytes} writes random bytes for the version's schema and
 * kafka-clients reads them into its {@code *Data} object (the random message). kafka-clients'
 * {@code SendBuilder} frames it (size prefix, random header, body) exactly as a client or broker puts
 * it on a socket. All the frames of one version go as one byte stream, cut into random reads, through
 * {@link KafkaFrameDecoder}; each frame's header is read with {@link RequestHeaderView} /
 * {@link ResponseHeaderView} and {@link ColdCodec#readRequestHeader}, its body with {@link ColdCodec},
 * then re-encoded with {@link ColdCodec}. The re-encoded frame must be byte-identical to kafka-clients'
 * frame, and kafka-clients must parse it back to an equal message.
 *
 * <p>{@code -Dweft.oracle.messages=N} sets messages per key, version and direction (default 40);
 * {@code -Dweft.oracle.seed=S} replays a failure (every failure message names its seed).
 */
class ColdCodecOracleTest {

    private static final int MESSAGES = Integer.getInteger("weft.oracle.messages", 40); // the seed differs every run: coverage adds up over runs
    private static final long SEED = OracleSeed.base();
    private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

    private static int keysChecked;
    private static int versionsChecked;
    private static long requestsChecked;
    private static long responsesChecked;
    private static long bytesChecked;
    private static long startNanos;

    private enum Direction { REQUEST, RESPONSE }

    /** One random message and what kafka-clients made of it. */
    private record Case(int index, ApiMessage message, RequestHeaderData requestHeader, int correlationId, byte[] frame) {
    }

    @TestFactory
    Stream<DynamicTest> everyApiKeyEveryVersionRoundTripsByteForByte() {
        startNanos = System.nanoTime();
        return Arrays.stream(ApiKeys.values())
                .filter(ApiKeys::hasValidVersion)
                .map(key -> DynamicTest.dynamicTest(
                        key.name + " (" + key.id + ") v" + key.oldestVersion() + "-" + key.latestVersion(true),
                        () -> checkKey(key)));
    }

    @AfterAll
    static void summary() {
        long millis = (System.nanoTime() - startNanos) / 1_000_000;
        System.out.println("oracle: " + keysChecked + " api keys, " + versionsChecked + " versions, "
                + requestsChecked + " requests + " + responsesChecked + " responses round-tripped ("
                + MESSAGES + " per key/version/direction, " + bytesChecked + " frame bytes, "
                + millis + " ms, " + OracleSeed.replay(SEED) + ")");
        System.out.println("oracle generator: " + RandomSchemaBytes.Coverage.summary());
        Set<String> typesInSchemas = new TreeSet<>();
        for (ApiMessageType type : ApiMessageType.values()) {
            typesInSchemas.addAll(RandomSchemaBytes.typesOf(type.requestSchemas()));
            typesInSchemas.addAll(RandomSchemaBytes.typesOf(type.responseSchemas()));
        }
        Set<String> missing = new TreeSet<>(typesInSchemas);
        missing.removeAll(RandomSchemaBytes.Coverage.TYPES);
        assertEquals(Set.of(), missing, "wire types used by some schema but never generated");
        assertTrue(RandomSchemaBytes.Coverage.UNKNOWN_TAGGED_FIELDS.sum() > 0, "no unknown tagged fields generated");
        assertTrue(RandomSchemaBytes.Coverage.KNOWN_TAGGED_FIELDS.sum() > 0, "no known tagged fields generated");
        assertTrue(RandomSchemaBytes.Coverage.RECORD_BATCHES.sum() > 0, "no record batches generated");
        assertTrue(RandomSchemaBytes.Coverage.NULLS.sum() > 0, "no nulls generated");
        assertTrue(RandomSchemaBytes.Coverage.NON_ASCII_STRINGS.sum() > 0, "no non-ASCII strings generated");
        long keysWithVersions = Arrays.stream(ApiKeys.values()).filter(ApiKeys::hasValidVersion).count();
        int versions = Arrays.stream(ApiKeys.values()).filter(ApiKeys::hasValidVersion)
                .mapToInt(k -> k.latestVersion(true) - k.oldestVersion() + 1).sum();
        // Nothing may be skipped silently: every key and version kafka-clients knows was covered.
        assertEquals(keysWithVersions, keysChecked, "api keys covered");
        assertEquals(versions, versionsChecked, "versions covered");
        assertEquals((long) versions * MESSAGES, requestsChecked, "requests round-tripped");
        assertEquals((long) versions * MESSAGES, responsesChecked, "responses round-tripped");
    }

    private static void checkKey(ApiKeys key) {
        ApiMessageType type = ApiMessageType.fromApiKey(key.id);
        for (short v = key.oldestVersion(); v <= key.latestVersion(true); v++) {
            checkVersion(key, type, v, Direction.REQUEST);
            checkVersion(key, type, v, Direction.RESPONSE);
            versionsChecked++;
        }
        keysChecked++;
    }

    private static void checkVersion(ApiKeys key, ApiMessageType type, short version, Direction direction) {
        String what = key.name + " v" + version + " " + direction.name().toLowerCase();
        Schema schema = (direction == Direction.REQUEST ? type.requestSchemas() : type.responseSchemas())[version];
        assertNotNull(schema, what + ": kafka-clients has no schema");

        Set<Integer> reservedTags = RandomSchemaBytes.tagsOfAnyVersion(
                direction == Direction.REQUEST ? type.requestSchemas() : type.responseSchemas());
        List<Case> cases = new ArrayList<>(MESSAGES);
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        for (int i = 0; i < MESSAGES; i++) {
            Case c = newCase(key, type, version, direction, schema, reservedTags, i, what);
            cases.add(c);
            stream.writeBytes(c.frame());
        }
        byte[] wire = stream.toByteArray();
        SplittableRandom random = OracleSeed.forCase(SEED, key.id, version, direction.ordinal(), -1);
        boolean keepSizePrefix = random.nextBoolean();
        List<ByteBuf> frames = decodeFrames(wire, random, keepSizePrefix, what);
        try {
            assertEquals(MESSAGES, frames.size(), what + ": frames out of the decoder, " + OracleSeed.replay(SEED));
            for (int i = 0; i < MESSAGES; i++) {
                Case c = cases.get(i);
                String where = what + " #" + i + ", " + OracleSeed.replay(SEED);
                ByteBuf frame = frames.get(i);
                if (keepSizePrefix) {
                    // The forwarding form: the whole frame as it arrived, for one write upstream.
                    assertArrayEquals(c.frame(), ByteBufUtil.getBytes(frame), where + ": frame with size prefix");
                    frame = frame.slice(frame.readerIndex() + KafkaFrameDecoder.SIZE_PREFIX_BYTES,
                            frame.readableBytes() - KafkaFrameDecoder.SIZE_PREFIX_BYTES);
                }
                if (direction == Direction.REQUEST) {
                    checkRequest(key, type, version, c, frame, where);
                    requestsChecked++;
                } else {
                    checkResponse(key, type, version, c, frame, where);
                    responsesChecked++;
                }
            }
            bytesChecked += wire.length;
        } finally {
            frames.forEach(ByteBuf::release);
        }
    }

    private static Case newCase(ApiKeys key, ApiMessageType type, short version, Direction direction, Schema schema,
                                Set<Integer> reservedTags, int index, String what) {
        SplittableRandom random = OracleSeed.forCase(SEED, key.id, version, direction.ordinal(), index);
        byte[] generated = new RandomSchemaBytes(random, reservedTags).generate(schema);
        ApiMessage message = direction == Direction.REQUEST ? type.newRequest() : type.newResponse();
        try {
            ByteBufferAccessor accessor = new ByteBufferAccessor(ByteBuffer.wrap(generated));
            message.read(accessor, version);
            assertEquals(0, accessor.remaining(), "bytes left after reading the generated message");
        } catch (RuntimeException | AssertionError e) {
            throw new AssertionError(what + " #" + index + ": kafka-clients cannot read the generator's "
                    + generated.length + " bytes (a generator bug), " + OracleSeed.replay(SEED) + ": "
                    + ByteBufUtil.hexDump(generated), e);
        }
        RandomHeaders headers = new RandomHeaders(random);
        if (direction == Direction.REQUEST) {
            short headerVersion = key.requestHeaderVersion(version);
            RequestHeaderData header = headers.request(key.id, version, headerVersion);
            byte[] frame = KafkaWire.requestFrame(new RequestHeader(header, headerVersion), message);
            return new Case(index, message, header, header.correlationId(), frame);
        }
        int correlationId = headers.correlationId();
        ResponseHeader header = new ResponseHeader(correlationId, key.responseHeaderVersion(version));
        byte[] frame = KafkaWire.responseFrame(header, message, version);
        return new Case(index, message, null, correlationId, frame);
    }

    /**
     * Feeds the whole stream through a {@link KafkaFrameDecoder} in random reads: sometimes a byte or
     * a few at a time (frames split across reads), sometimes kilobytes (many frames per read); with or
     * without the size prefix kept. Returns the frames, owned by the caller.
     */
    private static List<ByteBuf> decodeFrames(byte[] wire, SplittableRandom random, boolean keepSizePrefix, String what) {
        EmbeddedChannel channel = new EmbeddedChannel(new KafkaFrameDecoder(1 << 24, "oracle", keepSizePrefix));
        List<ByteBuf> frames = new ArrayList<>();
        try {
            int maxRead = switch (random.nextInt(4)) {
                case 0 -> 16;
                case 1 -> 256;
                default -> 8192;
            };
            for (int position = 0; position < wire.length; ) {
                int n = Math.min(wire.length - position, 1 + random.nextInt(maxRead));
                channel.writeInbound(ALLOC.directBuffer(n).writeBytes(wire, position, n));
                position += n;
                for (Object frame; (frame = channel.readInbound()) != null; ) {
                    frames.add((ByteBuf) frame);
                }
            }
            if (channel.finish()) {
                fail(what + ": the decoder held on to messages after the last frame");
            }
        } catch (RuntimeException | AssertionError e) {
            frames.forEach(ByteBuf::release);
            channel.finishAndReleaseAll();
            throw e;
        }
        return frames;
    }

    private static void checkRequest(ApiKeys key, ApiMessageType type, short version, Case c, ByteBuf frame, String where) {
        RequestHeaderView view = new RequestHeaderView().wrap(frame);
        assertEquals(key.id, view.apiKey(), where);
        assertEquals(version, view.apiVersion(), where);
        assertEquals(c.correlationId(), view.correlationId(), where);
        assertEquals(c.requestHeader().clientId(), view.clientId(), where);
        assertEquals(new RequestHeader(c.requestHeader(), key.requestHeaderVersion(version)).size(), view.headerLength(), where);

        RequestHeaderData header = ColdCodec.readRequestHeader(frame);
        assertEquals(c.requestHeader(), header, where);
        ByteBuf body = frame.slice(view.bodyOffset(), frame.writerIndex() - view.bodyOffset());
        ApiMessage decoded = ColdCodec.readRequestBody(key.id, version, body);
        assertEquals(c.message(), decoded, where);

        ByteBuf out = ColdCodec.writeRequest(ALLOC, header, decoded);
        try {
            assertFrameEquals(c.frame(), out, where);
            // And kafka-clients, as a broker would, reads Weft's frame back to the same header and message.
            ByteBuffer nio = out.nioBuffer(KafkaFrameDecoder.SIZE_PREFIX_BYTES, out.readableBytes() - KafkaFrameDecoder.SIZE_PREFIX_BYTES);
            RequestHeader parsedHeader = RequestHeader.parse(nio);
            assertEquals(c.correlationId(), parsedHeader.correlationId(), where);
            assertEquals(key, parsedHeader.apiKey(), where);
            ApiMessage parsed = type.newRequest();
            parsed.read(new ByteBufferAccessor(nio), version);
            assertEquals(0, nio.remaining(), where);
            assertEquals(c.message(), parsed, where);
        } finally {
            out.release();
        }
    }

    private static void checkResponse(ApiKeys key, ApiMessageType type, short version, Case c, ByteBuf frame, String where) {
        ResponseHeaderView view = new ResponseHeaderView().wrap(frame);
        assertEquals(c.correlationId(), view.correlationId(), where);
        short headerVersion = key.responseHeaderVersion(version);
        int headerLength = view.headerLength(key.id, version);
        assertEquals(new ResponseHeader(c.correlationId(), headerVersion).size(), headerLength, where);

        ByteBuf body = frame.slice(frame.readerIndex() + headerLength, frame.readableBytes() - headerLength);
        ApiMessage decoded = ColdCodec.readResponseBody(key.id, version, body);
        assertEquals(c.message(), decoded, where);

        ByteBuf out = ColdCodec.writeResponse(ALLOC, c.correlationId(), version, decoded);
        try {
            assertFrameEquals(c.frame(), out, where);
            // And kafka-clients, as a client would, reads Weft's frame back to the same message.
            ByteBuffer nio = out.nioBuffer(KafkaFrameDecoder.SIZE_PREFIX_BYTES, out.readableBytes() - KafkaFrameDecoder.SIZE_PREFIX_BYTES);
            assertEquals(c.correlationId(), ResponseHeader.parse(nio, headerVersion).correlationId(), where);
            ApiMessage parsed = type.newResponse();
            parsed.read(new ByteBufferAccessor(nio), version);
            assertEquals(0, nio.remaining(), where);
            assertEquals(c.message(), parsed, where);
        } finally {
            out.release();
        }
    }

    private static void assertFrameEquals(byte[] expected, ByteBuf actual, String where) {
        assertEquals(1, actual.refCnt(), where + ": the caller must own the frame");
        byte[] bytes = ByteBufUtil.getBytes(actual);
        if (!Arrays.equals(expected, bytes)) {
            assertArrayEquals(expected, bytes, where + ": Weft's frame differs from kafka-clients'\nkafka: "
                    + ByteBufUtil.hexDump(expected) + "\nweft:  " + ByteBufUtil.hexDump(bytes));
        }
        assertTrue(actual.readerIndex() == 0 && actual.writerIndex() == expected.length, where);
    }
}
