package dev.weft.proxy.switching;

import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.Map;

/**
 * MirrorMaker 2 had not copied the source's records up to the end offsets read at the start of a
 * {@link ReplicationCatchUp#await catch-up} when its timeout passed. The message names every
 * topic-partition still behind and by how many offsets, for an operator reading a log line.
 */
public final class MirrorLagException extends Exception {

    private final transient ReplicationCatchUp.Progress progress;

    MirrorLagException(String flow, Duration timeout, ReplicationCatchUp.Progress progress, String extra) {
        super(message(flow, timeout, progress, extra));
        this.progress = progress;
    }

    /** Every partition's progress when the timeout passed, the behind ones included. */
    public ReplicationCatchUp.Progress progress() {
        return progress;
    }

    /** The partitions still behind and by how many offsets. */
    public Map<TopicPartition, Long> behind() {
        return progress.behind();
    }

    private static String message(String flow, Duration timeout, ReplicationCatchUp.Progress progress, String extra) {
        Map<TopicPartition, ReplicationCatchUp.PartitionProgress> behind = progress.behindPartitions();
        StringBuilder text = new StringBuilder("MirrorMaker 2 (").append(flow).append(") has not caught up within ")
            .append(timeout).append(": ").append(behind.size()).append(" of ").append(progress.partitions().size())
            .append(" partitions behind: ");
        String separator = "";
        for (ReplicationCatchUp.PartitionProgress partition : behind.values()) {
            text.append(separator).append(partition.describe());
            separator = "; ";
        }
        if (extra != null && !extra.isEmpty()) {
            text.append(". ").append(extra);
        }
        return text.toString();
    }
}
