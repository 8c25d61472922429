package dev.weft.proxy.switching;

import dev.weft.routing.switching.SwitchState;

/**
 * Where a switch's cutover puts its decisions in force: in this replica alone ({@link LocalSwitchStore}),
 * or through the fleet's switch records, which every replica follows ({@link FleetSwitchStore}). Each call
 * returns once the decision is in force here, and for {@link #fence} once every replica has either fenced
 * or stopped serving.
 */
interface SwitchStore extends AutoCloseable {

    /**
     * Begins a cutover from {@code from}: produce fenced, client connections drained.
     *
     * @return the fenced state, in the cutover's epoch
     * @throws SwitchController.RefusedException when another replica began a cutover of the same epoch first
     */
    SwitchState fence(SwitchState from, String reason) throws SwitchController.RefusedException, InterruptedException;

    /** Ends an aborted cutover: the old route unfenced, still active. */
    void unfence(SwitchState fenced) throws InterruptedException;

    /** Ends a cutover: {@code route} active, unfenced; client connections drained so they learn it. */
    void repoint(SwitchState fenced, int route, String reason) throws InterruptedException;

    /** One line for the logs: where decisions are kept. */
    String describe();

    @Override
    void close();
}
