package dev.weft.routing.topology;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;

/**
 * An immutable snapshot of one upstream cluster's partition leadership (DESIGN §5 "Topology
 * discovery"): per topic, by name and by topic id, a {@link TopicLeaders}. Learned from the Metadata
 * responses the proxy sees ({@link #merge}), marked stale when an upstream answers
 * NOT_LEADER_OR_FOLLOWER ({@link #invalidate}, {@link #leaderMoved}). Published by reference between
 * cores through {@link TopologyHolder}; nothing in a snapshot ever changes, so readers need no lock
 * and always see one whole snapshot. Never for authorization.
 *
 * <p>Lookups ({@link #topic(String)}, {@link #topic(long, long)}) allocate nothing. Every change
 * returns a new snapshot (or {@code this} when nothing changed) whose {@link #version()} is one
 * higher; a change that keeps the set of topics and their ids copies one array of references and
 * shares the name and id indexes; adding or dropping a topic rebuilds them (O(topics)).
 */
public final class PartitionLeadership {

    private static final PartitionLeadership EMPTY = new PartitionLeadership(new TopicLeaders[0], new HashMap<>(),
            TopicIdIndex.EMPTY, 0);

    /** Slot → topic; no nulls. */
    private final TopicLeaders[] topics;
    /** Read-only once published. */
    private final HashMap<String, Integer> slotByName;
    private final TopicIdIndex slotById;
    private final long version;

    private PartitionLeadership(TopicLeaders[] topics, HashMap<String, Integer> slotByName, TopicIdIndex slotById,
            long version) {
        this.topics = topics;
        this.slotByName = slotByName;
        this.slotById = slotById;
        this.version = version;
    }

    public static PartitionLeadership empty() {
        return EMPTY;
    }

    /** The topic of this name, or null when this snapshot does not know it. Allocation-free. */
    public TopicLeaders topic(String name) {
        Integer slot = name == null ? null : slotByName.get(name);
        return slot == null ? null : topics[slot];
    }

    /** The topic with this id (two longs, as the wire carries it), or null. Allocation-free. */
    public TopicLeaders topic(long idMsb, long idLsb) {
        int slot = slotById.get(idMsb, idLsb);
        return slot < 0 ? null : topics[slot];
    }

