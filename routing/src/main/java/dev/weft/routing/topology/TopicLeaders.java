package dev.weft.routing.topology;

import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;

/**
 * The partitions of one upstream topic: per partition its leader, leader epoch, replicas, in-sync
 * replicas and offline replicas, as last seen in a Metadata response. Immutable; one instance belongs
 * to one {@link PartitionLeadership} snapshot (a newer snapshot may hold a newer instance for the same
 * topic, so a caller caching this object per connection re-resolves it when
 * {@link PartitionLeadership#version()} changes).
 *
 * <p>Hot path: resolve the topic once per request (by name or by id), then index it per partition.
 * Every accessor taking a partition is allocation-free and total: a partition outside
 * {@code 0..partitionCount()-1} reads as {@link #UNKNOWN} (the topic may have grown: refresh), never
 * throws. Copies ({@link #replicas(int)} and the like) are for cold paths.
 */
public final class TopicLeaders {

    /** {@link #leader(int)}: the last Metadata said this partition has no leader (election pending, offline). */
    public static final int NO_LEADER = -1;
    /**
     * {@link #leader(int)}: the leader is not known: it moved (an upstream answered
     * NOT_LEADER_OR_FOLLOWER), or the partition was never seen. Ask Metadata again.
     */
    public static final int UNKNOWN = -2;

    private static final int[] EMPTY = new int[0];
    private static final short NONE = Errors.NONE.code();
    private static final short NOT_SEEN = Errors.UNKNOWN_TOPIC_OR_PARTITION.code();
    private static final short MOVED = Errors.NOT_LEADER_OR_FOLLOWER.code();

    private final String name;
    private final Uuid topicId;
    private final long idMsb;
    private final long idLsb;
    private final int[] leaders;
    private final int[] epochs;
    private final short[] errors;
    /** Never mutated once built; shared between successive instances of the same topic. */
    private final int[][] replicas;
    private final int[][] isr;
    private final int[][] offline;
    private final int needingRefresh;

    private TopicLeaders(String name, Uuid topicId, int[] leaders, int[] epochs, short[] errors, int[][] replicas,
            int[][] isr, int[][] offline) {
        this.name = name;
        this.topicId = topicId;
        this.idMsb = topicId.getMostSignificantBits();
        this.idLsb = topicId.getLeastSignificantBits();
        this.leaders = leaders;
        this.epochs = epochs;
        this.errors = errors;
        this.replicas = replicas;
        this.isr = isr;
        this.offline = offline;
        int n = 0;
        for (int leader : leaders) {
            if (leader < 0) {
                n++;
            }
        }
        this.needingRefresh = n;
    }

    /** The topic as a Metadata response entry without a topic-level error describes it. */
    static TopicLeaders of(MetadataResponseTopic t) {
        return empty(t.name(), idOf(t)).mergedWith(t);
    }

    private static TopicLeaders empty(String name, Uuid id) {
        return new TopicLeaders(name, id, EMPTY, EMPTY, new short[0], new int[0][], new int[0][], new int[0][]);
    }

    public String name() {
        return name;
    }

    /** The topic id, or {@link Uuid#ZERO_UUID} when no response seen so far carried one (Metadata v0–v9). */
    public Uuid topicId() {
        return topicId;
    }

    public long topicIdMsb() {
        return idMsb;
    }

    public long topicIdLsb() {
        return idLsb;
    }

    public boolean hasTopicId() {
        return idMsb != 0 || idLsb != 0;
    }

    /** One more than the highest partition index seen. */
    public int partitionCount() {
        return leaders.length;
    }

    /**
     * The real leader's node id, {@link #NO_LEADER} when the upstream says there is none, or
     * {@link #UNKNOWN} when it moved or was never seen.
     */
    public int leader(int partition) {
        return partition >= 0 && partition < leaders.length ? leaders[partition] : UNKNOWN;
    }

    /**
     * The leader epoch last seen, -1 when unknown (never seen, or Metadata below v7). An invalidated
     * partition keeps its last epoch: a newer answer must carry at least this one.
     */
    public int leaderEpoch(int partition) {
        return partition >= 0 && partition < epochs.length ? epochs[partition] : -1;
    }

    /**
     * The error to report for the partition: the one the last Metadata gave it (NONE,
     * LEADER_NOT_AVAILABLE, REPLICA_NOT_AVAILABLE, ...), NOT_LEADER_OR_FOLLOWER once invalidated,
     * UNKNOWN_TOPIC_OR_PARTITION when never seen.
     */
    public short error(int partition) {
        return partition >= 0 && partition < errors.length ? errors[partition] : NOT_SEEN;
    }

    /** True when the partition cannot be routed until Metadata is asked again: no leader, or not known. */
    public boolean needsRefresh(int partition) {
        return leader(partition) < 0;
    }

