package dev.weft.protocol.testing;

import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/** Random request and response headers: client ids of every shape, and unknown tagged fields for flexible headers. */
public final class RandomHeaders {

    private final SplittableRandom random;
    private final RandomSchemaBytes values;

    public RandomHeaders(SplittableRandom random) {
        this.random = random;
        this.values = new RandomSchemaBytes(random);
    }

    /**
     * A request header for {@code apiKey} at {@code apiVersion}; {@code headerVersion} 2 (flexible)
     * gets unknown tagged fields now and then, as a newer client could send.
     */
    public RequestHeaderData request(short apiKey, short apiVersion, int headerVersion) {
        RequestHeaderData header = new RequestHeaderData()
                .setRequestApiKey(apiKey)
                .setRequestApiVersion(apiVersion)
                .setCorrelationId(correlationId())
                .setClientId(clientId());
        if (headerVersion >= 2) {
            header.unknownTaggedFields().addAll(unknownTaggedFields().values());
        }
        return header;
    }

    /** A response header; {@code headerVersion} 1 gets unknown tagged fields now and then. */
    public ResponseHeaderData response(int headerVersion) {
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId());
        if (headerVersion >= 1) {
            header.unknownTaggedFields().addAll(unknownTaggedFields().values());
        }
        return header;
    }

    public int correlationId() {
        return switch (random.nextInt(8)) {
            case 0 -> 0;
            case 1 -> Integer.MAX_VALUE;
            case 2 -> Integer.MIN_VALUE;
            case 3 -> -1;
            default -> random.nextInt();
        };
    }

    /** Null, empty, ordinary, non-ASCII, or long (client ids are int16-length strings: up to 32767 bytes). */
    public String clientId() {
        return switch (random.nextInt(10)) {
            case 0 -> null;
            case 1 -> "";
            case 2 -> "ü-клиент-客户端-🙂";
            case 3 -> "x".repeat(random.nextInt(300, 8000));
            default -> values.randomString();
        };
    }

    /** 0 to 3 unknown tagged fields, by ascending tag as the protocol requires. */
    private TreeMap<Integer, RawTaggedField> unknownTaggedFields() {
        TreeMap<Integer, RawTaggedField> fields = new TreeMap<>();
        int count = random.nextInt(3) == 0 ? 1 + random.nextInt(3) : 0;
        for (int i = 0; i < count; i++) {
            int tag = random.nextBoolean() ? random.nextInt(16) : random.nextInt(Integer.MAX_VALUE);
            fields.put(tag, new RawTaggedField(tag, values.randomBytes(random.nextInt(0, 12))));
        }
        return fields;
    }
}
