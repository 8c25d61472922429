package dev.weft.protocol.skim;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.Uuid;

/**
 * Random partition weaving for the renumbering tests: per client partition (flat wire index), the key
 * and index sent upstream. Each partition is, at random: kept (no key, the client's index); renumbered
 * under its own topic's key; moved to an upstream topic of a small shared pool (so one client topic's
 * partitions land in several upstream topics, and several client topics' partitions in one), under
 * the pool's array or under an equal copy of it (keys equal by content, not by reference); given its
 * own topic's key as an explicit array (equal to the client's bytes); or moved to another client
 * topic's key (one upstream topic backing two client topics). The (upstream key, upstream index) pairs
 * are unique over the request, as they are in a real weave, so every upstream answer has one owner.
 */
public final class TestPartitionMap {

    /** Per partition: the key to send, or null (the client's). */
    public final byte[][] keys;
    /** Per partition: the index to send, or {@link UpstreamPartitions#CLIENT_INDEX}. */
    public final int[] indexes;
    /** Per partition: the name the upstream knows ("" from the topic-id versions on). */
    public final String[] upstreamNames;
    /** Per partition: the topic id the upstream knows (ZERO before the topic-id versions). */
    public final Uuid[] upstreamIds;
    /** Per partition: the partition index the upstream knows. */
    public final int[] upstreamIndexes;
    /** How many partitions go upstream under another key or index than the client's. */
    public final int changed;

    private TestPartitionMap(byte[][] keys, int[] indexes, String[] names, Uuid[] ids, int[] upstreamIndexes, int changed) {
        this.keys = keys;
        this.indexes = indexes;
        this.upstreamNames = names;
        this.upstreamIds = ids;
        this.upstreamIndexes = upstreamIndexes;
        this.changed = changed;
    }

    /**
     * A weave given in full: per partition the key and index to send (null / negative: the client's) and
     * the upstream name, id and index they stand for.
     */
    public static TestPartitionMap of(byte[][] keys, int[] indexes, String[] names, Uuid[] ids, int[] upstreamIndexes) {
        return new TestPartitionMap(keys, indexes, names, ids, upstreamIndexes, keys.length);
    }

    /**
     * A weave of the client partitions whose topic (index into {@code names}/{@code ids}) and index are
     * {@code topicOf[i]}, {@code indexOf[i]}.
     */
    public static TestPartitionMap random(Random random, List<String> names, List<Uuid> ids, int[] topicOf, int[] indexOf,
                                          boolean topicIds) {
        int n = topicOf.length;
        byte[][] keys = new byte[n][];
        int[] indexes = new int[n];
        String[] upNames = new String[n];
        Uuid[] upIds = new Uuid[n];
        int[] upIndexes = new int[n];
        String[] poolNames = {"orders-us", "orders-eu", "R".repeat(130) + ".wide"};
        Uuid[] poolIds = {Uuid.randomUuid(), Uuid.randomUuid(), Uuid.randomUuid()};
        byte[][] pool = new byte[3][];
        for (int k = 0; k < pool.length; k++) {
            pool[k] = topicIds ? UpstreamTopicKeys.topicIdKey(poolIds[k]) : UpstreamTopicKeys.nameKey(poolNames[k]);
        }
        int[] roll = new int[n];
        Set<String> used = new HashSet<>();
        for (int i = 0; i < n; i++) {
            roll[i] = random.nextInt(6);
            upNames[i] = topicIds ? "" : names.get(topicOf[i]);
            upIds[i] = topicIds ? ids.get(topicOf[i]) : Uuid.ZERO_UUID;
            upIndexes[i] = indexOf[i];
            indexes[i] = UpstreamPartitions.CLIENT_INDEX;
            if (roll[i] == 0) {
                used.add(pair(upNames[i], upIds[i], indexOf[i])); // kept: reserved first
            }
        }
        int changed = 0;
        for (int i = 0; i < n; i++) {
            if (roll[i] == 0) {
                continue;
            }
            switch (roll[i]) {
                case 1 -> { }                                                    // its own key, renumbered
                case 2, 3 -> {                                                   // a shared upstream topic
                    int k = random.nextInt(pool.length);
                    keys[i] = roll[i] == 2 ? pool[k] : pool[k].clone();
                    upNames[i] = topicIds ? "" : poolNames[k];
                    upIds[i] = topicIds ? poolIds[k] : Uuid.ZERO_UUID;
                }
                case 4 -> keys[i] = topicIds ? UpstreamTopicKeys.topicIdKey(upIds[i])  // its own key, explicitly
                        : UpstreamTopicKeys.nameKey(upNames[i]);
                default -> {                                                     // another client topic's key
                    int other = random.nextInt(names.size());
                    upNames[i] = topicIds ? "" : names.get(other);
                    upIds[i] = topicIds ? ids.get(other) : Uuid.ZERO_UUID;
                    keys[i] = topicIds ? UpstreamTopicKeys.topicIdKey(upIds[i]) : UpstreamTopicKeys.nameKey(upNames[i]);
                }
            }
            int index = roll[i] == 4 && random.nextBoolean() ? indexOf[i] : random.nextInt(300);
            while (!used.add(pair(upNames[i], upIds[i], index))) {
                index = random.nextInt(300);
            }
            upIndexes[i] = index;
            if (index != indexOf[i] || random.nextBoolean()) {
                indexes[i] = index;                                              // else: the client's, as CLIENT_INDEX
            }
            boolean sameKey = upNames[i].equals(topicIds ? "" : names.get(topicOf[i]))
                    && upIds[i].equals(topicIds ? ids.get(topicOf[i]) : Uuid.ZERO_UUID);
            changed += sameKey && index == indexOf[i] ? 0 : 1;
        }
        return new TestPartitionMap(keys, indexes, upNames, upIds, upIndexes, changed);
    }

