package dev.weft.protocol.skim;

import dev.weft.protocol.wire.MalformedFrameException;
import dev.weft.protocol.wire.WireCursor;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The {@code node_endpoints} tagged field of a Produce (v10+) or Fetch (v16+) response, skimmed: where
 * each endpoint's host and rack bytes are, its node id and port. Growable arrays owned by the response
 * skim; no object per endpoint. Borrows the buffer.
 *
 * <pre>
 *  COMPACT_ARRAY of
 *  +-----------+-------------------------+--------+------------------------------+---------------+
 *  | node_id   | host: COMPACT_STRING    | port   | rack: COMPACT_NULLABLE_STRING | tagged fields |
 *  | int32     | uvarint len+1, bytes    | int32  | uvarint len+1 (0 = null)     |               |
 *  +-----------+-------------------------+--------+------------------------------+---------------+
 * </pre>
 */
public final class NodeEndpointList {

    /** Smallest endpoint on the wire: node id, empty host, port, null rack, no tags. */
    private static final int MIN_ENDPOINT_BYTES = 4 + 1 + 4 + 1 + 1;

    private final WireCursor cursor = new WireCursor();
    private ByteBuf buf;
    private int count;
    private int[] entryOffset = new int[4];
    private int[] hostOffset = new int[4];
    private int[] hostLength = new int[4];
    private int[] portOffset = new int[4];
    private int[] rackOffset = new int[4];
    private int[] rackLength = new int[4];

    public void clear() {
        count = 0;
        buf = null;
    }

    /**
     * Skims the compact array of endpoints that is the data of the tagged field at
     * [{@code offset}, {@code offset + size}). Borrows {@code buf}.
     *
     * @throws MalformedFrameException when the entries do not exactly fill the tagged field
     */
    public void parse(ByteBuf buf, int offset, int size) {
        this.buf = buf;
        this.count = 0;
        cursor.wrap(buf, offset, offset + size);
        int n = SkimReads.nonNullArrayLength(cursor, true, MIN_ENDPOINT_BYTES, "node_endpoints");
        for (int j = 0; j < n; j++) {
            if (count == entryOffset.length) {
                grow();
            }
            entryOffset[j] = cursor.position();
            cursor.readInt32();
            int hostLen = SkimReads.nonNullStringLength(cursor, true, "node_endpoints.host");
            hostOffset[j] = cursor.position();
            hostLength[j] = hostLen;
            cursor.skip(hostLen, "node_endpoints.host");
            portOffset[j] = cursor.position();
            cursor.readInt32();
            int rackLen = SkimReads.stringLength(cursor, true, "node_endpoints.rack");
            rackOffset[j] = cursor.position();
            rackLength[j] = rackLen;
            if (rackLen > 0) {
                cursor.skip(rackLen, "node_endpoints.rack");
            }
            cursor.skipTaggedFields();
            count++;
        }
        if (cursor.remaining() != 0) {
            throw new MalformedFrameException("node_endpoints tagged field at offset " + offset + " has "
                    + cursor.remaining() + " bytes after its " + n + " entries");
        }
    }

    public int count() {
        return count;
    }

    public ByteBuf buffer() {
        return buf;
    }

    public int nodeId(int j) {
        return buf.getInt(entryOffset[j]);
    }

    public int port(int j) {
        return buf.getInt(portOffset[j]);
    }

    public int hostOffset(int j) {
        return hostOffset[j];
    }

    public int hostLength(int j) {
        return hostLength[j];
    }

    /** Allocates: for the cold path and tests. */
    public String host(int j) {
        return buf.toString(hostOffset[j], hostLength[j], StandardCharsets.UTF_8);
    }

    public int rackOffset(int j) {
        return rackOffset[j];
    }

    /** Rack length in bytes, or -1 when the rack is null. */
    public int rackLength(int j) {
        return rackLength[j];
    }

    /** Allocates; null when the rack is null. */
    public String rack(int j) {
        return rackLength[j] < 0 ? null : buf.toString(rackOffset[j], rackLength[j], StandardCharsets.UTF_8);
    }

    private void grow() {
        int n = entryOffset.length * 2;
        entryOffset = Arrays.copyOf(entryOffset, n);
        hostOffset = Arrays.copyOf(hostOffset, n);
        hostLength = Arrays.copyOf(hostLength, n);
        portOffset = Arrays.copyOf(portOffset, n);
        rackOffset = Arrays.copyOf(rackOffset, n);
        rackLength = Arrays.copyOf(rackLength, n);
    }
}
