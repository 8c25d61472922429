/**
 * Fleet state (DESIGN §5): what every replica of a proxy fleet must agree on, kept in Kafka itself — a
 * compacted one-partition topic whose total order is the consensus, tailed by every replica. Here: the
 * switch records ({@link SwitchLog}); the producer-id claims live in {@code dev.weft.proxy.pid} still.
 */
package dev.weft.proxy.fleet;
