/**
 * Record batches read and written in place: {@link dev.weft.protocol.record.RecordBatchView}, the
 * flyweight over a magic-2 batch header that iterates a records range and rewrites producer id and
 * epoch with the CRC-32C recomputed (producer-id translation, DESIGN §5). Single-threaded; borrows.
 */
package dev.weft.protocol.record;
