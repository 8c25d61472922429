/**
 * The exchanges of a client connection (DESIGN §3): Produce and Fetch on the hot path
 * ({@link dev.weft.proxy.exchange.HotProduce}, {@link dev.weft.proxy.exchange.HotFetch}: planned per
 * partition, forwarded as they are or split into one part per target and merged back, with the Fetch
 * wait semantics of a split), and the cold path's plans ({@link dev.weft.proxy.exchange.PlanRun},
 * {@link dev.weft.proxy.exchange.ColdExchange}). An exchange sees its session only as an
 * {@link dev.weft.proxy.exchange.ExchangeHost}; the session sees these entry points (and
 * {@link dev.weft.proxy.exchange.ProduceAcks} for its forward path); the rest is package-private.
 */
package dev.weft.proxy.exchange;
