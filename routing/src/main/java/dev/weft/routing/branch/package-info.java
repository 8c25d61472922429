/**
 * Stream branching ({@code type: branch}, DESIGN §1): route 0 is the primary — everything a client does
 * goes there as if the router were not there — and every later route is a branch that receives copies
 * of what the primary acknowledged for the topics it takes, under its own topic names. The router
 * plans; the proxy's exchange sends (the BRANCH plan kind of {@link dev.weft.routing.api.RoutePlan}).
 * Transforms (redact, sample, derive) are the next step of the branching issue.
 */
package dev.weft.routing.branch;
