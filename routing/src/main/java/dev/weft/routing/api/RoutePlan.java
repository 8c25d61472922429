package dev.weft.routing.api;

import dev.weft.protocol.skim.PartitionSkim;
import dev.weft.protocol.skim.UpstreamPartitions;
import dev.weft.protocol.skim.UpstreamTopicKeys;
import java.util.Arrays;

/**
 * A router's plan for one skimmed Produce or Fetch (DESIGN §3): for every partition, in wire order, the
 * <em>target</em> it is sent to — a (leaf, broker) pair — or {@link #REFUSED} (the proxy answers it
 * with an error); and per topic the key to send upstream instead of the client's (a renamed topic's
 * real name or id), or null. The exchange builds one sub-request per target from retained slices of
 * the client's frame and merges the answers; {@link #targetOf()} is the array the protocol's builders
 * and mergers take as {@code routeOf}.
 *
 * <p>Primitive arrays, reused: sessions keep a few of these ({@link RoutePlanPool}), so planning a
 * request allocates nothing once warm. Event loop only.
 */
public final class RoutePlan implements UpstreamTopicKeys, UpstreamPartitions {

    /** Target of a partition that is not sent: the proxy answers it with an error. */
    public static final int REFUSED = -1;
    /** Broker of a target: the one the client's connection is bound to (mirrored topology). */
    public static final int OWN_BROKER = -2;
    /**
     * Target of a Fetch partition whose answer was set aside (a follower served it badly): the client
     * gets it empty, with no error, and simply fetches it again (see {@link #answerEmpty}).
     */
    public static final int ANSWERED_EMPTY = dev.weft.protocol.fetch.FetchResponseMerger.ANSWERED_EMPTY;

    private final TopicNameCache names;
    private int[] targetOf = new int[16];
    private int[] targetLeaf = new int[4];
    private int[] targetBroker = new int[4];
    private int targetCount;
    private byte[][] keys = new byte[8][];
    private int routed;
    private boolean keysChange;
    private boolean unknownTopics;
    private boolean foreignTopics;
    /** Per partition, the upstream partition index and topic key (partition weaving); used only when set. */
    private int[] partitionOf = new int[16];
    private byte[][] partitionKeys = new byte[16][];
    private boolean renumbered;
    private boolean keysPerPartition;
    /**
     * At the first partition of each stretch of wire-adjacent partitions of one topic renumbered under one
     * key (a segment's partitions in the request), the flat index after the stretch; 0 elsewhere: the
     * splitters take a stretch as one block without asking each partition its key.
     */
    private int[] keyStretchEnd = new int[16];
    /** At each stretch's first partition, its key's {@code UpstreamKeyHash}, as the planner precomputed it. */
    private int[] keyStretchHash = new int[16];
    private int stretchStart;
    /** The partition count of the request the plan was last reset for: the per-partition arrays' used part. */
    private int lastPartitions;
    private int lastKeyed = -2;
    private int lastKeyedTopic = -1;
    /** Side targets (BRANCH): (leaf, broker) pairs that receive copies, apart from the primary's targets. */
    private int[] sideLeaf = new int[2];
    private int[] sideBroker = new int[2];
    private int sideCount;
    /** Per copy: the client partition copied, its side target, the upstream topic key and partition there. */
    private int[] copyPartition = new int[8];
    private int[] copySide = new int[8];
    private int[] copyUpstreamPartition = new int[8];
    private byte[][] copyKey = new byte[8][];
    private int copyCount;
    private int unplacedCopies;
    /** Per route, copies the planner could not place there (only routes in {@link #unplacedRoutes} are non-zero). */
    private int[] unplacedByRoute = new int[4];
    private long unplacedRoutes;
    /** Per partition: read from a follower the proxy chose for its zone, not from the leader ({@link #readFromReplica}). */
    private boolean[] replicaRead = new boolean[16];
    private int replicaReads;
    /** Per partition: read from its leader to learn whether a follower's "nothing more" is the end ({@link #checkWithLeader}). */
    private boolean[] leaderCheck = new boolean[16];
    private int leaderChecks;
    private int[] scratch = new int[4];

