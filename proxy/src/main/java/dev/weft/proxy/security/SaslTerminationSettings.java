package dev.weft.proxy.security;

import java.util.List;
import java.util.function.LongSupplier;

/**
 * SASL termination of one virtual cluster: what every gateway connection of it authenticates with.
 *
 * @param virtualCluster for log lines and metrics
 * @param mechanisms enabled mechanisms, Kafka names in upper case, in the order the handshake answer lists them
 * @param servers makes the SASL servers, over the credential store
 * @param sessionLifetimeMs KIP-368: how long an authentication holds (told to the client, which re-authenticates
 *     before; a connection used after it is closed); 0 for no limit
 * @param failures failed attempts per peer address
 * @param counters outcomes, for the metrics
 * @param clock nanoseconds, for session expiry
 * @param passwordChecks where PLAIN passwords are checked: salting and hashing one takes milliseconds
 *     (SCRAM's iterations), too long for an event loop
 */
public record SaslTerminationSettings(String virtualCluster, List<String> mechanisms, SaslServers servers, long sessionLifetimeMs,
        FailedAuthentications failures, SaslCounters counters, LongSupplier clock, java.util.concurrent.Executor passwordChecks) {

    public SaslTerminationSettings {
        mechanisms = List.copyOf(mechanisms);
    }
}
