package dev.weft.routing.branch.transform;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One record as the transform chain sees it. The byte arrays are shared, not copied (copying every
 * record's bytes would double the writer's allocation): nothing in the chain writes into them, and
 * whoever builds a record must not either. Equality compares the bytes, so records can be asserted on.
 *
 * @param key the record key, null when the record has none
 * @param value the record value, null for a tombstone
 * @param headers the headers in their record order; a name may repeat, as Kafka allows
 * @param timestampMs the record timestamp
 */
public record BranchRecord(byte[] key, byte[] value, List<Header> headers, long timestampMs) {

    public BranchRecord {
        headers = List.copyOf(Objects.requireNonNull(headers, "headers"));
    }

    /** A record without headers. */
    public static BranchRecord of(byte[] key, byte[] value, long timestampMs) {
        return new BranchRecord(key, value, List.of(), timestampMs);
    }

    public BranchRecord withKey(byte[] newKey) {
        return new BranchRecord(newKey, value, headers, timestampMs);
    }

    public BranchRecord withValue(byte[] newValue) {
        return new BranchRecord(key, newValue, headers, timestampMs);
    }

    public BranchRecord withHeaders(List<Header> newHeaders) {
        return new BranchRecord(key, value, newHeaders, timestampMs);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BranchRecord r && timestampMs == r.timestampMs && Arrays.equals(key, r.key)
                && Arrays.equals(value, r.value) && headers.equals(r.headers);
    }

    @Override
    public int hashCode() {
        return Objects.hash(Arrays.hashCode(key), Arrays.hashCode(value), headers, timestampMs);
    }

    @Override
    public String toString() {
        return "BranchRecord[key=" + text(key) + ", value=" + text(value) + ", headers=" + headers + ", timestampMs=" + timestampMs + "]";
    }

    static String text(byte[] bytes) {
        return bytes == null ? "null" : new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * One record header.
     *
     * @param name the header name, compared case-sensitively as Kafka does
     * @param value the header value, null when the header has none
     */
    public record Header(String name, byte[] value) {

        public Header {
            Objects.requireNonNull(name, "name");
        }

        /** A header whose value is the UTF-8 of {@code value}. */
        public static Header utf8(String name, String value) {
            return new Header(name, value == null ? null : value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Header h && name.equals(h.name) && Arrays.equals(value, h.value);
        }

        @Override
        public int hashCode() {
            return 31 * name.hashCode() + Arrays.hashCode(value);
        }

        @Override
        public String toString() {
            return name + "=" + text(value);
        }
    }
}
