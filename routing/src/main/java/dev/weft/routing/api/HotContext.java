package dev.weft.routing.api;

/** What a {@link HotPlanner} may know of the client's connection and the virtual cluster's snapshots. */
public interface HotContext {

    /** The route of the broker the connection is bound to, or -1 for a bootstrap connection. */
    int ownRoute();

    /** The current topic catalog with its precomputed upstream keys (routers that use one). */
    HotCatalog catalog();
}