    public RoutePlan(TopicNameCache names) {
        this.names = names;
        Arrays.fill(partitionOf, UpstreamPartitions.CLIENT_INDEX);  // not 0: a fresh plan's unrenumbered partitions keep theirs
    }

    /** The connection's cache of topic names (planners resolve name-keyed versions through it). */
    public TopicNameCache names() {
        return names;
    }

    /** Empties the plan and sizes it for {@code skim}. */
    public RoutePlan reset(PartitionSkim skim) {
        int partitions = skim.partitionCount();
        if (targetOf.length < partitions) {
            targetOf = new int[Math.max(partitions, targetOf.length * 2)];
        }
        int topicCount = skim.topicCount();
        if (keys.length < topicCount) {
            keys = new byte[Math.max(topicCount, keys.length * 2)][];
        }
        Arrays.fill(keys, 0, topicCount, null);
        targetCount = 0;
        routed = 0;
        keysChange = false;
        unknownTopics = false;
        foreignTopics = false;
        if (copyCount > 0) {
            Arrays.fill(copyKey, 0, copyCount, null);
        }
        sideCount = 0;
        copyCount = 0;
        if (unplacedCopies > 0) {
            Arrays.fill(unplacedByRoute, 0);
        }
        unplacedCopies = 0;
        unplacedRoutes = 0;
        if (replicaReads > 0) {
            Arrays.fill(replicaRead, false);
            replicaReads = 0;
        }
        if (leaderChecks > 0) {
            Arrays.fill(leaderCheck, false);
            leaderChecks = 0;
        }
        if (leaderCheck.length < partitions) {
            leaderCheck = new boolean[Math.max(partitions, leaderCheck.length * 2)];
        }
        if (replicaRead.length < partitions) {
            replicaRead = new boolean[Math.max(partitions, replicaRead.length * 2)];
        }
        if (renumbered || keysPerPartition) {
            // only the last request's partitions were written: a plan that once held a huge request
            // does not clear its whole capacity for every small one after it
            Arrays.fill(partitionOf, 0, lastPartitions, UpstreamPartitions.CLIENT_INDEX);
            Arrays.fill(partitionKeys, 0, lastPartitions, null);
            Arrays.fill(keyStretchEnd, 0, lastPartitions, 0);
            lastKeyed = -2;
            renumbered = false;
            keysPerPartition = false;
        }
        if (partitionOf.length < partitions) {
            partitionOf = new int[Math.max(partitions, partitionOf.length * 2)];
            Arrays.fill(partitionOf, UpstreamPartitions.CLIENT_INDEX);
            partitionKeys = new byte[partitionOf.length][];
            keyStretchEnd = new int[partitionOf.length];
            keyStretchHash = new int[partitionOf.length];
        }
        lastPartitions = partitions;
        return this;
    }

    /** The index of target (leaf, broker), added when new; {@code broker} is a real node id or {@link #OWN_BROKER}. */
    public int target(int leaf, int broker) {
        for (int i = 0; i < targetCount; i++) {
            if (targetLeaf[i] == leaf && targetBroker[i] == broker) {
                return i;
            }
        }
        if (targetCount == targetLeaf.length) {
            targetLeaf = Arrays.copyOf(targetLeaf, targetCount * 2);
            targetBroker = Arrays.copyOf(targetBroker, targetCount * 2);
        }
        targetLeaf[targetCount] = leaf;
        targetBroker[targetCount] = broker;
        return targetCount++;
    }

    /** Sends partitions {@code first}..{@code end-1} to {@code target}. */
    public void send(int first, int end, int target) {
        Arrays.fill(targetOf, first, end, target);
        routed += end - first;
    }

