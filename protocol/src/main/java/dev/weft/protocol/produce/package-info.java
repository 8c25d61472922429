/**
 * Produce on the hot path: {@link dev.weft.protocol.produce.ProduceRequestSkim} and
 * {@link dev.weft.protocol.produce.ProduceResponseSkim} read topics, partitions and the records ranges
 * without decoding a batch; {@link dev.weft.protocol.produce.ProduceRequestBuilder} splits a request
 * across upstreams; {@link dev.weft.protocol.produce.ProduceResponseMerger} merges their answers in the
 * client's order.
 *
 * <p>Threading: every class here is single-threaded state owned by one event loop (one instance per
 * core or connection, reused frame after frame). Ownership of buffers is stated on each method:
 * skims borrow, {@code records(i)} returns retained, builders and mergers return a new frame the
 * caller owns.
 */
package dev.weft.protocol.produce;
