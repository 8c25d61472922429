package dev.weft.proxy.exchange;

import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.protocol.header.RequestHeaderView;
import dev.weft.protocol.wire.WireCursor;
import io.netty.buffer.ByteBuf;

/**
 * Whether a Produce frame forwarded unread expects an answer: every request does, except Produce with
 * acks=0. One per session (event loop only): reads two fields, allocates nothing. Public for the
 * session's forward path, which sends such frames unread.
 */
public final class ProduceAcks {

    private final RequestHeaderView header = new RequestHeaderView();
    private final WireCursor cursor = new WireCursor();

    /** Reads the transactional id and acks of a Produce request frame (borrowed; size prefix kept). */
    public boolean expectsResponse(ByteBuf frame, short version) {
        RequestHeaderView h = header.wrap(frame, frame.readerIndex() + KafkaFrameDecoder.SIZE_PREFIX_BYTES);
        cursor.wrap(frame, h.bodyOffset(), frame.writerIndex());
        if (version >= 9) {
            cursor.skipCompactString("transactional_id");
        } else {
            cursor.skipString("transactional_id");
        }
        return cursor.readInt16() != 0;
    }
}