    /**
     * Moves partition {@code i} (already sent) to {@code target}; {@code replica}: the target is an
     * in-sync follower the proxy chose (rack-aware fetch), whose errors and failures the exchange answers
     * as "fetch again" instead of passing them on ({@link #isReplicaRead}). Call
     * {@link #dropEmptyTargets()} once every move is made.
     */
    public void moveTo(int i, int target, boolean replica) {
        targetOf[i] = target;
        if (replica && !replicaRead[i]) {
            replicaRead[i] = true;
            replicaReads++;
        } else if (!replica && replicaRead[i]) {
            replicaRead[i] = false;
            replicaReads--;
        }
    }

    /** Whether partition {@code i} is read from a follower the proxy chose ({@link #moveTo}). */
    public boolean isReplicaRead(int i) {
        return replicaReads > 0 && replicaRead[i];
    }

    /** A follower's end offsets may lag the leader's, so the client is not shown them ({@link #isReplicaRead}). */
    @Override
    public boolean withholdsEndOffsets(int i) {
        return isReplicaRead(i);
    }

    /**
     * Partition {@code i} stays with its leader this time so the exchange learns from the leader's answer
     * whether a follower's "nothing more" was the partition's end ({@link FollowerEndChecks}); such a plan is
     * never forwarded as the client's frame, so the answer is seen.
     */
    public void checkWithLeader(int i) {
        if (!leaderCheck[i]) {
            leaderCheck[i] = true;
            leaderChecks++;
        }
    }

    public boolean isLeaderCheck(int i) {
        return leaderChecks > 0 && leaderCheck[i];
    }

    public int leaderChecks() {
        return leaderChecks;
    }

    /** How many partitions are read from followers the proxy chose. */
    public int replicaReads() {
        return replicaReads;
    }

    /**
     * Forgets targets no partition goes to any more (after {@link #moveTo}) and renumbers the rest in
     * order, so no empty sub-request is sent.
     */
    public void dropEmptyTargets(int partitions) {
        if (scratch.length < targetCount) {
            scratch = new int[Math.max(targetCount, scratch.length * 2)];
        }
        Arrays.fill(scratch, 0, targetCount, 0);
        for (int i = 0; i < partitions; i++) {
            if (targetOf[i] >= 0) {
                scratch[targetOf[i]]++;
            }
        }
        int kept = 0;
        for (int t = 0; t < targetCount; t++) {
            if (scratch[t] > 0) {
                targetLeaf[kept] = targetLeaf[t];
                targetBroker[kept] = targetBroker[t];
                scratch[t] = kept++;
            } else {
                scratch[t] = -1;
            }
        }
        if (kept == targetCount) {
            return;
        }
        for (int i = 0; i < partitions; i++) {
            if (targetOf[i] >= 0) {
                targetOf[i] = scratch[targetOf[i]];
            }
        }
        targetCount = kept;
    }

    /**
     * Partition {@code i}'s answer is set aside: the client gets it empty, without an error, and fetches
     * it again from the same offset (a follower answered it with an error, or failed).
     */
    public void answerEmpty(int i) {
        targetOf[i] = ANSWERED_EMPTY;
    }

    /** Refuses partitions {@code first}..{@code end-1}; {@code unknown}: their topic is not visible (else it lives elsewhere). */
    public void refuse(int first, int end, boolean unknown) {
        Arrays.fill(targetOf, first, end, REFUSED);
        if (unknown) {
            unknownTopics = true;
        } else {
            foreignTopics = true;
        }
    }

    /** Target of a partition answered TOPIC_AUTHORIZATION_FAILED: the client's principal may not do this to its topic. */
    public static final int DENIED = dev.weft.protocol.skim.DeniedPartitions.DENIED;

    /**
     * Answers the refused partitions among {@code first}..{@code end-1} TOPIC_AUTHORIZATION_FAILED instead of
     * the request's refusal error (an authorization check after planning: {@code routing.access.HotAccess}).
     */
    public void deny(int first, int end) {
        for (int i = first; i < end; i++) {
            if (targetOf[i] == REFUSED) {
                targetOf[i] = DENIED;
            }
        }
    }

