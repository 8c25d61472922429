/**
 * Bad input, faults and load against a live proxy and real brokers (issue 3), for every kind of virtual
 * cluster ({@link dev.weft.proxy.testing.VirtualClusterKind}: pass-through, topic-woven, collapsed): each
 * class starts its clusters once and one proxy per kind ({@link dev.weft.proxy.testing.VirtualClusterFixture}),
 * and runs each case per kind; where a kind answers differently by design the case says which and why.
 * {@code -Dweft.kinds=collapsed} (comma-separated slugs) runs one kind's cases only.
 *
 * <ul>
 *   <li>{@link dev.weft.proxy.resilience.ProxyFuzzTest}: 100,000 seeded mutated frames from a real-client
 *       corpus over thousands of connections; refusals closed with a log line naming the peer, responses
 *       well-formed and in order, no leak, a real round trip afterwards.</li>
 *   <li>{@link dev.weft.proxy.resilience.ManyConnectionsTest}: 2,000 connections held open and served;
 *       RSS and descriptors reported.</li>
 *   <li>{@link dev.weft.proxy.resilience.BrokerKillUnderLoadTest}: a broker killed and restarted under an
 *       idempotent 100,000-record load; every acknowledged record exactly once.</li>
 *   <li>{@link dev.weft.proxy.resilience.UpstreamFailureTest}: a broker dying mid-response (a relay cuts
 *       responses in half) and a stopped broker refusing connections.</li>
 *   <li>{@link dev.weft.proxy.resilience.SlowReaderTest}: clients that never read are throttled with
 *       bounded proxy memory while others are served.</li>
 * </ul>
 *
 * <p>Figures (frame counts, RSS, pauses, memory) are printed with a {@code [tag]} prefix to the test
 * output ({@code target/surefire-reports/*-output.txt}), with the kind in the tag. The proxy runs in the test JVM together with
 * the embedded brokers, so process-wide figures include them.
 */
package dev.weft.proxy.resilience;
