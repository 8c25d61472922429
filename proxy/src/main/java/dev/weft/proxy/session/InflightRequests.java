package dev.weft.proxy.session;

/**
 * The requests a session has forwarded upstream and still owes the client a response for, oldest
 * first. Kafka answers the requests of one connection in order, so matching a response is a look at
 * the head of this queue: no map, no boxing.
 *
 * <p>Primitive ring buffers that double when full (a connection rarely has more than a handful in
 * flight); owned by the session's event loop, never shared.
 */
final class InflightRequests {

    private int[] clientCorrelationIds;
    private int[] upstreamCorrelationIds;
    private short[] apiKeys;
    private short[] apiVersions;
    private long[] sentNanos;
    private int head;
    private int size;

    InflightRequests(int initialCapacity) {
        int capacity = Integer.highestOneBit(Math.max(4, initialCapacity - 1)) << 1;
        clientCorrelationIds = new int[capacity];
        upstreamCorrelationIds = new int[capacity];
        apiKeys = new short[capacity];
        apiVersions = new short[capacity];
        sentNanos = new long[capacity];
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    void add(int clientCorrelationId, int upstreamCorrelationId, short apiKey, short apiVersion, long nowNanos) {
        if (size == clientCorrelationIds.length) {
            grow();
        }
        int i = (head + size) & (clientCorrelationIds.length - 1);
        clientCorrelationIds[i] = clientCorrelationId;
        upstreamCorrelationIds[i] = upstreamCorrelationId;
        apiKeys[i] = apiKey;
        apiVersions[i] = apiVersion;
        sentNanos[i] = nowNanos;
        size++;
    }

    int headUpstreamCorrelationId() {
        return upstreamCorrelationIds[head];
    }

    int headClientCorrelationId() {
        return clientCorrelationIds[head];
    }

    short headApiKey() {
        return apiKeys[head];
    }

    short headApiVersion() {
        return apiVersions[head];
    }

    long headSentNanos() {
        return sentNanos[head];
    }

    void removeHead() {
        head = (head + 1) & (clientCorrelationIds.length - 1);
        size--;
    }

    private void grow() {
        int n = clientCorrelationIds.length;
        clientCorrelationIds = unroll(clientCorrelationIds, new int[n * 2]);
        upstreamCorrelationIds = unroll(upstreamCorrelationIds, new int[n * 2]);
        short[] keys = new short[n * 2];
        short[] versions = new short[n * 2];
        long[] sent = new long[n * 2];
        for (int k = 0; k < size; k++) {
            int i = (head + k) & (n - 1);
            keys[k] = apiKeys[i];
            versions[k] = apiVersions[i];
            sent[k] = sentNanos[i];
        }
        apiKeys = keys;
        apiVersions = versions;
        sentNanos = sent;
        head = 0;
    }

    private int[] unroll(int[] from, int[] to) {
        int n = from.length;
        for (int k = 0; k < size; k++) {
            to[k] = from[(head + k) & (n - 1)];
        }
        return to;
    }
}