    public TopicLeaders topic(Uuid id) {
        return id == null ? null : topic(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    public int topicCount() {
        return topics.length;
    }

    /** Every known topic (a copy, cold path). */
    public List<TopicLeaders> topics() {
        return List.of(topics);
    }

    /**
     * The topics with a partition that {@linkplain TopicLeaders#needsRefresh(int) needs a refresh}
     * (leader moved or none): the caller asks Metadata for these (by name; by id with
     * {@link TopicLeaders#topicId()}), and {@link TopicLeaders#partitionsNeedingRefresh()} says which
     * partitions. A topic this snapshot does not know at all is not listed: a lookup returning null
     * already says "ask".
     */
    public List<TopicLeaders> needingRefresh() {
        List<TopicLeaders> out = new ArrayList<>();
        for (TopicLeaders t : topics) {
            if (t.needsRefresh()) {
                out.add(t);
            }
        }
        return Collections.unmodifiableList(out);
    }

    /** Grows by one with every snapshot derived from this one: lets readers tell snapshots apart. */
    public long version() {
        return version;
    }

    /**
     * This snapshot with the topics of one Metadata response (any version) merged in; topics the
     * response does not mention are kept.
     * <ul>
     *   <li>no topic-level error: merged per partition (see {@link TopicLeaders}); a partition whose
     *       error is not NONE or REPLICA_NOT_AVAILABLE, or whose leader is negative, is recorded
     *       {@link TopicLeaders#NO_LEADER} with its error; a partition with an older leader epoch than
     *       the known one is ignored; a topic id different from the known one replaces the topic;</li>
     *   <li>UNKNOWN_TOPIC_OR_PARTITION (by name) or UNKNOWN_TOPIC_ID (by id): the topic is dropped;</li>
     *   <li>any other topic-level error (authorization, a topic being created, an invalid name): the
     *       entry is ignored, what is known stays (the answer may have been made with a client's
     *       credentials, and says nothing about the topic's leaders).</li>
     * </ul>
     *
     * @return the new snapshot, or {@code this} when nothing changed
     */
    public PartitionLeadership merge(MetadataResponseData response) {
        Edit edit = new Edit();
        for (MetadataResponseTopic t : response.topics()) {
            short error = t.errorCode();
            if (error == Errors.UNKNOWN_TOPIC_OR_PARTITION.code() || error == Errors.UNKNOWN_TOPIC_ID.code()) {
                edit.drop(t.name(), TopicLeaders.idOf(t));
            } else if (error == Errors.NONE.code() && t.name() != null) {
                TopicLeaders known = edit.find(t.name());
                edit.put(known, known == null ? TopicLeaders.of(t) : known.mergedWith(t));
            }
        }
        return edit.result();
    }

    /**
     * This snapshot with the partition's leader marked {@link TopicLeaders#UNKNOWN}, as when an
     * upstream answers NOT_LEADER_OR_FOLLOWER for it without naming the new leader.
     *
     * @return the new snapshot, or {@code this} when the topic or partition is not known or already unknown
     */
    public PartitionLeadership invalidate(String topic, int partition) {
        TopicLeaders known = topic(topic);
        return known == null ? this : replace(known, known.invalidated(partition));
    }

    /** {@link #invalidate(String, int)} for a topic named by id (Produce v13+, Fetch v13+). */
    public PartitionLeadership invalidate(long idMsb, long idLsb, int partition) {
        TopicLeaders known = topic(idMsb, idLsb);
        return known == null ? this : replace(known, known.invalidated(partition));
    }

    /**
     * This snapshot with the leader an upstream named in its NOT_LEADER_OR_FOLLOWER answer
     * ({@code current_leader}, KIP-951): applied when {@code leaderEpoch} is newer than the known epoch
     * (or not older, when the leader is unknown now); a negative {@code leaderId} invalidates.
     *
     * @return the new snapshot, or {@code this} when nothing changed
     */
    public PartitionLeadership leaderMoved(String topic, int partition, int leaderId, int leaderEpoch) {
        TopicLeaders known = topic(topic);
        return known == null ? this : replace(known, known.withLeader(partition, leaderId, leaderEpoch));
    }

    /** {@link #leaderMoved(String, int, int, int)} for a topic named by id. */
    public PartitionLeadership leaderMoved(long idMsb, long idLsb, int partition, int leaderId, int leaderEpoch) {
        TopicLeaders known = topic(idMsb, idLsb);
        return known == null ? this : replace(known, known.withLeader(partition, leaderId, leaderEpoch));
    }

    /**
     * This snapshot with replica {@code nodeId} out of the partition's in-sync replicas (see
     * {@link TopicLeaders#withoutInSync(int, int)}): rack-aware fetch reads it from the leader until a
     * newer Metadata answer says otherwise.
     *
     * @return the new snapshot, or {@code this} when nothing changed
     */
    public PartitionLeadership outOfSync(String topic, int partition, int nodeId) {
        TopicLeaders known = topic(topic);
        return known == null ? this : replace(known, known.withoutInSync(partition, nodeId));
    }

    /** {@link #outOfSync(String, int, int)} for a topic named by id. */
    public PartitionLeadership outOfSync(long idMsb, long idLsb, int partition, int nodeId) {
        TopicLeaders known = topic(idMsb, idLsb);
        return known == null ? this : replace(known, known.withoutInSync(partition, nodeId));
    }

    /**
     * This snapshot with broker {@code nodeId} out of every ISR it follows in (a connection to it failed):
     * nothing is read from it as a follower until a newer Metadata answer lists it in sync again.
     *
     * @return the new snapshot, or {@code this} when it follows nothing
     */
    public PartitionLeadership replicaUnreachable(int nodeId) {
        TopicLeaders[] copy = null;
        for (int i = 0; i < topics.length; i++) {
            TopicLeaders next = topics[i].withoutInSync(nodeId);
            if (next != topics[i]) {
                if (copy == null) {
                    copy = topics.clone();
                }
                copy[i] = next;
            }
        }
        return copy == null ? this : new PartitionLeadership(copy, slotByName, slotById, version + 1);
    }

    private PartitionLeadership replace(TopicLeaders known, TopicLeaders next) {
        if (next == known) {
            return this;
        }
        TopicLeaders[] copy = topics.clone();
        copy[slotByName.get(known.name())] = next;
        return new PartitionLeadership(copy, slotByName, slotById, version + 1);
    }

    @Override
    public String toString() {
        return "PartitionLeadership{version=" + version + ", topics=" + Arrays.toString(topics) + "}";
    }

    /** The changes one response makes; the snapshot's arrays are copied at the first change only. */
    private final class Edit {
        private TopicLeaders[] work;
        private LinkedHashMap<String, TopicLeaders> added;
        private boolean reindex;

        private TopicLeaders at(int slot) {
            return (work != null ? work : topics)[slot];
        }

        private void set(int slot, TopicLeaders t) {
            if (work == null) {
                work = topics.clone();
            }
            work[slot] = t;
        }

        /** The topic as known so far in this edit, or null. */
        TopicLeaders find(String name) {
            if (added != null && added.containsKey(name)) {
                return added.get(name);
            }
            Integer slot = slotByName.get(name);
            return slot == null ? null : at(slot);
        }

        void put(TopicLeaders known, TopicLeaders next) {
            if (next == known) {
                return;
            }
            Integer slot = slotByName.get(next.name());
            if (slot != null && at(slot) != null && (added == null || !added.containsKey(next.name()))) {
                TopicLeaders before = at(slot);
                reindex |= before.topicIdMsb() != next.topicIdMsb() || before.topicIdLsb() != next.topicIdLsb();
                set(slot, next);
            } else {
                if (added == null) {
                    added = new LinkedHashMap<>();
                }
                added.put(next.name(), next);
                reindex = true;
            }
        }

        void drop(String name, Uuid id) {
            if (name != null && added != null && added.remove(name) != null) {
                return;
            }
            Integer slot = name != null ? slotByName.get(name) : null;
            int s = slot != null ? slot : slotById.get(id.getMostSignificantBits(), id.getLeastSignificantBits());
            if (s >= 0 && at(s) != null) {
                set(s, null);
                reindex = true;
            }
        }

        PartitionLeadership result() {
            if (work == null && added == null) {
                return PartitionLeadership.this;
            }
            if (!reindex) {
                return new PartitionLeadership(work, slotByName, slotById, version + 1);
            }
            List<TopicLeaders> all = new ArrayList<>(topics.length + (added == null ? 0 : added.size()));
            for (TopicLeaders t : work != null ? work : topics) {
                if (t != null) {
                    all.add(t);
                }
            }
            if (added != null) {
                all.addAll(added.values());
            }
            TopicLeaders[] slots = all.toArray(new TopicLeaders[0]);
            HashMap<String, Integer> byName = HashMap.newHashMap(slots.length);
            TopicIdIndex byId = new TopicIdIndex(slots.length);
            for (int i = 0; i < slots.length; i++) {
                byName.put(slots[i].name(), i);
                byId.put(slots[i].topicIdMsb(), slots[i].topicIdLsb(), i);
            }
            return new PartitionLeadership(slots, byName, byId, version + 1);
        }
    }
}
