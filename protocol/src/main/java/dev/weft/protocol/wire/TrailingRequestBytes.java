package dev.weft.protocol.wire;

import dev.weft.protocol.ApiKeyTable;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Requests that carried bytes after the end of their message, and how many such bytes, per API key,
 * counted once per process. The proxy ignores these bytes as the broker does: kafka-clients'
 * {@code RequestContext.parseRequest} reads the message from the request buffer and never looks at
 * what is left, so a request with trailing bytes is served. librdkafka 2.x sends one on every
 * all-topics Metadata request v9+ (a 4-byte topic count reserved, a 1-byte null written, 3 zeros
 * left), and {@code weft_request_trailing_bytes_total} shows it on /metrics.
 *
 * <p>Shared by every event loop on purpose: a request with trailing bytes is rare (a Metadata request
 * every few seconds per librdkafka client, none on the Produce/Fetch hot path), so an atomic add per
 * such request costs nothing measurable, and a per-core counter would need a home in every session
 * type. Written by any event loop, read by the metrics scrape.
 */
public final class TrailingRequestBytes {

    private static final AtomicLongArray REQUESTS = new AtomicLongArray(ApiKeyTable.size());
    private static final AtomicLongArray BYTES = new AtomicLongArray(ApiKeyTable.size());

    private TrailingRequestBytes() {
    }

    /**
     * Counts one request of {@code apiKey} that had {@code bytes} bytes after its message; nothing
     * when {@code bytes} is 0 or the key is not one of the protocol's.
     */
    public static void record(int apiKey, int bytes) {
        if (bytes > 0 && apiKey >= 0 && apiKey < ApiKeyTable.size()) {
            REQUESTS.incrementAndGet(apiKey);
            BYTES.addAndGet(apiKey, bytes);
        }
    }

    /** Requests of {@code apiKey} that had bytes after the message, since the process started. */
    public static long requests(int apiKey) {
        return apiKey >= 0 && apiKey < ApiKeyTable.size() ? REQUESTS.get(apiKey) : 0;
    }

    /** Bytes after the message in requests of {@code apiKey}, since the process started. */
    public static long bytes(int apiKey) {
        return apiKey >= 0 && apiKey < ApiKeyTable.size() ? BYTES.get(apiKey) : 0;
    }
}
