package dev.weft.proxy.switching;

import dev.weft.routing.switching.SwitchState;

/** A switch without {@code state.cluster}: this replica decides alone (one replica, or replicas switched one by one). */
final class LocalSwitchStore implements SwitchStore {

    private final SwitchGroup group;

    LocalSwitchStore(SwitchGroup group) {
        this.group = group;
    }

    @Override
    public SwitchState fence(SwitchState from, String reason) {
        SwitchState fenced = from.fence();
        group.apply(fenced, reason);
        return fenced;
    }

    @Override
    public void unfence(SwitchState fenced) {
        group.apply(fenced.unfence(), null);
    }

    @Override
    public void repoint(SwitchState fenced, int route, String reason) {
        group.apply(fenced.pointedAt(route), reason);
    }

    @Override
    public String describe() {
        return "kept by this replica alone (no state.cluster)";
    }

    @Override
    public void close() {
    }
}
