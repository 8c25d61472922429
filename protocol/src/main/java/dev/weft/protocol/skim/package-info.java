/**
 * Machinery shared by the Produce and Fetch skim codecs: the skim base classes
 * ({@link dev.weft.protocol.skim.PartitionSkim}: topic table, per-partition offsets and the topic walk;
 * {@link dev.weft.protocol.skim.RequestSkim}, {@link dev.weft.protocol.skim.ResponseSkim}), the records
 * ranges, the split scaffolding ({@link dev.weft.protocol.skim.RequestSplitter}), the merge bookkeeping
 * ({@link dev.weft.protocol.skim.MergeBookkeeping}), topic renames and partition renumbering on both
 * ({@link dev.weft.protocol.skim.UpstreamTopicKeys}, per topic or per partition;
 * {@link dev.weft.protocol.skim.UpstreamPartitions}), bounds-checked length reads
 * ({@link dev.weft.protocol.skim.SkimReads}), the topic table, the output
 * {@link dev.weft.protocol.skim.FrameAssembler} (new metadata + retained record slices, size prefix
 * included), wire writers, and node-endpoint rewriting
 * ({@link dev.weft.protocol.skim.NodeEndpointRewriter}, {@link dev.weft.protocol.skim.NodeEndpointList},
 * {@link dev.weft.protocol.skim.NodeEndpointUnion}, {@link dev.weft.protocol.skim.NodeEndpointRewrite}).
 *
 * <p>Threading: single-threaded state owned by one event loop.
 */
package dev.weft.protocol.skim;
