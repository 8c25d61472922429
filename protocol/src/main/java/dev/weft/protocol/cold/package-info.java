/**
 * The cold path: every API that the hot path does not skim is decoded and re-encoded through
 * kafka-clients' generated {@code *Data} classes by {@link dev.weft.protocol.cold.ColdCodec}.
 *
 * <p>"Cold" because these messages are rare next to Produce and Fetch (Metadata, FindCoordinator,
 * DescribeCluster, group and admin APIs): allocating a message object per request is fine here, and
 * reusing kafka-clients' code gives byte-for-byte agreement with real clients and brokers for every API
 * key and version, which {@code ColdCodecOracleTest} checks against kafka-clients as the oracle.
 */
package dev.weft.protocol.cold;
