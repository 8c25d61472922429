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
    /** Names → partition leaders of one leadership snapshot each (rack-aware fetch, name-keyed Fetch). */
    private final ByteBuf[] leaderNames = new ByteBuf[SIZE];
    private final PartitionLeadership[] leaderSnapshots = new PartitionLeadership[SIZE];
    private final TopicLeaders[] leaders = new TopicLeaders[SIZE];
    private int nextLeaders;

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
        int slot = used < SIZE ? used++ : next++ % SIZE;
        names[slot] = Unpooled.wrappedBuffer(name.getBytes(StandardCharsets.UTF_8));
        topics[slot] = t;
        return t;
    }

    /**
     * The partitions of the upstream topic named by {@code length} bytes at {@code offset} of {@code buf}
     * in {@code leadership}, or null when it does not know the topic. Entries of older snapshots are
     * replaced as the slots come round; one String per topic and snapshot, none per request.
     */
    public TopicLeaders leaders(PartitionLeadership leadership, ByteBuf buf, int offset, int length) {
        for (int i = 0; i < SIZE; i++) {
            ByteBuf n = leaderNames[i];
            if (n != null && leaderSnapshots[i] == leadership && n.readableBytes() == length
                    && ByteBufUtil.equals(n, 0, buf, offset, length)) {
                return leaders[i];
            }
        }
        String name = buf.toString(offset, length, StandardCharsets.UTF_8);
        TopicLeaders t = leadership.topic(name);
        int slot = nextLeaders++ % SIZE;
        leaderNames[slot] = Unpooled.wrappedBuffer(name.getBytes(StandardCharsets.UTF_8));
        leaderSnapshots[slot] = leadership;
        leaders[slot] = t;
        return t;
    }

    /** {@link #leaders(PartitionLeadership, ByteBuf, int, int)} for a name given as UTF-8 bytes (a renamed topic's real name). */
    public TopicLeaders leaders(PartitionLeadership leadership, byte[] name) {
        for (int i = 0; i < SIZE; i++) {
            ByteBuf n = leaderNames[i];
            if (n != null && leaderSnapshots[i] == leadership && sameBytes(n, name)) {
                return leaders[i];
            }
        }
        return leaders(leadership, Unpooled.wrappedBuffer(name), 0, name.length);
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
