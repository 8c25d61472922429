package dev.weft.proxy.branch;

/**
 * The primary's successful answer to a client's EndTxn, as a writer that holds transactional batches
 * needs it: which producer's transaction ended, and how.
 *
 * @param producerId the producer id of the transaction (the one its batches carry)
 * @param committed true for a commit, false for an abort
 */
record TransactionEnd(long producerId, boolean committed) {
}
