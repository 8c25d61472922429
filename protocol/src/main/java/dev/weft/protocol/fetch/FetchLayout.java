package dev.weft.protocol.fetch;

/**
 * Where the fixed-width fields of Fetch requests and responses sit, per version: offsets from the
 * start of the body (top level) or of a partition entry, -1 where the version lacks the field.
 * Computed once per wrap from the version, so the getters are a load and an add.
 */
final class FetchLayout {

    // request, top level (from the body start)
    int maxWaitOffset;
    int requestFixedBytes;

    // request partition entry
    int currentLeaderEpochOffset;
    int fetchOffsetOffset;
    int lastFetchedEpochOffset;
    int logStartOffsetOffset;
    int partitionMaxBytesOffset;
    int fetchPartitionFixedBytes;

    void request(short version) {
        // replica_id left the body for the replica_state tagged field in v15
        maxWaitOffset = version >= FetchRequestSkim.FIRST_REPLICA_STATE_VERSION ? 0 : 4;
        // max_wait, min_bytes, max_bytes, isolation_level, [session_id, session_epoch]
        requestFixedBytes = maxWaitOffset + 4 + 4 + 4 + 1
                + (version >= FetchRequestSkim.FIRST_SESSION_VERSION ? 8 : 0);
        int o = 4; // partition
        currentLeaderEpochOffset = -1;
        if (version >= FetchRequestSkim.FIRST_CURRENT_LEADER_EPOCH_VERSION) {
            currentLeaderEpochOffset = o;
            o += 4;
        }
        fetchOffsetOffset = o;
        o += 8;
        lastFetchedEpochOffset = -1;
        if (version >= FetchRequestSkim.FIRST_FLEXIBLE_VERSION) {
            lastFetchedEpochOffset = o;
            o += 4;
        }
        logStartOffsetOffset = -1;
        if (version >= FetchRequestSkim.FIRST_LOG_START_OFFSET_VERSION) {
            logStartOffsetOffset = o;
            o += 8;
        }
        partitionMaxBytesOffset = o;
        o += 4;
        fetchPartitionFixedBytes = o;
    }
}