    /** The keys object the builders and mergers take (per partition). */
    public UpstreamTopicKeys asKeys() {
        return UpstreamTopicKeys.perPartition(keys);
    }

    /** The indexes object the builders and mergers take. */
    public UpstreamPartitions asPartitions() {
        return UpstreamPartitions.of(indexes);
    }

    /**
     * {@link #asKeys()} with the planning aid a {@code RoutePlan} gives ({@link UpstreamTopicKeys#keyStretchEnd}):
     * at the first partition of each stretch of wire-adjacent partitions of one topic ({@code topicOf[i]})
     * under one key array, the index after it. The builders must write the same bytes with it as without.
     */
    public UpstreamTopicKeys asHintedKeys(int[] topicOf) {
        int[] stretchEnd = new int[keys.length];
        for (int i = 0, start = -1; i < keys.length; i++) {
            if (keys[i] == null) {
                start = -1;
            } else if (start >= 0 && topicOf[i] == topicOf[start] && keys[start] == keys[i]) {
                stretchEnd[start] = i + 1;
            } else {
                start = i;
                stretchEnd[i] = i + 1;
            }
        }
        UpstreamTopicKeys plain = asKeys();
        return new UpstreamTopicKeys() {
            @Override
            public byte[] upstreamKey(int t) {
                return plain.upstreamKey(t);
            }

            @Override
            public byte[] upstreamKey(int t, int i) {
                return plain.upstreamKey(t, i);
            }

            @Override
            public boolean keysPerPartition() {
                return true;
            }

            @Override
            public int keyStretchEnd(int i) {
                return stretchEnd[i];
            }
        };
    }

    /** {@link #asPartitions()} that also hands out its array ({@link UpstreamPartitions#upstreamPartitions()}). */
    public UpstreamPartitions asArrayPartitions() {
        return new UpstreamPartitions() {
            @Override
            public int upstreamPartition(int i) {
                return indexes[i];
            }

            @Override
            public int[] upstreamPartitions() {
                return indexes;
            }
        };
    }

    /** Partition {@code i}'s upstream topic, as one string (name and id). */
    public String upstreamTopic(int i) {
        return upstreamNames[i] + "/" + upstreamIds[i];
    }

    private static String pair(String name, Uuid id, int index) {
        return name + "/" + id + "/" + index;
    }

    @Override
    public String toString() {
        return "keys sent " + Arrays.deepToString(keys) + ", indexes " + Arrays.toString(indexes);
    }
}
