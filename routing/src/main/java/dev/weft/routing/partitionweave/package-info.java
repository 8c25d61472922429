/**
 * The settings of the partition-weave router ({@code type: partition-weave}, issue #12): logical topics
 * whose partitions are the partitions of physical topics on several routes, concatenated in order
 * ({@link dev.weft.routing.partitionweave.LogicalTopic}, {@link dev.weft.routing.partitionweave.Segment}),
 * and their reader and static validation
 * ({@link dev.weft.routing.partitionweave.PartitionWeaveSettingsReader}).
 *
 * <p>The router itself (its catalog, hot and cold planners and factory) is still to come, so this type is
 * not registered with {@link dev.weft.routing.RouterRegistry} yet and cannot be chosen in a config.
 */
package dev.weft.routing.partitionweave;
