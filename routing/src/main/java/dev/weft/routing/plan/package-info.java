/**
 * Cold-path request planning for a virtual cluster over several routes (DESIGN §5): for each API that
 * is not per-record traffic, a {@link dev.weft.routing.plan.ColdPlanner} turns the client's request
 * into a {@link dev.weft.routing.plan.Step}: send parts to routes and continue with their answers,
 * forward the frame unchanged to the connection's own broker, or respond. The proxy interprets the
 * steps (connections, correlation ids, ordering); planners are pure functions over kafka-clients'
 * message classes and know nothing about sockets.
 */
package dev.weft.routing.plan;
