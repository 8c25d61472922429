/**
 * Real-client conformance suite (issue 3, "Real clients, verified by content"): real Kafka clients
 * of several families talk to real embedded brokers through Weft, and every scenario checks what
 * arrived (counts, checksums, per-partition order, byte-identical keys, values and headers), not
 * only that nothing threw.
 *
 * <p>Clients: kafka-clients 4.x in this JVM, kafka-clients 3.x in a JVM of its own, librdkafka 2.0
 * ({@code kcat}, python {@code confluent_kafka}), a current librdkafka (2.15, npm
 * {@code @confluentinc/kafka-javascript} built from source), kafkajs, and Kafka's CLI tools as forked
 * JVMs. The native tools come from Debian packages and npm; a missing one fails the test with the
 * package to install ({@code .ci/run} installs them all).
 *
 * <p>Oracles: the data a client under test produced through the proxy is read back from the brokers
 * directly (not through the proxy), and the data a client under test consumes through the proxy was
 * written to the brokers directly, so a fault in the proxy cannot hide itself on both sides.
 */
package dev.weft.proxy.conformance;
