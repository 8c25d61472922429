package dev.weft.routing.branch.transform;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code derive: audit}: one record per acknowledged batch saying who wrote how much where, whatever
 * the steps before it kept of the batch (so an audit branch sees every batch, sampled or not). Key
 * {@code <topic>-<partition>}; value
 * {@code {"virtual_cluster","topic","partition","base_offset","record_count","client_id","principal","time"}},
 * where record_count is the batch's own count; timestamp the acknowledgement time.
 */
final class AuditStep implements DeriveStep {

    @Override
    public void onBatch(BatchContext batch, List<BranchRecord> reached, List<BranchRecord> derived) {
        ObjectNode value = Json.object();
        value.put("virtual_cluster", batch.virtualCluster());
        value.put("topic", batch.topic());
        value.put("partition", batch.partition());
        value.put("base_offset", batch.baseOffset());
        value.put("record_count", batch.recordCount());
        value.put("client_id", batch.clientId());
        value.put("principal", batch.principal());
        value.put("time", batch.timeMs());
        byte[] key = (batch.topic() + "-" + batch.partition()).getBytes(StandardCharsets.UTF_8);
        derived.add(BranchRecord.of(key, Json.write(value), batch.timeMs()));
    }

    @Override
    public void tick(long nowMs, List<BranchRecord> derived) {
        // An audit record is due with its batch; time alone makes none.
    }
}
