package dev.weft.routing.switching;

import java.time.Duration;
import java.util.List;

/**
 * A switch router's settings.
 *
 * @param initialActive the route served when the fleet state holds no switch record yet
 * @param mirrorAliases per route, the cluster alias MirrorMaker 2 knows it by (default: the route's name)
 * @param stateCluster the cluster holding the fleet's switch records; null: none (this replica decides alone)
 * @param stateLease how long a replica may serve after it last read every switch record
 * @param catchUpTimeout how long a cutover waits for replication before it aborts and unfences
 * @param drainTimeout how long client connections get to finish their in-flight requests when drained
 * @param failover automatic failover, or null for none
 */
public record SwitchSettings(int initialActive, List<String> mirrorAliases, String stateCluster, Duration stateLease,
        Duration catchUpTimeout,
        Duration drainTimeout, Failover failover) {

    public static final Duration DEFAULT_CATCH_UP_TIMEOUT = Duration.ofSeconds(60);
    public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(5);
    public static final Duration DEFAULT_STATE_LEASE = Duration.ofSeconds(5);

    public SwitchSettings {
        mirrorAliases = List.copyOf(mirrorAliases);
    }

    /**
     * After the active route has been unreachable for {@code after}, the switch moves to {@code standby}
     * without waiting for replication (the old cluster cannot be read).
     */
    public record Failover(int standby, Duration after) {
    }
}
