/**
 * Rack-aware fetch routing (DESIGN §1): a Fetch partition whose chosen broker is in another zone than
 * the proxy's, but which has an in-sync replica in the proxy's zone, is read from that replica — what
 * KIP-392 follower fetching gives a consumer that sets {@code client.rack}, done by the proxy for every
 * consumer. It decides <em>which broker</em> of a leaf serves a partition, after the virtual cluster's
 * router decided which leaf: {@link dev.weft.routing.rack.RackAwareRouter} wraps any router.
 */
package dev.weft.routing.rack;
