package dev.weft.protocol.frame;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Splits a Kafka byte stream into frames: a 4-byte big-endian size, then that many bytes.
 *
 * <p>Emits each frame as a <em>retained slice</em> of the cumulation buffer: no bytes are copied, and
 * the next handler <em>takes ownership</em> of the slice. By default the slice is the frame body
 * (size prefix removed); with {@code keepSizePrefix} it starts at the size prefix, so a proxy can
 * forward it with one write and no allocation (the body then starts at
 * {@code readerIndex() + SIZE_PREFIX_BYTES}). A partial frame leaves the reader index alone until the
 * rest arrives.
 *
 * <p>A size below zero or above {@code maxFrameBytes} is refused with a {@link FrameSizeException}
 * naming the size, the limit and the peer; the decoder then discards everything after it (the stream
 * cannot be resynchronised), and the pipeline is expected to close the connection.
 */
public final class KafkaFrameDecoder extends ByteToMessageDecoder {

    public static final int SIZE_PREFIX_BYTES = 4;

    private final int maxFrameBytes;
    private final String peerRole;
    private final boolean keepSizePrefix;
    private boolean failed;

    /**
     * @param maxFrameBytes the largest frame body accepted, in bytes
     * @param peerRole who sends this stream, for error messages ("client", "broker 3")
     */
    public KafkaFrameDecoder(int maxFrameBytes, String peerRole) {
        this(maxFrameBytes, peerRole, false);
    }

    /**
     * @param maxFrameBytes the largest frame body accepted, in bytes
     * @param peerRole who sends this stream, for error messages ("client", "broker 3")
     * @param keepSizePrefix emit frames starting at their 4-byte size prefix instead of the body
     */
    public KafkaFrameDecoder(int maxFrameBytes, String peerRole, boolean keepSizePrefix) {
        if (maxFrameBytes <= 0) {
            throw new IllegalArgumentException("maxFrameBytes must be positive, was " + maxFrameBytes);
        }
        this.maxFrameBytes = maxFrameBytes;
        this.peerRole = peerRole;
        this.keepSizePrefix = keepSizePrefix;
        // A frame that spans several reads (a 1 MiB Fetch response, a big Produce) is assembled as a
        // composite of the reads' own buffers; the default merge cumulator would copy every byte of
        // it into one growing buffer, which is a copy proportional to the payload.
        setCumulator(COMPOSITE_CUMULATOR);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (in.readableBytes() >= SIZE_PREFIX_BYTES) {
            int start = in.readerIndex();
            int size = in.getInt(start);
            if (size < 0 || size > maxFrameBytes) {
                failed = true;
                in.skipBytes(in.readableBytes());
                throw new FrameSizeException(size, maxFrameBytes, peerRole, String.valueOf(ctx.channel().remoteAddress()));
            }
            if (in.readableBytes() - SIZE_PREFIX_BYTES < size) {
                return; // wait for the rest of the frame
            }
            if (keepSizePrefix) {
                out.add(in.readRetainedSlice(SIZE_PREFIX_BYTES + size));
            } else {
                in.skipBytes(SIZE_PREFIX_BYTES);
                out.add(in.readRetainedSlice(size));
            }
        }
    }

    /** Bytes received but not yet emitted as a frame: the start of an incomplete frame. */
    public int bufferedBytes() {
        return actualReadableBytes();
    }

    public int maxFrameBytes() {
        return maxFrameBytes;
    }
}
