/**
 * Weft's thread-per-core foundation: {@link dev.weft.iocore.EventLoops} owns one event loop per core on
 * the best transport (io_uring, else epoll, else NIO), optionally pinned to CPUs.
 *
 * <p>Threading rules: a core's state (sessions, upstream connections, buffers, metrics writes) is touched
 * only by its own loop. Across cores travel only immutable snapshots published by reference, control
 * messages through a core's {@link dev.weft.iocore.mailbox.CoreMailbox}, and metrics read by one exporter
 * thread ({@link dev.weft.iocore.metrics.MetricsExporter}). See {@code io-core/README.md}.
 */
package dev.weft.iocore;
