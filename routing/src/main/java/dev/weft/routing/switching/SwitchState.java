package dev.weft.routing.switching;

/**
 * Where a switch points and whether it serves. {@code epoch} counts cutovers: the fleet state's records
 * of one epoch belong to the replica that wrote the epoch's first record, so two replicas never run a
 * cutover of one switch at once.
 *
 * @param active the route clients are served by
 * @param fenced true while a cutover waits for replication: Produce to the active route is refused retriably
 * @param epoch 0 at first start, one more per cutover begun
 * @param known false while this replica cannot read the fleet state: it then serves nothing through the
 *     switch (no brokers, no topics, Produce refused retriably) rather than risk serving the wrong cluster
 */
public record SwitchState(int active, boolean fenced, long epoch, boolean known) {

    public SwitchState(int active, boolean fenced, long epoch) {
        this(active, fenced, epoch, true);
    }

    /** A cutover begins: fenced, in the next epoch. */
    public SwitchState fence() {
        return new SwitchState(active, true, epoch + 1, true);
    }

    public SwitchState unfence() {
        return new SwitchState(active, false, epoch, true);
    }

    /** Served by {@code route} from now on, unfenced, in the same epoch as the fence that began the cutover. */
    public SwitchState pointedAt(int route) {
        return new SwitchState(route, false, epoch, true);
    }

    /** The fleet state cannot be read: serve nothing until it can. */
    public SwitchState unknown() {
        return new SwitchState(active, fenced, epoch, false);
    }
}
