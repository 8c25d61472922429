package dev.weft.routing.api;

import dev.weft.routing.VisibleTopic;
import dev.weft.routing.topology.PartitionLeadership;
import dev.weft.routing.topology.TopicLeaders;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;

/**
 * The topics a connection names, resolved once per catalog snapshot: a Produce or Fetch that names
 * topics (versions before topic ids) is matched by its name bytes against the few topics the
 * connection uses, so the hot path builds no String per topic per request. Bounded; one per session
 * (event loop only).
 */
public final class TopicNameCache {

    private static final int SIZE = 32;

    private final ByteBuf[] names = new ByteBuf[SIZE];
    private final VisibleTopic[] topics = new VisibleTopic[SIZE];
    private int used;
    private int next;
    private HotCatalog snapshot;
    /**
     * Names → partition leaders of one leadership snapshot each (rack-aware fetch, name-keyed Fetch):
     * direct-mapped by a hash of the name, so a connection naming many topics finds each in one probe.
     * Made on first use: only rack-aware connections look leaders up by name.
     */
    private static final int LEADER_SLOTS = 256;
    private ByteBuf[] leaderNames;
    private PartitionLeadership[] leaderSnapshots;
    private TopicLeaders[] leaders;

    /** The topic named by {@code length} bytes at {@code offset} of {@code buf}, or null when not visible. */
    public VisibleTopic resolve(HotCatalog catalog, ByteBuf buf, int offset, int length) {
        if (catalog != snapshot) {
            used = 0;
            next = 0;
            snapshot = catalog;
        }
        for (int i = 0; i < used; i++) {
            ByteBuf n = names[i];
            if (n.readableBytes() == length && ByteBufUtil.equals(n, 0, buf, offset, length)) {
                return topics[i];
            }
        }
        String name = buf.toString(offset, length, StandardCharsets.UTF_8);
        VisibleTopic t = catalog.topics().resolve(name);
        int slot;
        if (used < SIZE) {
            slot = used++;
        } else {
            slot = next;
            next = (next + 1) % SIZE; // wraps: a counter that only grows would overflow
        }
        names[slot] = Unpooled.wrappedBuffer(name.getBytes(StandardCharsets.UTF_8));
        topics[slot] = t;
        return t;
    }

    /**
     * The partitions of the upstream topic named by {@code length} bytes at {@code offset} of {@code buf}
     * in {@code leadership}, or null when it does not know the topic. One String per topic and snapshot
     * (a newer snapshot, or another name of the same hash, replaces the slot), none per request.
     */
    public TopicLeaders leaders(PartitionLeadership leadership, ByteBuf buf, int offset, int length) {
        int hash = 1;
        for (int k = 0; k < length; k++) {
            hash = 31 * hash + buf.getByte(offset + k);
        }
        if (leaderNames == null) {
            leaderNames = new ByteBuf[LEADER_SLOTS];
            leaderSnapshots = new PartitionLeadership[LEADER_SLOTS];
            leaders = new TopicLeaders[LEADER_SLOTS];
        }
        int first = bucket(hash);
        for (int slot = first; slot < first + 2; slot++) {
            ByteBuf n = leaderNames[slot];
            if (n != null && leaderSnapshots[slot] == leadership && n.readableBytes() == length
                    && ByteBufUtil.equals(n, 0, buf, offset, length)) {
                return leaders[slot];
            }
        }
        String name = buf.toString(offset, length, StandardCharsets.UTF_8);
        TopicLeaders t = leadership.topic(name);
        int slot = victim(first, leadership, buf, offset, length);
        leaderNames[slot] = Unpooled.wrappedBuffer(name.getBytes(StandardCharsets.UTF_8));
        leaderSnapshots[slot] = leadership;
        leaders[slot] = t;
        return t;
    }

    /** {@link #leaders(PartitionLeadership, ByteBuf, int, int)} for a name given as UTF-8 bytes (a renamed topic's real name). */
    public TopicLeaders leaders(PartitionLeadership leadership, byte[] name) {
        int hash = 1;
        for (byte b : name) {
            hash = 31 * hash + b;
        }
        if (leaderNames != null) {
            int first = bucket(hash);
            for (int slot = first; slot < first + 2; slot++) {
                ByteBuf n = leaderNames[slot];
                if (n != null && leaderSnapshots[slot] == leadership && sameBytes(n, name)) {
                    return leaders[slot];
                }
            }
        }
        return leaders(leadership, Unpooled.wrappedBuffer(name), 0, name.length);
    }

    /** The first of the two slots (a 2-way bucket: two hot names of one hash both stay) a hash maps to. */
    private static int bucket(int hash) {
        return ((hash ^ hash >>> 16) & (LEADER_SLOTS / 2 - 1)) * 2;
    }

    /**
     * Which slot of the bucket a new entry takes: an empty one, one of another snapshot, one holding this
     * same name (of an older snapshot), else the second (the first then holds the older of two names).
     */
    private int victim(int first, PartitionLeadership leadership, ByteBuf buf, int offset, int length) {
        for (int slot = first; slot < first + 2; slot++) {
            ByteBuf n = leaderNames[slot];
            if (n == null || leaderSnapshots[slot] != leadership
                    || n.readableBytes() == length && ByteBufUtil.equals(n, 0, buf, offset, length)) {
                return slot;
            }
        }
        leaderNames[first] = leaderNames[first + 1];
        leaderSnapshots[first] = leaderSnapshots[first + 1];
        leaders[first] = leaders[first + 1];
        return first + 1;
    }

    private static boolean sameBytes(ByteBuf n, byte[] name) {
        if (n.readableBytes() != name.length) {
            return false;
        }
        for (int k = 0; k < name.length; k++) {
            if (n.getByte(k) != name[k]) {
                return false;
            }
        }
        return true;
    }
}
