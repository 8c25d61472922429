package dev.weft.routing.node;

import dev.weft.routing.dag.InvalidRoutingException;
import dev.weft.routing.dag.RoutingProblem;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The proxy nodes of a collapsed virtual cluster (DESIGN §4 "collapsed"): the broker list clients
 * see is the proxy fleet itself, and any node serves any partition (the proxy splits each Produce and
 * Fetch by real leader). What a client is told about partitions is arithmetic over this list, so
 * every proxy replica, in every JVM, gives every client the same Metadata without talking to the
 * others:
 *
 * <ul>
 *   <li>{@link #virtualLeader}: partition {@code p} of topic {@code t} is led by candidate
 *       {@code floorMod(stableHash(t) + p, candidates)}, where the candidates are the nodes in the
 *       client's rack when it is known and some node is in it, else every node. Consecutive
 *       partitions go to consecutive nodes, so a topic's partitions spread evenly (node counts differ
 *       by at most one); the topic hash only picks where each topic starts.</li>
 *   <li>{@link #replicas}: the virtual leader first, then the nodes after it in id order (wrapping),
 *       as many as the real replication factor (at least one, at most every node).</li>
 *   <li>{@link #coordinatorFor}: candidate {@code floorMod(stableHash(key), candidates)}; it only
 *       spreads load, since any node reaches the real coordinator.</li>
 * </ul>
 *
 * <p><b>Order.</b> Nodes are kept in ascending id order: the order of the configured list does not
 * matter, only its set of (id, host, port, rack). Changing the set of ids (or a node's rack, for
 * clients in that rack) moves virtual leaders, which costs clients a reconnect, nothing more: any node
 * serves any partition. Hosts and ports never move leaders. {@link #stableHash} is part of the contract
 * between replicas: changing it moves leaders across a rolling upgrade.
 *
 * <p>Immutable; lookups allocate nothing.
 */
public final class CollapsedNodes {

    private final ProxyNode[] nodes;
    private final int[] ids;
    /** Indices into {@link #nodes}: all of them, and per rack. */
    private final int[] all;
    private final Map<String, int[]> byRack;

    private CollapsedNodes(ProxyNode[] sorted) {
        this.nodes = sorted;
        this.ids = new int[sorted.length];
        this.all = new int[sorted.length];
        Map<String, List<Integer>> racks = new TreeMap<>();
        for (int i = 0; i < sorted.length; i++) {
            ids[i] = sorted[i].id();
            all[i] = i;
            if (sorted[i].rack() != null) {
                racks.computeIfAbsent(sorted[i].rack(), r -> new ArrayList<>()).add(i);
            }
        }
        Map<String, int[]> rackIndex = new HashMap<>();
        racks.forEach((rack, indices) -> rackIndex.put(rack, indices.stream().mapToInt(Integer::intValue).toArray()));
        this.byRack = rackIndex;
    }

    /**
     * Validates and builds the node list.
     *
     * @param path where the list is in the config document, e.g. {@code virtualClusters.main.nodes}
     * @throws InvalidRoutingException carrying every problem found, when there is any
     */
    public static CollapsedNodes of(String path, List<ProxyNode> nodes) {
        List<RoutingProblem> problems = validate(path, nodes);
        if (!problems.isEmpty()) {
            throw new InvalidRoutingException(problems);
        }
        ProxyNode[] sorted = nodes.toArray(new ProxyNode[0]);
        Arrays.sort(sorted, Comparator.comparingInt(ProxyNode::id));
        return new CollapsedNodes(sorted);
    }

    /**
     * Every problem of the node list, in list order; empty when it is valid. Node ids must be 0 or
     * more and unique, and there must be at least one node; hosts non-empty, ports 1–65535, racks
     * absent or non-empty. Two nodes may share an address (one load balancer in front of the fleet
     * works: any node serves any partition).
     *
     * @param path where the list is in the config document; problems are at {@code path[i].field}
     */
    public static List<RoutingProblem> validate(String path, List<ProxyNode> nodes) {
        List<RoutingProblem> problems = new ArrayList<>();
        if (nodes == null || nodes.isEmpty()) {
            problems.add(new RoutingProblem(path, "a collapsed virtual cluster needs at least one proxy node"));
            return problems;
        }
        String list = path.substring(path.lastIndexOf('.') + 1);
        Map<Integer, Integer> firstById = new HashMap<>();
        for (int i = 0; i < nodes.size(); i++) {
            ProxyNode n = nodes.get(i);
            String at = path + "[" + i + "]";
            if (n == null) {
                problems.add(new RoutingProblem(at, "node is empty; a node needs an id, a host and a port"));
                continue;
            }
            if (n.id() < 0) {
                problems.add(new RoutingProblem(at + ".id", "node id " + n.id() + " is negative; node ids are 0 or more"));
            } else {
                Integer first = firstById.putIfAbsent(n.id(), i);
                if (first != null) {
                    problems.add(new RoutingProblem(at + ".id", "duplicate node id " + n.id() + " (also " + list + "["
                            + first + "])"));
                }
            }
            if (n.host() == null || n.host().isBlank()) {
                problems.add(new RoutingProblem(at + ".host", "node " + n.id() + " has no host"));
            }
            if (n.port() < 1 || n.port() > 65535) {
                problems.add(new RoutingProblem(at + ".port", "port " + n.port() + " of node " + n.id()
                        + " is not between 1 and 65535"));
            }
            if (n.rack() != null && n.rack().isBlank()) {
                problems.add(new RoutingProblem(at + ".rack", "rack of node " + n.id()
                        + " is empty; leave it out for a node without a rack"));
            }
        }
        return problems;
    }

    /** How many nodes. */
    public int size() {
        return nodes.length;
    }

    /** The nodes, in ascending id order. */
    public List<ProxyNode> nodes() {
        return List.of(nodes);
    }

    /** The node with this id, or null. */
    public ProxyNode node(int id) {
        int i = Arrays.binarySearch(ids, id);
        return i < 0 ? null : nodes[i];
    }

    public boolean contains(int id) {
        return Arrays.binarySearch(ids, id) >= 0;
    }

    /** The node clients are told is the controller: the lowest id (stable; proxies have no controller). */
    public int controllerId() {
        return ids[0];
    }

    /** The racks some node is in, sorted. */
    public Set<String> racks() {
        return Collections.unmodifiableSet(new TreeSet<>(byRack.keySet()));
    }

    /**
     * The virtual leader of a partition: the node id clients are told leads it.
     *
     * @param clientRack the client's rack when known, else null; when some node is in it, only those
     *     nodes are chosen from
     */
    public int virtualLeader(String topic, int partition, String clientRack) {
        return virtualLeader(stableHash(topic), partition, clientRack);
    }

    /** {@link #virtualLeader(String, int, String)} with the topic's {@link #stableHash} computed once per topic. */
    public int virtualLeader(int topicHash, int partition, String clientRack) {
        return ids[leaderIndex(topicHash, partition, clientRack)];
    }

    /**
     * The replicas to advertise for a partition: its virtual leader first, then the nodes after it in
     * id order, wrapping around; {@code replicationFactor} of them (the real partition's replica
     * count), at least one and at most every node.
     */
    public int[] replicas(String topic, int partition, String clientRack, int replicationFactor) {
        return replicas(stableHash(topic), partition, clientRack, replicationFactor);
    }

    /** {@link #replicas(String, int, String, int)} with the topic's {@link #stableHash} computed once per topic. */
    public int[] replicas(int topicHash, int partition, String clientRack, int replicationFactor) {
        int leader = leaderIndex(topicHash, partition, clientRack);
        int[] out = new int[Math.clamp(replicationFactor, 1, nodes.length)];
        for (int k = 0; k < out.length; k++) {
            out[k] = ids[(leader + k) % nodes.length];
        }
        return out;
    }

    /**
     * The in-sync replicas to advertise: the first {@code inSync} of the advertised {@code replicas}
     * (the real ISR's size, at most every replica), so the virtual leader is in sync and a shrunk real
     * ISR shows as a shrunk virtual one.
     */
    public static int[] inSyncReplicas(int[] replicas, int inSync) {
        return Arrays.copyOf(replicas, Math.clamp(inSync, 0, replicas.length));
    }

    /** The node clients are told coordinates {@code key} (a group, a transactional id, any key type). */
    public int coordinatorFor(String key) {
        return coordinatorFor(key, null);
    }

    /** {@link #coordinatorFor(String)} among the nodes in the client's rack, when it is known and some node is in it. */
    public int coordinatorFor(String key, String clientRack) {
        int[] candidates = candidates(clientRack);
        return ids[candidates[Math.floorMod(stableHash(key), candidates.length)]];
    }

    private int leaderIndex(int topicHash, int partition, String clientRack) {
        int[] candidates = candidates(clientRack);
        return candidates[(int) Math.floorMod((long) topicHash + partition, candidates.length)];
    }

    private int[] candidates(String clientRack) {
        if (clientRack == null) {
            return all;
        }
        int[] inRack = byRack.get(clientRack);
        return inRack != null ? inRack : all;
    }

    /**
     * The hash every replica computes alike: 32-bit FNV-1a over the string's UTF-8 bytes (a lone
     * surrogate encodes as {@code '?'}, as {@link String#getBytes} does), finished with MurmurHash3's
     * {@code fmix32} so its low bits are well mixed. Allocation-free; null hashes as the empty string.
     */
    public static int stableHash(String s) {
        int h = 0x811C9DC5;
        int length = s == null ? 0 : s.length();
        for (int i = 0; i < length; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                h = fnv(h, c);
            } else if (c < 0x800) {
                h = fnv(fnv(h, 0xC0 | (c >> 6)), 0x80 | (c & 0x3F));
            } else if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(s.charAt(i + 1))) {
                    int cp = Character.toCodePoint(c, s.charAt(++i));
                    h = fnv(h, 0xF0 | (cp >> 18));
                    h = fnv(h, 0x80 | ((cp >> 12) & 0x3F));
                    h = fnv(h, 0x80 | ((cp >> 6) & 0x3F));
                    h = fnv(h, 0x80 | (cp & 0x3F));
                } else {
                    h = fnv(h, '?');
                }
            } else {
                h = fnv(h, 0xE0 | (c >> 12));
                h = fnv(h, 0x80 | ((c >> 6) & 0x3F));
                h = fnv(h, 0x80 | (c & 0x3F));
            }
        }
        h ^= h >>> 16;
        h *= 0x85EBCA6B;
        h ^= h >>> 13;
        h *= 0xC2B2AE35;
        h ^= h >>> 16;
        return h;
    }

    private static int fnv(int h, int b) {
        return (h ^ b) * 0x01000193;
    }

    /** Same node set (ids, addresses, racks), whatever the configured order. */
    @Override
    public boolean equals(Object o) {
        return o instanceof CollapsedNodes other && Arrays.equals(nodes, other.nodes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(nodes);
    }

    @Override
    public String toString() {
        return "CollapsedNodes" + Arrays.toString(nodes);
    }
}
