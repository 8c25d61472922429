/**
 * Connection switching (DESIGN §1): a {@code switch} router serves one of its candidate routes — the
 * active one — as if it were the whole virtual cluster (its topics under their own names, groups and
 * transactions homed there, only its brokers in Metadata), and can be fenced and re-pointed at runtime.
 * The state lives here ({@link SwitchRouter#state()}, {@link SwitchRouter#apply}); the cutover that
 * decides it (fence, replication catch-up, group offsets, the fleet record) is the proxy's
 * ({@code dev.weft.proxy.switching}), because it talks to clusters.
 */
package dev.weft.routing.switching;
