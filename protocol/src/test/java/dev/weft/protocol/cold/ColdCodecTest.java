package dev.weft.protocol.cold;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.testing.KafkaWire;
import dev.weft.protocol.testing.OracleSeed;
import dev.weft.protocol.wire.MalformedFrameException;
import dev.weft.protocol.wire.TrailingRequestBytes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.Test;

/** {@link ColdCodec} beyond the oracle: buffer kinds, ownership, memory sharing, and every error path. */
class ColdCodecTest {

    private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
    private static final short METADATA = ApiKeys.METADATA.id;
    private static final short METADATA_V12 = 12;

    @Test
    void unknownTaggedFieldsSurviveAtEveryLevel() {
        MetadataResponseData response = metadataResponse();
        response.unknownTaggedFields().add(new RawTaggedField(100, new byte[] {1, 2, 3}));
        response.brokers().iterator().next().unknownTaggedFields().add(new RawTaggedField(7, new byte[0]));
        response.topics().iterator().next().unknownTaggedFields().add(new RawTaggedField(5, "x".getBytes(StandardCharsets.UTF_8)));
        response.topics().iterator().next().partitions().get(0).unknownTaggedFields()
                .add(new RawTaggedField(Integer.MAX_VALUE - 1, new byte[] {9}));

        ByteBuf frame = ColdCodec.writeResponse(ALLOC, 42, METADATA_V12, response);
        try {
            assertEquals(frame.readableBytes() - 4, frame.getInt(0), "size prefix");
            assertEquals(42, frame.getInt(4), "correlation id");
            assertEquals(0, frame.getByte(8), "response header v1 with no tagged fields");
            MetadataResponseData decoded = (MetadataResponseData) ColdCodec.readResponseBody(METADATA, METADATA_V12, frame.slice(9, frame.readableBytes() - 9));
            assertEquals(response, decoded);
            assertEquals(List.of(new RawTaggedField(100, new byte[] {1, 2, 3})), decoded.unknownTaggedFields());
            assertEquals(List.of(new RawTaggedField(Integer.MAX_VALUE - 1, new byte[] {9})),
                    decoded.topics().iterator().next().partitions().get(0).unknownTaggedFields());
        } finally {
            frame.release();
        }
    }

    @Test
    void readsTheReadableBytesOfAnyBufferKindWithoutMovingItsIndexes() {
        byte[] body = KafkaWire.bytes(metadataResponse(), METADATA_V12);
        MetadataResponseData expected = metadataResponse();

        ByteBuf heap = Unpooled.buffer(body.length + 10).writeZero(3).writeBytes(body).writeZero(7);
        heap.readerIndex(3).writerIndex(3 + body.length);
        ByteBuf direct = ALLOC.directBuffer(body.length + 5).writeZero(5).writeBytes(body);
        direct.readerIndex(5);
        CompositeByteBuf composite = ALLOC.compositeDirectBuffer();
        int a = body.length / 3;
        int b = 2 * body.length / 3;
        composite.addComponent(true, ALLOC.directBuffer().writeBytes(body, 0, a));
        composite.addComponent(true, ALLOC.directBuffer().writeBytes(body, a, b - a));
        composite.addComponent(true, ALLOC.directBuffer().writeBytes(body, b, body.length - b));
        try {
            for (ByteBuf buf : List.of(heap, direct, composite, direct.slice())) {
                int reader = buf.readerIndex();
                int writer = buf.writerIndex();
                assertEquals(expected, ColdCodec.readResponseBody(METADATA, METADATA_V12, buf), buf.toString());
                assertEquals(reader, buf.readerIndex(), "reader index moved: " + buf);
                assertEquals(writer, buf.writerIndex(), "writer index moved: " + buf);
                assertEquals(1, buf.refCnt(), "borrowed, so neither retained nor released: " + buf);
            }
        } finally {
            heap.release();
            direct.release();
            composite.release();
        }
    }