    /** True when some partition {@linkplain #needsRefresh(int) needs a refresh}. */
    public boolean needsRefresh() {
        return needingRefresh > 0;
    }

    /** The partitions that {@linkplain #needsRefresh(int) need a refresh}, ascending (a copy). */
    public int[] partitionsNeedingRefresh() {
        int[] out = new int[needingRefresh];
        int n = 0;
        for (int p = 0; p < leaders.length; p++) {
            if (leaders[p] < 0) {
                out[n++] = p;
            }
        }
        return out;
    }

    public int replicaCount(int partition) {
        return partition >= 0 && partition < replicas.length ? replicas[partition].length : 0;
    }

    /** The {@code i}th replica of the partition, {@code 0 <= i < replicaCount(partition)}. */
    public int replica(int partition, int i) {
        return replicas[partition][i];
    }

    public int isrCount(int partition) {
        return partition >= 0 && partition < isr.length ? isr[partition].length : 0;
    }

    /** The {@code i}th in-sync replica of the partition, {@code 0 <= i < isrCount(partition)}. */
    public int isr(int partition, int i) {
        return isr[partition][i];
    }

    /** Whether {@code nodeId} is in the partition's last known ISR (rack-aware fetch asks this). */
    public boolean isInSync(int partition, int nodeId) {
        if (partition < 0 || partition >= isr.length) {
            return false;
        }
        for (int n : isr[partition]) {
            if (n == nodeId) {
                return true;
            }
        }
        return false;
    }

    /** The partition's replicas (a copy; empty when unknown). */
    public int[] replicas(int partition) {
        return partition >= 0 && partition < replicas.length ? replicas[partition].clone() : EMPTY;
    }

    /** The partition's in-sync replicas (a copy; empty when unknown). */
    public int[] isr(int partition) {
        return partition >= 0 && partition < isr.length ? isr[partition].clone() : EMPTY;
    }

    /** The partition's offline replicas (a copy; empty when unknown or before Metadata v5). */
    public int[] offlineReplicas(int partition) {
        return partition >= 0 && partition < offline.length ? offline[partition].clone() : EMPTY;
    }

    /**
     * This topic updated by a response entry without a topic-level error; {@code this} when nothing
     * changes. A different non-zero topic id means the topic was deleted and created again under the
     * same name: nothing known carries over. Otherwise partitions the entry lists replace the known
     * ones unless the entry's leader epoch is older than the known epoch (a broker with stale
     * metadata); partitions the entry leaves out are kept.
     */
    TopicLeaders mergedWith(MetadataResponseTopic t) {
        Uuid id = idOf(t);
        boolean entryHasId = !Uuid.ZERO_UUID.equals(id);
        if (entryHasId && hasTopicId() && !id.equals(topicId)) {
            return empty(name, id).mergedWith(t);
        }
        int count = leaders.length;
        for (MetadataResponsePartition p : t.partitions()) {
            count = Math.max(count, p.partitionIndex() + 1);
        }
        int[] newLeaders = Arrays.copyOf(leaders, count);
        int[] newEpochs = Arrays.copyOf(epochs, count);
        short[] newErrors = Arrays.copyOf(errors, count);
        int[][] newReplicas = Arrays.copyOf(replicas, count);
        int[][] newIsr = Arrays.copyOf(isr, count);
        int[][] newOffline = Arrays.copyOf(offline, count);
        for (int p = leaders.length; p < count; p++) {
            newLeaders[p] = UNKNOWN;
            newEpochs[p] = -1;
            newErrors[p] = NOT_SEEN;
            newReplicas[p] = EMPTY;
            newIsr[p] = EMPTY;
            newOffline[p] = EMPTY;
        }
        for (MetadataResponsePartition p : t.partitions()) {
            int i = p.partitionIndex();
            if (i < 0 || i >= count) {
                continue; // negative, or so large its count overflowed: not a partition a broker has
            }
            int known = newEpochs[i];
            if (p.leaderEpoch() >= 0 && known >= 0 && p.leaderEpoch() < known) {
                continue; // an older view than the one we have
            }
            boolean usable = p.leaderId() >= 0
                    && (p.errorCode() == NONE || p.errorCode() == Errors.REPLICA_NOT_AVAILABLE.code());
            newLeaders[i] = usable ? p.leaderId() : NO_LEADER;
            newEpochs[i] = p.leaderEpoch();
            newErrors[i] = p.errorCode();
            newReplicas[i] = same(replicas, i, p.replicaNodes());
            newIsr[i] = same(isr, i, p.isrNodes());
            newOffline[i] = same(offline, i, p.offlineReplicas());
        }
        Uuid newId = entryHasId ? id : topicId;
        if (newId.equals(topicId) && count == leaders.length && Arrays.equals(newLeaders, leaders)
                && Arrays.equals(newEpochs, epochs) && Arrays.equals(newErrors, errors)
                && sameArrays(newReplicas, replicas) && sameArrays(newIsr, isr) && sameArrays(newOffline, offline)) {
            return this;
        }
        return new TopicLeaders(name, newId, newLeaders, newEpochs, newErrors, newReplicas, newIsr, newOffline);
    }

