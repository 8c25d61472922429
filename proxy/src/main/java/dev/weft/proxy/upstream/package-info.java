/**
 * Upstream clusters and connections (DESIGN §3): each cluster's brokers and topology
 * ({@link dev.weft.proxy.upstream.UpstreamCluster}), a session's connections to its brokers
 * ({@link dev.weft.proxy.upstream.UpstreamLinks}, one {@link dev.weft.proxy.upstream.UpstreamLink} per
 * broker, on the session's event loop), and the requests counted per broker
 * ({@link dev.weft.proxy.upstream.UpstreamRequestCounters}). The links see their session only as an
 * {@link dev.weft.proxy.upstream.UpstreamLinks.Client}.
 */
package dev.weft.proxy.upstream;
