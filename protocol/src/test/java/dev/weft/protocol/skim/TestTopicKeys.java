package dev.weft.protocol.skim;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.Uuid;

/**
 * Random topic renames for the rename tests: per client topic, kept (no key), given its own key back
 * (a key equal to the client's), renamed to a longer name, a shorter one or one past 127 UTF-8 bytes
 * (the compact length takes two bytes), or, where topics go by id, given another topic id. Upstream
 * names are unique and never a client name ("-" appears in every client name, in none of these unless
 * copied from one, and "real." starts none of the client's).
 */
public final class TestTopicKeys {

    /** Per client topic: the key to send, or null. */
    public final byte[][] keys;
    /** Per client topic: the name the upstream knows ("" from the topic-id versions on). */
    public final String[] upstreamNames;
    /** Per client topic: the id the upstream knows (ZERO before the topic-id versions). */
    public final Uuid[] upstreamIds;
    /** Per client topic: true when the key sent differs from the client's. */
    public final boolean[] renamed;
    /** How many topics got a key different from the client's. */
    public final int renamedCount;
    private final Map<String, Integer> clientTopicByUpstream = new HashMap<>();

    private TestTopicKeys(byte[][] keys, String[] names, Uuid[] ids, boolean[] renamed) {
        this.keys = keys;
        this.upstreamNames = names;
        this.upstreamIds = ids;
        this.renamed = renamed;
        int count = 0;
        for (int t = 0; t < keys.length; t++) {
            clientTopicByUpstream.put(key(names[t], ids[t]), t);
            count += renamed[t] ? 1 : 0;
        }
        this.renamedCount = count;
    }

    /**
     * Renames for the client topics with these names and ids (one of the two is meaningful, by {@code topicIds}).
     */
    public static TestTopicKeys random(Random random, List<String> names, List<Uuid> ids, boolean topicIds) {
        int n = names.size();
        byte[][] keys = new byte[n][];
        String[] upNames = new String[n];
        Uuid[] upIds = new Uuid[n];
        boolean[] renamed = new boolean[n];
        for (int t = 0; t < n; t++) {
            String name = names.get(t);
            Uuid id = ids.get(t);
            upNames[t] = name;
            upIds[t] = id;
            int roll = random.nextInt(6);
            if (roll == 0) {
                continue;                                              // kept: no key
            }
            if (topicIds) {
                if (roll == 1) {
                    keys[t] = UpstreamTopicKeys.topicIdKey(id);        // its own id, given explicitly
                } else {
                    upIds[t] = Uuid.randomUuid();
                    keys[t] = UpstreamTopicKeys.topicIdKey(upIds[t]);
                    renamed[t] = true;
                }
                continue;
            }
            upNames[t] = switch (roll) {
                case 1 -> name;                                        // its own name, given explicitly
                case 2 -> "real.cluster-b." + name + ".upstream";      // longer
                case 3 -> "r" + t;                                     // shorter (or as short)
                case 4 -> "R".repeat(128 + random.nextInt(40)) + t;    // two-byte compact length
                default -> "ü" + t;                                    // non-ASCII, short
            };
            keys[t] = UpstreamTopicKeys.nameKey(upNames[t]);
            renamed[t] = !upNames[t].equals(name);
        }
        return new TestTopicKeys(keys, upNames, upIds, renamed);
    }

    /** The keys object the builders and mergers take. */
    public UpstreamTopicKeys asKeys() {
        return UpstreamTopicKeys.of(keys);
    }

    /** The client topic whose upstream name and id these are; fails when there is none. */
    public int clientTopic(String upstreamName, Uuid upstreamId) {
        Integer t = clientTopicByUpstream.get(key(upstreamName, upstreamId));
        if (t == null) {
            throw new AssertionError("no client topic is sent as " + upstreamName + "/" + upstreamId);
        }
        return t;
    }

    private static String key(String name, Uuid id) {
        return name + "/" + id;
    }
}
