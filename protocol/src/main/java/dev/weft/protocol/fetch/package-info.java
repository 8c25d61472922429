/**
 * Fetch on the hot path: {@link dev.weft.protocol.fetch.FetchRequestSkim} and
 * {@link dev.weft.protocol.fetch.FetchResponseSkim} read the fetch parameters, partitions and records
 * ranges in place; {@link dev.weft.protocol.fetch.FetchRequestBuilder} splits a Fetch (rack-aware
 * routing, collapsed topologies); {@link dev.weft.protocol.fetch.FetchResponseMerger} merges the
 * answers, records carried as retained slices.
 *
 * <p>Threading: single-threaded state owned by one event loop, reused frame after frame. Ownership of
 * buffers is stated on each method.
 */
package dev.weft.protocol.fetch;