    /** Marks the partition's leader {@link #UNKNOWN} (it moved); {@code this} when already unknown or out of range. */
    TopicLeaders invalidated(int partition) {
        if (partition < 0 || partition >= leaders.length || leaders[partition] == UNKNOWN) {
            return this;
        }
        int[] newLeaders = leaders.clone();
        short[] newErrors = errors.clone();
        newLeaders[partition] = UNKNOWN;
        newErrors[partition] = MOVED;
        return new TopicLeaders(name, topicId, newLeaders, epochs, newErrors, replicas, isr, offline);
    }

    /**
     * The partition led by {@code leaderId} at {@code leaderEpoch}, as an upstream's
     * NOT_LEADER_OR_FOLLOWER answer names it (Produce v10+, Fetch v12+ {@code current_leader}). Applied
     * only when the epoch is newer than the known one, or as new when the leader is not known now;
     * a negative leader id just invalidates. Replicas and ISR stay the last known.
     */
    TopicLeaders withLeader(int partition, int leaderId, int leaderEpoch) {
        if (partition < 0 || partition >= leaders.length) {
            return this;
        }
        if (leaderId < 0) {
            return invalidated(partition);
        }
        int known = epochs[partition];
        boolean newer = leaderEpoch > known || (leaders[partition] < 0 && leaderEpoch >= known);
        if (!newer || (leaders[partition] == leaderId && known == leaderEpoch)) {
            return this;
        }
        int[] newLeaders = leaders.clone();
        int[] newEpochs = epochs.clone();
        short[] newErrors = errors.clone();
        newLeaders[partition] = leaderId;
        newEpochs[partition] = leaderEpoch;
        newErrors[partition] = NONE;
        return new TopicLeaders(name, topicId, newLeaders, newEpochs, newErrors, replicas, isr, offline);
    }

    /**
     * The partition with {@code nodeId} taken out of its in-sync replicas, as when that replica served a
     * read badly (an error, or behind the high watermark the client already saw): reads go to the
     * leader until a newer Metadata answer lists the replica in sync again. {@code this} when it is not
     * in the ISR or is the leader (the leader is always read from; its errors are the client's).
     */
    TopicLeaders withoutInSync(int partition, int nodeId) {
        if (!isInSync(partition, nodeId) || leader(partition) == nodeId) {
            return this;
        }
        int[][] newIsr = isr.clone();
        newIsr[partition] = without(isr[partition], nodeId);
        return new TopicLeaders(name, topicId, leaders, epochs, errors, replicas, newIsr, offline);
    }

    /** {@link #withoutInSync(int, int)} for every partition: the replica's broker cannot be reached. */
    TopicLeaders withoutInSync(int nodeId) {
        int[][] newIsr = null;
        for (int p = 0; p < isr.length; p++) {
            if (leaders[p] != nodeId && isInSync(p, nodeId)) {
                if (newIsr == null) {
                    newIsr = isr.clone();
                }
                newIsr[p] = without(isr[p], nodeId);
            }
        }
        return newIsr == null ? this : new TopicLeaders(name, topicId, leaders, epochs, errors, replicas, newIsr, offline);
    }

    private static int[] without(int[] ids, int nodeId) {
        int[] out = new int[ids.length - 1];
        int n = 0;
        for (int id : ids) {
            if (id != nodeId) {
                out[n++] = id;
            }
        }
        return out;
    }

    static Uuid idOf(MetadataResponseTopic t) {
        return t.topicId() == null ? Uuid.ZERO_UUID : t.topicId();
    }

    /** The known array when it equals the new list (kept shared), else the list as an array. */
    private static int[] same(int[][] known, int i, List<Integer> ids) {
        int size = ids == null ? 0 : ids.size();
        if (i < known.length && known[i].length == size) {
            boolean equal = true;
            for (int k = 0; k < size && equal; k++) {
                equal = known[i][k] == ids.get(k);
            }
            if (equal) {
                return known[i];
            }
        }
        if (size == 0) {
            return EMPTY;
        }
        int[] out = new int[size];
        for (int k = 0; k < size; k++) {
            out[k] = ids.get(k);
        }
        return out;
    }

    private static boolean sameArrays(int[][] a, int[][] b) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] != b[i] && !Arrays.equals(a[i], b[i])) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("TopicLeaders{").append(name).append(' ').append(topicId).append(" [");
        for (int p = 0; p < leaders.length; p++) {
            if (p > 0) {
                sb.append(", ");
            }
            sb.append(p).append("->").append(leaders[p] == UNKNOWN ? "?" : Integer.toString(leaders[p]))
                    .append('@').append(epochs[p]);
        }
        return sb.append("]}").toString();
    }
}