    /**
     * Refuses every partition planned for a target behind {@code leaf} as on another broker
     * (NOT_LEADER_OR_FOLLOWER, retriable: a route whose Produce is fenced) and forgets those targets.
     */
    public void refuseLeaf(int leaf, int partitions) {
        boolean refused = false;
        for (int i = 0; i < partitions; i++) {
            int t = targetOf[i];
            if (t >= 0 && targetLeaf[t] == leaf) {
                targetOf[i] = REFUSED;
                routed--;
                refused = true;
            }
        }
        if (refused) {
            foreignTopics = true;
            dropEmptyTargets(partitions);
        }
    }

    /** Refuses every partition (a request refused whole, e.g. a transaction leaving its home). */
    public void refuseAll(int partitions) {
        Arrays.fill(targetOf, 0, partitions, REFUSED);
        routed = 0;
    }

    /** Sends topic {@code t} upstream under {@code key} (raw name or 16 id bytes; null: the client's). */
    public void upstreamKey(int t, byte[] key) {
        keys[t] = key;
        keysChange |= key != null;
    }

    /**
     * Sends partition {@code i} upstream as partition {@code upstreamPartition} of the topic with key
     * {@code key} (raw name or 16 id bytes; null: its topic's key): partition weaving composes one
     * logical topic from partitions of several physical topics. The answer comes back under the client's
     * topic and partition. {@code t} is the partition's topic ({@code skim.partitionTopic(i)}); {@code keyHash}
     * is {@link dev.weft.protocol.skim.UpstreamKeyHash#of} of {@code key}, precomputed with it (ignored when
     * {@code key} is null). Called in wire order, once per partition.
     */
    public void renumber(int t, int i, int upstreamPartition, byte[] key, int keyHash) {
        partitionOf[i] = upstreamPartition;
        renumbered = true;
        if (key != null) {
            partitionKeys[i] = key;
            keysPerPartition = true;
            keysChange = true;
            if (lastKeyed == i - 1 && lastKeyedTopic == t && partitionKeys[stretchStart] == key) {
                keyStretchEnd[stretchStart] = i + 1;
            } else {
                stretchStart = i;
                keyStretchEnd[i] = i + 1;
                keyStretchHash[i] = keyHash;
            }
            lastKeyed = i;
            lastKeyedTopic = t;
        }
    }

    @Override
    public int upstreamPartition(int i) {
        return renumbered ? partitionOf[i] : UpstreamPartitions.CLIENT_INDEX;
    }

    @Override
    public int[] upstreamPartitions() {
        return partitionOf;             // CLIENT_INDEX wherever nothing was renumbered
    }

    @Override
    public boolean keysPerPartition() {
        return keysPerPartition;
    }

    @Override
    public byte[] upstreamKey(int t, int i) {
        byte[] k = keysPerPartition ? partitionKeys[i] : null;
        return k != null ? k : keys[t];
    }

    @Override
    public int keyStretchEnd(int i) {
        return keyStretchEnd[i];
    }

    @Override
    public int keyStretchHash(int t, int i) {
        return keyStretchHash[i];
    }

    /** Whether some partition goes upstream under another partition number ({@link #renumber}). */
    public boolean renumbers() {
        return renumbered;
    }

    @Override
    public byte[] upstreamKey(int t) {
        return keys[t];
    }

    /** Per partition: its target, or {@link #REFUSED}; the builders' and mergers' {@code routeOf}. */
    public int[] targetOf() {
        return targetOf;
    }

    public int targetCount() {
        return targetCount;
    }

    public int targetLeaf(int target) {
        return targetLeaf[target];
    }

    public int targetBroker(int target) {
        return targetBroker[target];
    }

    /** How many partitions are sent (not refused). */
    public int routed() {
        return routed;
    }

    public boolean unknownTopics() {
        return unknownTopics;
    }

    public boolean foreignTopics() {
        return foreignTopics;
    }

    /** The index of side target (leaf, broker), added when new ({@code broker}: a real node id of the leaf). */
    public int sideTarget(int leaf, int broker) {
        for (int i = 0; i < sideCount; i++) {
            if (sideLeaf[i] == leaf && sideBroker[i] == broker) {
                return i;
            }
        }
        if (sideCount == sideLeaf.length) {
            sideLeaf = Arrays.copyOf(sideLeaf, sideCount * 2);
            sideBroker = Arrays.copyOf(sideBroker, sideCount * 2);
        }
        sideLeaf[sideCount] = leaf;
        sideBroker[sideCount] = broker;
        return sideCount++;
    }