    @Test
    void recordsAreViewsIntoTheBodyNotCopies() {
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(1L, "k".getBytes(), "v".getBytes()));
        FetchResponseData fetch = new FetchResponseData().setResponses(List.of(new FetchResponseData.FetchableTopicResponse()
                .setTopicId(Uuid.randomUuid())
                .setPartitions(List.of(new FetchResponseData.PartitionData().setPartitionIndex(3).setRecords(records)))));
        short version = ApiKeys.FETCH.latestVersion(true);
        byte[] bytes = KafkaWire.bytes(fetch, version);
        ByteBuf body = ALLOC.directBuffer(bytes.length).writeBytes(bytes);
        try {
            FetchResponseData decoded = (FetchResponseData) ColdCodec.readResponseBody(ApiKeys.FETCH.id, version, body);
            MemoryRecords view = (MemoryRecords) decoded.responses().get(0).partitions().get(0).records();
            assertEquals(records, view);
            ByteBuffer viewBuffer = view.buffer();
            assertTrue(viewBuffer.isDirect(), "records were copied to the heap");
            // Same memory: a change to the body shows through the decoded records. This is why the
            // caller keeps the body retained while it uses such a message.
            byte[] recordBytes = new byte[records.sizeInBytes()];
            records.buffer().duplicate().get(recordBytes);
            int last = recordBytes.length - 1;
            int indexInBody = indexOf(bytes, recordBytes) + last;
            body.setByte(indexInBody, recordBytes[last] ^ 0xff);
            assertEquals((byte) (recordBytes[last] ^ 0xff), viewBuffer.get(viewBuffer.position() + last));
        } finally {
            body.release();
        }
    }

    @Test
    void everyTruncationOfABodyIsMalformedNamingApiVersionAndSize() {
        byte[] body = KafkaWire.bytes(metadataResponse(), METADATA_V12);
        for (int cut = 0; cut < body.length; cut++) {
            ByteBuf truncated = Unpooled.wrappedBuffer(body, 0, cut);
            try {
                MalformedFrameException e = assertThrows(MalformedFrameException.class,
                        () -> ColdCodec.readResponseBody(METADATA, METADATA_V12, truncated), "cut at " + cut);
                assertTrue(e.getMessage().startsWith("Metadata v12 response body of " + cut + " bytes does not parse: "), e.getMessage());
                assertNotNull(e.getCause(), "kafka-clients' exception is kept as the cause");
            } finally {
                truncated.release();
            }
        }
    }

    /**
     * librdkafka 2.x ({@code rd_kafka_MetadataRequest0}, seen with 2.15) asks for all topics at
     * Metadata v9+ by reserving a 4-byte array count and writing the compact null (0) into its first
     * byte: the body is 7 zero bytes, of which the message is 4 (topics null, two false booleans, no
     * tagged fields). The broker serves it; so must the proxy.
     */
    @Test
    void librdkafkaAllTopicsMetadataV13WithThreeTrailingZerosIsRead() {
        short v13 = 13;
        ByteBuf body = Unpooled.wrappedBuffer(new byte[7]);
        long requests = TrailingRequestBytes.requests(METADATA);
        long bytes = TrailingRequestBytes.bytes(METADATA);
        try {
            MetadataRequestData read = (MetadataRequestData) ColdCodec.readRequestBody(METADATA, v13, body);
            assertEquals(new MetadataRequestData().setTopics(null).setAllowAutoTopicCreation(false)
                    .setIncludeTopicAuthorizedOperations(false), read);
            assertEquals(requests + 1, TrailingRequestBytes.requests(METADATA), "one request with trailing bytes");
            assertEquals(bytes + 3, TrailingRequestBytes.bytes(METADATA), "three bytes after the message");
            assertEquals(0, body.readerIndex(), "borrowed: indexes do not move");
            assertEquals(7, body.writerIndex());
            // The broker, as it parses a request (RequestContext.parseRequest → AbstractRequest.parseRequest),
            // reads the same message from the same bytes.
            RequestHeader header = new RequestHeader(ApiKeys.METADATA, v13, "rdkafka", 1);
            RequestContext context = new RequestContext(header, "conn", InetAddress.getLoopbackAddress(),
                    KafkaPrincipal.ANONYMOUS, ListenerName.normalised("PLAINTEXT"), SecurityProtocol.PLAINTEXT,
                    ClientInformation.EMPTY, false);
            MetadataRequest broker = (MetadataRequest) context.parseRequest(ByteBuffer.wrap(new byte[7])).request;
            assertEquals(broker.data(), read);
            assertTrue(broker.isAllTopics());
        } finally {
            body.release();
        }
    }

    @Test
    void requestBytesAfterTheMessageAreIgnoredAndCounted() {
        MetadataRequestData request = new MetadataRequestData().setTopics(List.of(
                new MetadataRequestData.MetadataRequestTopic().setName("orders"))).setAllowAutoTopicCreation(false);
        for (short version : new short[] {4, 8, METADATA_V12}) {
            byte[] body = KafkaWire.bytes(request, version);
            ByteBuf longer = Unpooled.buffer().writeBytes(body).writeBytes(new byte[] {1, 2, 3});
            long requests = TrailingRequestBytes.requests(METADATA);
            long bytes = TrailingRequestBytes.bytes(METADATA);
            try {
                assertEquals(request, ColdCodec.readRequestBody(METADATA, version, longer), "v" + version);
                assertEquals(requests + 1, TrailingRequestBytes.requests(METADATA), "v" + version);
                assertEquals(bytes + 3, TrailingRequestBytes.bytes(METADATA), "v" + version);
                // Re-encoding carries the message only, as a broker would have read it.
                RequestHeaderData header = new RequestHeaderData().setRequestApiKey(METADATA).setRequestApiVersion(version)
                        .setCorrelationId(9).setClientId("c");
                ByteBuf frame = ColdCodec.writeRequest(ALLOC, header, request);
                try {
                    int headerLength = KafkaWire.bytes(header, ApiKeys.METADATA.requestHeaderVersion(version)).length;
                    assertArrayEquals(body, ByteBufUtil.getBytes(frame, 4 + headerLength, frame.readableBytes() - 4 - headerLength));
                } finally {
                    frame.release();
                }
            } finally {
                longer.release();
            }
        }
        // An exact body counts nothing.
        ByteBuf exact = Unpooled.wrappedBuffer(KafkaWire.bytes(request, METADATA_V12));
        long requests = TrailingRequestBytes.requests(METADATA);
        try {
            ColdCodec.readRequestBody(METADATA, METADATA_V12, exact);
            assertEquals(requests, TrailingRequestBytes.requests(METADATA));
        } finally {
            exact.release();
        }
    }

    /** Leniency is about what follows a message, never a message cut short: every prefix fails, naming its size. */
    @Test
    void everyTruncationOfARequestBodyIsStillMalformed() {
        byte[] librdkafka = new byte[7];
        for (int cut = 0; cut < 4; cut++) {
            ByteBuf truncated = Unpooled.wrappedBuffer(librdkafka, 0, cut);
            try {
                MalformedFrameException e = assertThrows(MalformedFrameException.class,
                        () -> ColdCodec.readRequestBody(METADATA, (short) 13, truncated), "cut at " + cut);
                assertTrue(e.getMessage().startsWith("Metadata v13 request body of " + cut + " bytes does not parse: "),
                        e.getMessage());
                assertNotNull(e.getCause());
            } finally {
                truncated.release();
            }
        }
        MetadataRequestData request = new MetadataRequestData().setTopics(List.of(
                new MetadataRequestData.MetadataRequestTopic().setName("orders"),
                new MetadataRequestData.MetadataRequestTopic().setName("payments")));
        for (short version : new short[] {1, 8, METADATA_V12, 13}) {
            byte[] body = KafkaWire.bytes(request, version);
            for (int cut = 0; cut < body.length; cut++) {
                ByteBuf truncated = Unpooled.wrappedBuffer(body, 0, cut);
                short v = version;
                try {
                    MalformedFrameException e = assertThrows(MalformedFrameException.class,
                            () -> ColdCodec.readRequestBody(METADATA, v, truncated), "v" + v + " cut at " + cut);
                    assertTrue(e.getMessage().startsWith("Metadata v" + v + " request body of " + cut + " bytes does not parse: "),
                            e.getMessage());
                } finally {
                    truncated.release();
                }
            }
        }
    }

    @Test
    void responseBytesLeftOverAfterTheMessageAreMalformed() {
        byte[] body = KafkaWire.bytes(metadataResponse(), METADATA_V12);
        ByteBuf longer = Unpooled.buffer().writeBytes(body).writeBytes(new byte[] {1, 2, 3});
        try {
            MalformedFrameException e = assertThrows(MalformedFrameException.class,
                    () -> ColdCodec.readResponseBody(METADATA, METADATA_V12, longer));
            assertEquals("Metadata v12 response body of " + (body.length + 3) + " bytes has 3 bytes left over after the message ("
                    + body.length + " read)", e.getMessage());
        } finally {
            longer.release();
        }
    }

    @Test
    void unsupportedKeysAndVersionsAreMalformed() {
        ByteBuf empty = Unpooled.EMPTY_BUFFER;
        MalformedFrameException e = assertThrows(MalformedFrameException.class, () -> ColdCodec.readRequestBody(METADATA, (short) 99, empty));
        assertEquals("unsupported Metadata version 99: cannot read request body", e.getMessage());
        e = assertThrows(MalformedFrameException.class, () -> ColdCodec.readResponseBody(ApiKeys.PRODUCE.id, (short) 2, empty));
        assertEquals("unsupported Produce version 2: cannot read response body", e.getMessage());
        e = assertThrows(MalformedFrameException.class, () -> ColdCodec.readRequestBody(ApiKeys.LEADER_AND_ISR.id, (short) 0, empty));
        assertEquals("unsupported LeaderAndIsr version 0: cannot read request body", e.getMessage());
        e = assertThrows(MalformedFrameException.class, () -> ColdCodec.readResponseBody((short) 999, (short) 0, empty));
        assertEquals("unsupported UnknownApiKey(999) version 0: cannot read response body", e.getMessage());
        e = assertThrows(MalformedFrameException.class, () -> ColdCodec.readRequestBody((short) -1, (short) 0, empty));
        assertEquals("unsupported UnknownApiKey(-1) version 0: cannot read request body", e.getMessage());
    }

    @Test
    void requestHeadersThatCannotBeReadAreMalformed() {
        ByteBuf tiny = Unpooled.wrappedBuffer(new byte[] {0, 3, 0});
        ByteBuf tooNew = Unpooled.buffer().writeShort(METADATA).writeShort(99).writeInt(1).writeShort(-1);
        byte[] header = KafkaWire.bytes(new RequestHeaderData().setRequestApiKey(METADATA).setRequestApiVersion(METADATA_V12)
                .setCorrelationId(5).setClientId("client"), (short) 2);
        ByteBuf truncated = Unpooled.wrappedBuffer(header, 0, header.length - 1);
        try {
            MalformedFrameException e = assertThrows(MalformedFrameException.class, () -> ColdCodec.readRequestHeader(tiny));
            assertEquals("request of 3 bytes is too short for api_key and api_version", e.getMessage());
            e = assertThrows(MalformedFrameException.class, () -> ColdCodec.readRequestHeader(tooNew));
            assertEquals("unsupported Metadata version 99: request header layout unknown", e.getMessage());
            e = assertThrows(MalformedFrameException.class, () -> ColdCodec.readRequestHeader(truncated));
            assertTrue(e.getMessage().startsWith("Metadata v12 request header (v2, frame of " + (header.length - 1)
                    + " bytes) does not parse: "), e.getMessage());
        } finally {
            tiny.release();
            tooNew.release();
            truncated.release();
        }
    }

    /**
     * Random bytes as every key's body, at its oldest and latest version: the codec either reads a
     * message or throws {@link MalformedFrameException}; kafka-clients' own exception types never
     * escape, so a caller needs one catch to close a connection with a clear log line.
     */
    @Test
    void garbageIsMalformedOrAMessageNeverAnotherException() {
        long seed = OracleSeed.base();
        int parsed = 0;
        int malformed = 0;
        for (ApiKeys key : ApiKeys.values()) {
            if (!key.hasValidVersion()) {
                continue;
            }
            for (short version : new short[] {key.oldestVersion(), key.latestVersion(true)}) {
                for (int i = 0; i < 50; i++) {
                    SplittableRandom random = OracleSeed.forCase(seed, key.id, version, i);
                    byte[] garbage = new byte[random.nextInt(0, 64)];
                    random.nextBytes(garbage);
                    ByteBuf buf = Unpooled.wrappedBuffer(garbage);
                    try {
                        boolean request = random.nextBoolean();
                        if (request) {
                            ColdCodec.readRequestBody(key.id, version, buf);
                        } else {
                            ColdCodec.readResponseBody(key.id, version, buf);
                        }
                        parsed++;
                    } catch (MalformedFrameException e) {
                        assertTrue(e.getMessage().startsWith(key.name + " v" + version + " "), e.getMessage());
                        malformed++;
                    } catch (RuntimeException e) {
                        throw new AssertionError(key.name + " v" + version + " garbage #" + i + " ("
                                + ByteBufUtil.hexDump(garbage) + "), " + OracleSeed.replay(seed) + ": " + e, e);
                    } finally {
                        buf.release();
                    }
                }
            }
        }
        assertTrue(malformed > parsed, "garbage parsed " + parsed + " times, refused " + malformed);
    }

    @Test
    void responseHeaderVersionFollowsTheApiAndApiVersionsIsAlwaysV0() {
        ApiVersionsResponseData apiVersions = new ApiVersionsResponseData().setErrorCode((short) 35);
        short latest = ApiKeys.API_VERSIONS.latestVersion(true);
        ByteBuf v0Header = ColdCodec.writeResponse(ALLOC, 7, latest, apiVersions);
        ByteBuf metadataV8 = ColdCodec.writeResponse(ALLOC, -1, (short) 8, new MetadataResponseData());
        try {
            byte[] body = KafkaWire.bytes(apiVersions, latest);
            assertEquals(4 + 4 + body.length, v0Header.readableBytes(), "no tagged-field byte in a v0 header");
            assertEquals(7, v0Header.getInt(4));
            assertArrayEquals(body, ByteBufUtil.getBytes(v0Header, 8, body.length));
            assertEquals(4 + KafkaWire.bytes(new MetadataResponseData(), (short) 8).length, metadataV8.getInt(0));
            assertEquals(-1, metadataV8.getInt(4));
        } finally {
            v0Header.release();
            metadataV8.release();
        }
    }

    @Test
    void apiVersionsErrorInV0FormatIsReadWhateverVersionWasAsked() {
        // What a broker sends when the request's ApiVersions version is newer than it knows.
        ApiVersionsResponseData v0 = new ApiVersionsResponseData().setErrorCode((short) 35);
        v0.apiKeys().add(new ApiVersionsResponseData.ApiVersion().setApiKey(ApiKeys.API_VERSIONS.id).setMinVersion((short) 0).setMaxVersion((short) 3));
        byte[] body = KafkaWire.bytes(v0, (short) 0);
        ByteBuf buf = Unpooled.wrappedBuffer(body);
        try {
            for (short asked = 1; asked <= ApiKeys.API_VERSIONS.latestVersion(true); asked++) {
                assertEquals(v0, ColdCodec.readResponseBody(ApiKeys.API_VERSIONS.id, asked, buf), "asked v" + asked);
                // kafka-clients, as a client, reads it the same way.
                ApiVersionsResponse oracle = ApiVersionsResponse.parse(new ByteBufferAccessor(ByteBuffer.wrap(body)), asked);
                assertEquals(oracle.data(), ColdCodec.readResponseBody(ApiKeys.API_VERSIONS.id, asked, buf));
            }
        } finally {
            buf.release();
        }
        // Other APIs get no second chance: a body that is not the asked version is malformed.
        ByteBuf metadataV0 = Unpooled.wrappedBuffer(KafkaWire.bytes(new MetadataResponseData(), (short) 0));
        try {
            MalformedFrameException e = assertThrows(MalformedFrameException.class,
                    () -> ColdCodec.readResponseBody(METADATA, METADATA_V12, metadataV0));
            assertTrue(e.getMessage().startsWith("Metadata v12 response body of "), e.getMessage());
        } finally {
            metadataV0.release();
        }
        ByteBuf garbage = Unpooled.wrappedBuffer(new byte[] {1, 2, 3});
        try {
            MalformedFrameException e = assertThrows(MalformedFrameException.class,
                    () -> ColdCodec.readResponseBody(ApiKeys.API_VERSIONS.id, (short) 3, garbage));
            assertTrue(e.getMessage().startsWith("ApiVersions v3 response body of 3 bytes"), e.getMessage());
            assertEquals(1, e.getSuppressed().length, "the v0 attempt's failure rides along");
        } finally {
            garbage.release();
        }
    }

    @Test
    void writeRequestMatchesKafkaClientsForAProxyOriginatedMetadataRequest() {
        MetadataRequestData body = new MetadataRequestData().setTopics(null).setAllowAutoTopicCreation(false);
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey(METADATA).setRequestApiVersion(METADATA_V12)
                .setCorrelationId(1234).setClientId("weft-discovery");
        ByteBuf frame = ColdCodec.writeRequest(ALLOC, header, body);
        try {
            assertEquals(1, frame.refCnt());
            assertArrayEquals(KafkaWire.requestFrame(new RequestHeader(header, (short) 2), body), ByteBufUtil.getBytes(frame));
            assertEquals(header, ColdCodec.readRequestHeader(frame.slice(4, frame.readableBytes() - 4)));
        } finally {
            frame.release();
        }
    }

    @Test
    void writeRefusesWhatTheVersionCannotCarryAndLeaksNothing() {
        RequestHeaderData metadataV3 = new RequestHeaderData().setRequestApiKey(METADATA).setRequestApiVersion((short) 3);
        // Metadata v0-v3 cannot say "do not auto-create topics": kafka-clients refuses while writing.
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ColdCodec.writeRequest(ALLOC, metadataV3, new MetadataRequestData().setAllowAutoTopicCreation(false)));
        assertTrue(e.getMessage().startsWith("cannot write Metadata v3 request: "), e.getMessage());
        assertNotNull(e.getCause());

        e = assertThrows(IllegalArgumentException.class, () -> ColdCodec.writeRequest(ALLOC, metadataV3, new FetchResponseData()));
        assertEquals("request header is for Metadata but the body is a Fetch message", e.getMessage());

        RequestHeaderData metadataV99 = new RequestHeaderData().setRequestApiKey(METADATA).setRequestApiVersion((short) 99);
        e = assertThrows(IllegalArgumentException.class, () -> ColdCodec.writeRequest(ALLOC, metadataV99, new MetadataRequestData()));
        assertEquals("cannot write Metadata v99 request: unsupported version", e.getMessage());

        RequestHeaderData taggedV1 = new RequestHeaderData().setRequestApiKey(METADATA).setRequestApiVersion((short) 3);
        taggedV1.unknownTaggedFields().add(new RawTaggedField(1, new byte[1]));
        e = assertThrows(IllegalArgumentException.class, () -> ColdCodec.writeRequest(ALLOC, taggedV1, new MetadataRequestData()));
        assertTrue(e.getMessage().startsWith("cannot write Metadata v3 request header: "), e.getMessage());

        MetadataResponseData tagged = new MetadataResponseData();
        tagged.unknownTaggedFields().add(new RawTaggedField(3, new byte[2]));
        e = assertThrows(IllegalArgumentException.class, () -> ColdCodec.writeResponse(ALLOC, 1, (short) 0, tagged));
        assertTrue(e.getMessage().startsWith("cannot write Metadata v0 response: "), e.getMessage());

        e = assertThrows(IllegalArgumentException.class, () -> ColdCodec.writeResponse(ALLOC, 1, (short) 2, newResponse(ApiKeys.PRODUCE)));
        assertEquals("cannot write Produce v2 response: unsupported version", e.getMessage());
    }

    private static ApiMessage newResponse(ApiKeys key) {
        return ApiMessageType.fromApiKey(key.id).newResponse();
    }

    private static MetadataResponseData metadataResponse() {
        MetadataResponseData response = new MetadataResponseData().setClusterId("weft-cluster").setControllerId(2);
        response.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(1).setHost("b1.example").setPort(9092).setRack("az-1"));
        response.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(2).setHost("b2.example").setPort(9093));
        response.topics().add(new MetadataResponseData.MetadataResponseTopic().setName("orders").setTopicId(new Uuid(1, 2))
                .setPartitions(List.of(new MetadataResponseData.MetadataResponsePartition().setPartitionIndex(0).setLeaderId(1)
                        .setReplicaNodes(List.of(1, 2)).setIsrNodes(List.of(1, 2)).setOfflineReplicas(List.of()))));
        return response;
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("records not found in the body");
    }
}
