package dev.weft.routing.branch.transform;

/**
 * What the branch writer knows about one record batch the primary acknowledged: where it went, who
 * sent it and when the primary took it. The derive steps build their records from it.
 *
 * @param virtualCluster the virtual cluster the client is connected to
 * @param topic the topic name as the client knows it
 * @param partition the partition the batch went to
 * @param baseOffset the offset the primary gave the batch's first record
 * @param recordCount how many records the client put in the batch
 * @param clientId the client id of the producing connection, null when it sent none
 * @param principal who the client authenticated as, null or "ANONYMOUS" when it did not
 * @param timeMs when the primary acknowledged the batch, in epoch milliseconds
 */
public record BatchContext(String virtualCluster, String topic, int partition, long baseOffset, int recordCount,
        String clientId, String principal, long timeMs) {
}
