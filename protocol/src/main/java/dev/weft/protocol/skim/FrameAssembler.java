package dev.weft.protocol.skim;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;

/**
 * Assembles an outgoing frame as a {@link CompositeByteBuf} of small, newly written metadata segments
 * and <em>retained slices</em> of record data that stays where it arrived: record bytes are never
 * copied. A frame that turns out to be one chunk of metadata (a Fetch request, a Produce response) is
 * that chunk itself: no composite, no slice, so nothing on the heap.
 *
 * <pre>
 *  frame = [size|header|topics...|partition meta] [records slice] [meta] [records slice] ... [meta]
 *           \______ chunk segment ______________/                  \chunk/                  \chunk/
 * </pre>
 *
 * <p>Metadata is written into a pooled <em>chunk</em> (sized by the caller's hint, so normally one per
 * frame); each time a records slice is appended, the metadata written since the last slice becomes a
 * retained slice of the chunk. The frame starts with the 4-byte size prefix, filled in by
 * {@link #finish()}: what comes out is ready for the socket.
 *
 * <p>One instance per core, reused for every frame it builds; not thread-safe. If building fails
 * half-way, {@link #abort()} releases everything taken so far (the builders do that in a
 * {@code catch}), so an exception never leaks a buffer.
 */
public final class FrameAssembler {

    /** Smallest metadata chunk allocated. */
    static final int MIN_CHUNK_BYTES = 256;

    private ByteBufAllocator alloc;
    private CompositeByteBuf frame;
    private ByteBuf chunk;
    private int segmentStart;
    private int metadataHint;

    /**
     * Starts a frame and writes its size placeholder.
     *
     * @param metadataBytesHint an estimate (ideally an upper bound) of all metadata bytes the frame
     *     will need, size prefix included; a larger need only costs another chunk
     */
    public void begin(ByteBufAllocator alloc, int metadataBytesHint) {
        if (chunk != null || frame != null) {
            abort();
            throw new IllegalStateException("begin() while a frame was being built: finish() or abort() first");
        }
        this.alloc = alloc;
        // slack: callers reserve a little more than they write (a 5-byte varint that takes 1)
        this.metadataHint = (int) Math.max(MIN_CHUNK_BYTES, Math.min(Integer.MAX_VALUE - 64, metadataBytesHint + 16L));
        this.chunk = alloc.directBuffer(metadataHint, metadataHint);
        this.segmentStart = 0;
        chunk.writeInt(0); // size prefix, set by finish()
    }

    /**
     * The metadata chunk to write the next {@code bytes} bytes into, with at least that much room.
     * Writing more than reserved is a bug and fails loudly (chunks never grow: slices of them are
     * already in the frame). Borrowed: never release it.
     */
    public ByteBuf meta(int bytes) {
        if (chunk.writableBytes() < bytes) {
            flushSegment();
            chunk.release();
            chunk = null;
            int size = Math.max(bytes, metadataHint / 2 + MIN_CHUNK_BYTES);
            chunk = alloc.directBuffer(size, size);
            segmentStart = 0;
        }
        return chunk;
    }

    /**
     * Copies the small metadata range [{@code from}, {@code to}) of {@code src} (a topic name, a
     * partition's fixed fields, tagged fields) into the frame. Never used for record bytes. Borrows.
     */
    public void copy(ByteBuf src, int from, int to) {
        int length = to - from;
        if (length > 0) {
            meta(length).writeBytes(src, from, length);
        }
    }

    /**
     * Appends {@code length} bytes of {@code src} from {@code offset} as a retained slice: no copy.
     * Borrows {@code src} (the frame holds its own reference through the slice).
     */
    public void appendSlice(ByteBuf src, int offset, int length) {
        if (length <= 0) {
            return;
        }
        flushSegment();
        composite().addComponent(true, src.retainedSlice(offset, length));
    }

    /** The composite, made when the frame first needs more than its first chunk. */
    private CompositeByteBuf composite() {
        if (frame == null) {
            frame = alloc.compositeDirectBuffer(Integer.MAX_VALUE);
        }
        return frame;
    }

    /**
     * Completes the frame: sets the size prefix and hands it over.
     *
     * @return the whole frame, size prefix included; the caller takes ownership (one reference)
     */
    public ByteBuf finish() {
        ByteBuf done;
        if (frame == null) {
            done = chunk;
        } else {
            flushSegment();
            chunk.release();
            done = frame;
        }
        chunk = null;
        frame = null;
        done.setInt(0, done.readableBytes() - 4);
        return done;
    }

    /** Releases everything taken for the frame being built. Safe to call when nothing is being built. */
    public void abort() {
        if (chunk != null) {
            chunk.release();
            chunk = null;
        }
        if (frame != null) {
            frame.release();
            frame = null;
        }
    }

    private void flushSegment() {
        int end = chunk.writerIndex();
        if (end > segmentStart) {
            composite().addComponent(true, chunk.retainedSlice(segmentStart, end - segmentStart));
            segmentStart = end;
        }
    }
}
