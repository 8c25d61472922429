package dev.weft.routing.api;

import dev.weft.routing.VisibleTopic;
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
}
