package dev.weft.proxy.upstream;

import dev.weft.iocore.EventLoops;
import dev.weft.iocore.buffer.BufferPolicy;

/**
 * What every upstream link of a proxy is opened with.
 *
 * @param loops the proxy's event loops (a link is opened on its session's own core)
 * @param buffers allocation policy for upstream channels
 * @param maxFrameBytes largest frame accepted from a broker
 * @param connectTimeoutMillis how long connecting to a broker may take
 */
public record LinkSettings(EventLoops loops, BufferPolicy buffers, int maxFrameBytes, int connectTimeoutMillis) {
}
