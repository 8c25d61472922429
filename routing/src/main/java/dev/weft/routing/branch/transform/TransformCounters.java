package dev.weft.routing.branch.transform;

/**
 * What one chain did with the records it saw. Plain fields, no atomics: the branch writer thread owns
 * the chain and is the only writer; a metrics reader on another thread may see slightly stale values.
 */
public final class TransformCounters {

    private long recordsIn;
    private long recordsOut;
    private long droppedSampledOut;
    private long droppedNotJson;
    private long notJsonSeen;
    private long transformErrors;
    private RuntimeException lastError;

    /** Records handed to {@link TransformChain#apply}. */
    public long recordsIn() {
        return recordsIn;
    }

    /** Records the chain emitted, derived ones included. */
    public long recordsOut() {
        return recordsOut;
    }

    /** Records a sample step left out. */
    public long droppedSampledOut() {
        return droppedSampledOut;
    }

    /** Records a redact step dropped because their value was not a JSON object or array ({@code non-json: drop}). */
    public long droppedNotJson() {
        return droppedNotJson;
    }

    /** Records whose value a redact step with value-fields could not read as a JSON object or array, passed or dropped. */
    public long notJsonSeen() {
        return notJsonSeen;
    }

    /** Records (or batches, for a derive step) dropped because a step threw on them. */
    public long transformErrors() {
        return transformErrors;
    }

    /** The last exception a step threw, for the writer's error log; null when none has. */
    public RuntimeException lastError() {
        return lastError;
    }

    void countRecordsIn(int count) {
        recordsIn += count;
    }

    void countRecordOut() {
        recordsOut++;
    }

    void countSampledOut() {
        droppedSampledOut++;
    }

    void countNotJsonSeen() {
        notJsonSeen++;
    }

    void countNotJsonDropped() {
        droppedNotJson++;
    }

    void countTransformError(RuntimeException error) {
        transformErrors++;
        lastError = error;
    }

    @Override
    public String toString() {
        return "TransformCounters[in=" + recordsIn + ", out=" + recordsOut + ", sampledOut=" + droppedSampledOut
                + ", notJsonDropped=" + droppedNotJson + ", notJsonSeen=" + notJsonSeen + ", errors=" + transformErrors + "]";
    }
}
