package dev.weft.routing.switching;

/**
 * Where a switch points and whether Produce through it is fenced. {@code epoch} counts switches: the
 * fleet state's record with the highest epoch is the current one, so a replica that reads an older one
 * ignores it.
 *
 * @param active the route clients are served by
 * @param fenced true while a cutover waits for replication: Produce to the active route is refused retriably
 * @param epoch 0 at first start, one more per completed switch
 */
public record SwitchState(int active, boolean fenced, long epoch) {

    public SwitchState fence() {
        return new SwitchState(active, true, epoch);
    }

    public SwitchState unfence() {
        return new SwitchState(active, false, epoch);
    }

    /** Served by {@code route} from now on, unfenced, one epoch later. */
    public SwitchState pointedAt(int route) {
        return new SwitchState(route, false, epoch + 1);
    }
}
