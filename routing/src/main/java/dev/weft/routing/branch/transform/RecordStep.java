package dev.weft.routing.branch.transform;

/** A step that looks at one record at a time and keeps, changes or drops it (redact, sample). */
interface RecordStep {

    /**
     * The record as this step leaves it, or null when the step drops it (having counted why). It may
     * throw: the chain then drops the record, counts a transform error and goes on with the next one.
     */
    BranchRecord apply(BranchRecord record);
}
