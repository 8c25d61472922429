package dev.weft.protocol.skim;

import dev.weft.protocol.header.RequestHeaderView;
import dev.weft.protocol.wire.MalformedFrameException;
import io.netty.buffer.ByteBuf;

/**
 * A skimmed request (Produce, Fetch): {@link PartitionSkim} plus the request header, whose API key and
 * version are checked before the body is walked. Borrows its frame; not thread-safe.
 */
public abstract class RequestSkim extends PartitionSkim {

    protected final RequestHeaderView header = new RequestHeaderView();
    protected int bodyOffset;
    private int limit;

    protected RequestSkim(String api, short apiKey, short oldestVersion, short latestVersion,
                          short firstFlexibleVersion, short firstTopicIdVersion) {
        super(api, apiKey, oldestVersion, latestVersion, firstFlexibleVersion, firstTopicIdVersion);
    }

    /**
     * Skims the request whose header starts at {@code offset} and whose frame ends at {@code limit}.
     * Borrows {@code frame}.
     *
     * @throws MalformedFrameException when the frame is not a well-formed request of a supported version
     * @throws IllegalArgumentException when it is a request of another API
     */
    protected final void skim(ByteBuf frame, int offset, int limit) {
        this.buf = null;
        header.wrap(frame, offset);
        if (header.apiKey() != apiKey) {
            throw new IllegalArgumentException("not a " + api + " request: api key " + header.apiKey());
        }
        short v = header.apiVersion();
        if (v < oldestVersion || v > latestVersion) {
            throw new MalformedFrameException(api + " v" + v + " cannot be skimmed: Weft implements v"
                    + oldestVersion + "–" + latestVersion);
        }
        version(v);
        bodyOffset = header.bodyOffset();
        startBody(frame, bodyOffset, limit, "request");
        parseBody(frame);
        this.limit = limit;
        this.buf = frame;
    }

    /**
     * Bytes of the frame after the end of the message ({@link #endOffset()} to the frame's limit): 0
     * for every client seen so far. They are not refused, because the broker serves such a request
     * (kafka-clients' {@code RequestContext.parseRequest} never looks at what follows the message);
     * a frame built from the skim leaves them out, a frame forwarded whole carries them to the broker,
     * which ignores them. For the caller to count ({@code TrailingRequestBytes}): a skim may wrap the
     * same request more than once (again when its responses are merged), so it does not count itself.
     */
    public int trailingBytes() {
        return limit - endOffset;
    }

    /** Reads the body at the cursor, version and flexibility set. */
    protected abstract void parseBody(ByteBuf frame);

    /** The header of the skimmed request (borrowed view over the same frame). */
    public RequestHeaderView header() {
        return header;
    }

    public int correlationId() {
        return header.correlationId();
    }
}
