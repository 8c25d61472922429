package dev.weft.protocol.skim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Assertions the Produce and Fetch skim tests share. kafka-clients has a {@code NodeEndpoint} class per
 * message, all with the same fields: the tests pass a function reading one into a
 * {@link TestRewriter.Expected} and, where endpoints are built, one making one from it.
 */
public final class SkimAsserts {

    private SkimAsserts() {
    }

    /** The skimmed node_endpoints are {@code expected}, in order and field by field. */
    public static <E> void assertEndpoints(Collection<E> expected, Function<E, TestRewriter.Expected> fields,
                                           NodeEndpointList actual) {
        assertEquals(expected.size(), actual.count());
        int j = 0;
        for (E endpoint : expected) {
            TestRewriter.Expected e = fields.apply(endpoint);
            assertEquals(e.nodeId(), actual.nodeId(j));
            assertEquals(e.host(), actual.host(j));
            assertEquals(e.port(), actual.port(j));
            assertEquals(e.rack(), actual.rack(j));
            j++;
        }
    }

    /**
     * The records slice of partition {@code i} is byte-identical to {@code expected} (null for null
     * records), and {@code length} is its length (-1 for null). Releases the slice.
     *
     * @return the bytes of the records
     */
    public static int assertRecords(MemoryRecords expected, ByteBuf slice, int length, int i) {
        try {
            if (expected == null) {
                assertNull(slice);
                assertEquals(-1, length);
                return 0;
            }
            assertEquals(expected.sizeInBytes(), length);
            assertEquals(expected.buffer(), slice.nioBuffer(), "records of partition " + i + " byte-identical");
            return expected.sizeInBytes();
        } finally {
            if (slice != null) {
                slice.release();
            }
        }
    }

    /** Parses a built request's header, asserts it, and returns the body accessor. */
    public static ByteBufferAccessor assertRequestHeader(ByteBuf part, ApiKeys key, short version, int correlationId,
                                                         String clientId) {
        SkimFrames.Request parsed = SkimFrames.parseRequest(part, key, version);
        RequestHeaderData header = parsed.header();
        assertEquals(key.id, header.requestApiKey());
        assertEquals(version, header.requestApiVersion());
        assertEquals(correlationId, header.correlationId());
        assertEquals(clientId, header.clientId());
        return parsed.body();
    }

    /**
     * What the rewriter makes of the endpoints of {@code upstream} responses (null: that upstream
     * failed), route by route: the first per client-facing node id wins, omitted ones are left out.
     */
    public static <R, E> List<E> expectedUnion(TestRewriter rewriter, R[] upstream, Function<R, Collection<E>> endpointsOf,
                                               Function<E, TestRewriter.Expected> fields,
                                               Function<TestRewriter.Expected, E> make) {
        List<E> out = new ArrayList<>();
        Set<Integer> ids = new HashSet<>();
        for (int r = 0; r < upstream.length; r++) {
            if (upstream[r] == null) {
                continue;
            }
            for (E endpoint : endpointsOf.apply(upstream[r])) {
                TestRewriter.Expected e = fields.apply(endpoint);
                TestRewriter.Expected x = rewriter.expected(r, e.nodeId(), e.host(), e.port(), e.rack());
                if (x != null && ids.add(x.nodeId())) {
                    out.add(make.apply(x));
                }
            }
        }
        return out;
    }

    /** What the rewriter makes of the endpoints of one response from {@code source}, in order, omitted ones left out. */
    public static <E> List<E> expectedRewrite(TestRewriter rewriter, int source, Collection<E> endpoints,
                                              Function<E, TestRewriter.Expected> fields,
                                              Function<TestRewriter.Expected, E> make) {
        List<E> out = new ArrayList<>();
        for (E endpoint : endpoints) {
            TestRewriter.Expected e = fields.apply(endpoint);
            TestRewriter.Expected x = rewriter.expected(source, e.nodeId(), e.host(), e.port(), e.rack());
            if (x != null) {
                out.add(make.apply(x));
            }
        }
        return out;
    }
}
