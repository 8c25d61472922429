/**
 * Machinery shared by the Produce and Fetch skim codecs: bounds-checked length reads
 * ({@link dev.weft.protocol.skim.SkimReads}), the topic table, the output
 * {@link dev.weft.protocol.skim.FrameAssembler} (new metadata + retained record slices, size prefix
 * included), wire writers, and node-endpoint rewriting
 * ({@link dev.weft.protocol.skim.NodeEndpointRewriter}, {@link dev.weft.protocol.skim.NodeEndpointList},
 * {@link dev.weft.protocol.skim.NodeEndpointUnion}, {@link dev.weft.protocol.skim.NodeEndpointRewrite}).
 *
 * <p>Threading: single-threaded state owned by one event loop.
 */
package dev.weft.protocol.skim;