    /**
     * BRANCH: partition {@code i} (sent to a primary target) is also copied to side target {@code side},
     * as partition {@code upstreamPartition} of the topic with key {@code key} (raw name or 16 id bytes)
     * there — once the primary has acknowledged it, never before, and never when the primary refused it.
     * The client's answer is the primary's alone; what becomes of the copy is counted, not answered.
     */
    public void copy(int i, int side, byte[] key, int upstreamPartition) {
        if (copyCount == copyPartition.length) {
            int n = copyCount * 2;
            copyPartition = Arrays.copyOf(copyPartition, n);
            copySide = Arrays.copyOf(copySide, n);
            copyUpstreamPartition = Arrays.copyOf(copyUpstreamPartition, n);
            copyKey = Arrays.copyOf(copyKey, n);
        }
        copyPartition[copyCount] = i;
        copySide[copyCount] = side;
        copyUpstreamPartition[copyCount] = upstreamPartition;
        copyKey[copyCount] = key;
        copyCount++;
    }

    /**
     * A copy the planner could not place (the branch topic or its partition's leader on {@code route} is
     * not known): counted as dropped, and the route's partition leaders are read again.
     */
    public void copyUnplaced(int route) {
        if (route >= Long.SIZE) {
            throw new IllegalArgumentException("route " + route + ": branch routes are numbered below " + Long.SIZE);
        }
        if (route >= unplacedByRoute.length) {
            unplacedByRoute = Arrays.copyOf(unplacedByRoute, Math.max(route + 1, unplacedByRoute.length * 2));
        }
        unplacedByRoute[route]++;
        unplacedCopies++;
        unplacedRoutes |= 1L << route;
    }

    /** How many copies to {@code route} could not be placed. */
    public int unplacedCopies(int route) {
        return route < unplacedByRoute.length ? unplacedByRoute[route] : 0;
    }

    public int sideTargetCount() {
        return sideCount;
    }

    public int sideLeaf(int side) {
        return sideLeaf[side];
    }

    public int sideBroker(int side) {
        return sideBroker[side];
    }

    /** How many copies the plan makes (BRANCH when non-zero). */
    public int copyCount() {
        return copyCount;
    }

    public int copyPartition(int c) {
        return copyPartition[c];
    }

    public int copySide(int c) {
        return copySide[c];
    }

    public int copyUpstreamPartition(int c) {
        return copyUpstreamPartition[c];
    }

    public byte[] copyKey(int c) {
        return copyKey[c];
    }

    public int unplacedCopies() {
        return unplacedCopies;
    }

    /** Bit k: route k's leaders were missing for a copy ({@link #copyUnplaced}). */
    public long unplacedRoutes() {
        return unplacedRoutes;
    }

    /** What the exchange does with the request (DESIGN §3). */
    public enum Kind {
        /** Nothing is sent: every partition is answered by the proxy (refused). */
        RESPOND,
        /** The client's frame goes as it is over the connection's own broker link. */
        FORWARD,
        /** One sub-request per target, answers merged. */
        SPLIT,
        /** SPLIT, and copies of what the primary acknowledged go to the side targets. */
        BRANCH
    }

    public Kind kind(int partitions) {
        if (routed == 0) {
            return Kind.RESPOND;
        }
        if (copyCount > 0) {
            return Kind.BRANCH;
        }
        return passThrough(partitions) ? Kind.FORWARD : Kind.SPLIT;
    }

    /**
     * Every partition goes to the connection's own broker under the client's own keys, and nothing is
     * copied: the client's frame can go as it is.
     */
    public boolean passThrough(int partitions) {
        return routed == partitions && !keysChange && !renumbered && copyCount == 0 && leaderChecks == 0 && targetCount == 1
                && targetBroker[0] == OWN_BROKER;
    }
}
