package dev.weft.proxy.upstream;

import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.protocol.header.RequestHeaderView;
import dev.weft.protocol.header.ResponseHeaderView;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import org.agrona.collections.IntArrayQueue;
import org.apache.kafka.common.protocol.Errors;

/**
 * One connection from a woven session to one real broker, on the session's event loop. Requests are
 * written with the link's own correlation ids; the broker answers a connection in order, so each
 * response goes to the oldest waiting {@link Exchange}. Frames written before the connection is up
 * wait, in order. When the connection fails every waiting exchange is told, once.
 */
public final class UpstreamLink {

    /** Who waits for one response; runs on the session's event loop. */
    public interface Exchange {
        /**
         * The response frame (size prefix kept), with the link's correlation id; takes ownership.
         *
         * @param tag what the sender passed with the request (lets one exchange object serve many requests)
         */
        void onResponse(ByteBuf frame, int tag);

        /** No response will come: the connection could not be made or broke. */
        void onFailure(Errors error, String reason, int tag);
    }

    /** What the link's owner ({@link UpstreamLinks}, for its session) hears about the link's life. */
    interface Owner {
        void onLinkClosed(UpstreamLink link);

        void onLinkWritabilityChanged(UpstreamLink link, boolean writable);

        void onLinkReadComplete();
    }

    private static final int PREFIX = KafkaFrameDecoder.SIZE_PREFIX_BYTES;
    private static final short FETCH = org.apache.kafka.common.protocol.ApiKeys.FETCH.id;

    private final int route;
    private final String name;
    private final Owner owner;
    private final ArrayDeque<ByteBuf> unsent = new ArrayDeque<>(2);
    private final ArrayDeque<Exchange> waiting = new ArrayDeque<>(4);
    private final IntArrayQueue waitingIds = new IntArrayQueue(8, -1);
    private final IntArrayQueue waitingTags = new IntArrayQueue(8, -1);
    private final RequestHeaderView header = new RequestHeaderView();
    private Channel channel;
    /** Requests sent over this link, by API key (shared with every link to the same broker). */
    private final java.util.concurrent.atomic.LongAdder[] requestsByApi;
    /** Fetch answer bytes received over this link (shared with every link to the same broker). */
    private final java.util.concurrent.atomic.LongAdder fetchBytes;
    /** Per request waiting: whether it is a Fetch (its answer's bytes are counted). */
    private final java.util.ArrayDeque<Boolean> waitingFetch = new java.util.ArrayDeque<>(4);
    private InetSocketAddress address;
    private String failure = "";
    private boolean byBroker;
    /** Closed by its session while connecting, with frames still to send (see {@link #closeAfterWrites}). */
    private boolean draining;
    /** The close was asked for after a final flush: {@link #fail} must not cut it short. */
    private boolean channelClosedByUs;
    private String errorDetail;
    /** Fetch parts sent on this link and not answered yet (a broker serves one request of a connection at a time). */
    private int fetchParts;
    /** Whether the last Fetch part answered here carried records (a broker that had data is waited for). */
    private boolean lastFetchHadData = true;
    /** Whether {@link UpstreamLinks} counts this link as backed up (owned by the session's loop). */
    boolean countedUnwritable;
    /** Carries branch copies only: never waited on (see {@link UpstreamLinks#side}). */
    boolean side;
    /** Who it is to its broker (its cluster's {@link UpstreamCluster#identityFor}). */
    UpstreamCluster.Identity identity;
    /** Replaced by a link with other credentials ({@link UpstreamLinks#principalKnown}): it ends quietly. */
    boolean replaced;
    private int nextCorrelationId;
    private boolean closed;
    /** Closed by its session, open until what it waits for is answered (see {@link #closeAfterAnswers}). */
    private boolean closeWhenAnswered;
    private String closeReason = "not connected";

    UpstreamLink(int route, String name, Owner owner, UpstreamRequestCounters.BrokerCounters counters) {
        this.route = route;
        this.name = name;
        this.owner = owner;
        this.requestsByApi = counters.requestsByApi;
        this.fetchBytes = counters.fetchBytes;
    }

    /** The route (leaf) whose cluster this link reaches. */
    public int route() {
        return route;
    }

    /** For log lines: "cluster 'east' broker 1 (127.0.0.1:9092)". */
    public String name() {
        return name;
    }

    /**
     * @param sasl the cluster's credentials when the link authenticates itself before it is used
     *     ({@link UpstreamSaslHandshake}), null when it does not (a plaintext or TLS listener, or a link
     *     that carries its client's own SASL)
     * @param saslWarnings lets an authentication failure be logged at WARN (per cluster)
     */
    void connect(LinkSettings settings, EventLoop loop, InetSocketAddress address, SslContext tls,
            dev.weft.proxy.config.WeftConfig.SaslCredentials sasl, dev.weft.iocore.time.AtMostEvery saslWarnings) {
        this.address = address;
        int maxFrameBytes = settings.maxFrameBytes();
        settings.loops().clientBootstrap(loop, settings.buffers())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, settings.connectTimeoutMillis())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc(), address.getHostString(), address.getPort()));
                        }
                        ch.pipeline().addLast(new KafkaFrameDecoder(maxFrameBytes, "broker " + address, true));
                        if (sasl != null) {
                            ch.pipeline().addLast(new UpstreamSaslHandshake(name, address.getHostString() + ":" + address.getPort(),
                                    sasl, settings.connectTimeoutMillis(), saslWarnings, waiting::size));
                        }
                        ch.pipeline().addLast(new Handler());
                    }
                })
                .connect(address)
                .addListener((ChannelFutureListener) f -> {
                    if (!f.isSuccess()) {
                        failure = "cannot connect to broker " + where() + ": " + f.cause().getMessage();
                        draining = false;
                        releaseUnsent();
                        fail(Errors.NETWORK_EXCEPTION, "cannot connect to " + name + ": " + f.cause().getMessage());
                    } else if (draining) {
                        // closed by its session before it connected: what it was given still goes out
                        draining = false;
                        ByteBuf frame;
                        while ((frame = unsent.poll()) != null) {
                            f.channel().write(frame, f.channel().voidPromise());
                        }
                        f.channel().writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
                    } else if (closed) {
                        f.channel().close();
                    } else {
                        channel = f.channel();
                        ByteBuf frame;
                        while ((frame = unsent.poll()) != null) {
                            channel.write(frame, channel.voidPromise());
                        }
                        channel.flush();
                    }
                });
    }

    /**
     * Sends a request frame (size prefix included; its correlation id is overwritten with the link's).
     * Takes ownership of {@code frame}. {@code exchange} null: no response is expected (acks=0).
     * Does not flush: call {@link #flush()} after a batch.
     */
    public void send(ByteBuf frame, Exchange exchange) {
        send(frame, exchange, 0);
    }

    /** {@link #send(ByteBuf, Exchange)} with a tag handed back to {@code exchange} with the answer. */
    public void send(ByteBuf frame, Exchange exchange, int tag) {
        if (closed) {
            frame.release();
            if (exchange != null) {
                exchange.onFailure(Errors.NETWORK_EXCEPTION, closeReason, tag);
            }
            return;
        }
        int id = nextCorrelationId++ & Integer.MAX_VALUE;
        RequestHeaderView h = header.wrap(frame, frame.readerIndex() + PREFIX);
        h.correlationId(id);
        short apiKey = h.apiKey();
        if (apiKey >= 0 && apiKey < requestsByApi.length) {
            requestsByApi[apiKey].increment();
        }
        if (exchange != null) {
            waiting.add(exchange);
            waitingIds.addInt(id);
            waitingTags.addInt(tag);
            waitingFetch.add(apiKey == FETCH ? Boolean.TRUE : Boolean.FALSE);
        }
        if (channel == null) {
            unsent.add(frame);
        } else {
            channel.write(frame, channel.voidPromise());
        }
    }

    public void flush() {
        if (channel != null) {
            channel.flush();
        }
    }

    /** Whether the link takes writes without queueing past its high-water mark (true before it connects). */
    public boolean isWritable() {
        return channel == null || channel.isWritable();
    }

    void setAutoRead(boolean read) {
        if (channel != null && channel.config().isAutoRead() != read) {
            channel.config().setAutoRead(read);
        }
    }

    boolean isClosed() {
        return closed;
    }

    void close() {
        fail(Errors.NETWORK_EXCEPTION, "the session closed");
    }

    /**
     * The session ended: what was already handed to this link still reaches the broker, as a broker
     * serves what it read from a client that then closed (acks=0 records, a forwarded request), then the
     * connection closes. Nobody waits for answers any more: waiting exchanges fail now.
     */
    void closeAfterWrites() {
        if (closed) {
            return;
        }
        if (channel == null && !unsent.isEmpty()) {
            draining = true; // the connect listener writes them, then closes
        } else if (channel != null) {
            channel.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            channelClosedByUs = true;
        }
        fail(Errors.NETWORK_EXCEPTION, "the session closed");
    }

    /**
     * The session ended, but this link's answers are still wanted (a side link: they say what became of
     * branch copies): it stays open until every request sent on it is answered, then closes as
     * {@link #closeAfterWrites} does; after {@code maxWaitMillis} it closes whatever is still out.
     */
    void closeAfterAnswers(EventLoop loop, long maxWaitMillis) {
        if (closed) {
            return;
        }
        if (waiting.isEmpty()) {
            closeAfterWrites();
            return;
        }
        closeWhenAnswered = true;
        loop.schedule(this::closeAfterWrites, maxWaitMillis, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /** Whether it still has frames to send once connected (closed by its session before it connected). */
    boolean draining() {
        return draining;
    }

    private void releaseUnsent() {
        ByteBuf frame;
        while ((frame = unsent.poll()) != null) {
            frame.release();
        }
    }

    /** The broker's address could not be found (discovery failed): fails everything waiting. */
    void failUnresolved(String reason) {
        failure = "no upstream broker to connect to: " + reason;
        draining = false;
        releaseUnsent();
        fail(Errors.NETWORK_EXCEPTION, "no address for " + name + ": " + reason);
    }

    /** "127.0.0.1:9092 (cluster 'east' broker 1)" once an address is known, else the link's name. */
    String where() {
        return address == null ? name : address.getHostString() + ":" + address.getPort() + " (" + name + ")";
    }

    /**
     * Why the link ended, for the client session's log line when it was the connection's own: a failure
     * to connect or resolve (a WARN: the client is sent away), or the broker closing it (INFO).
     */
    public String endedBecause() {
        if (!failure.isEmpty()) {
            return failure;
        }
        return byBroker ? "broker " + where() + " closed the connection"
                : "connection to broker " + where() + " failed: " + (errorDetail != null ? errorDetail : closeReason);
    }

    /** True once the connection was made (and authenticated, when the link authenticates itself). */
    boolean everConnected() {
        return channel != null && failure.isEmpty();
    }

    /** True when the broker ended a working connection (it closed the socket). */
    public boolean closedByBroker() {
        return byBroker;
    }

    /** True when the link could not be made at all (no address, the connect or its SASL authentication failed). */
    public boolean neverConnected() {
        return !failure.isEmpty();
    }

    /** Why the link closed ("not connected" before it did). */
    public String closeReason() {
        return closeReason;
    }

    // Fetch wait state of the connection, kept and read by the Fetch exchange (proxy.exchange.HotFetch).

    /** Fetch parts sent on this link and not answered yet. */
    public int fetchPartsOut() {
        return fetchParts;
    }

    /** A Fetch part was sent on this link. */
    public void fetchPartSent() {
        fetchParts++;
    }

    /** A Fetch part sent on this link ended (answered, late or not, or failed). */
    public void fetchPartDone() {
        fetchParts = Math.max(0, fetchParts - 1);
    }

    /** Whether the last Fetch part answered here carried records (true until one answered). */
    public boolean lastFetchHadData() {
        return lastFetchHadData;
    }

    public void lastFetchHadData(boolean hadData) {
        lastFetchHadData = hadData;
    }

    private void onFrame(ByteBuf frame) {
        int bodyOffset = frame.readerIndex() + PREFIX;
        if (frame.writerIndex() - bodyOffset < ResponseHeaderView.FIXED_LENGTH) {
            frame.release();
            fail(Errors.NETWORK_EXCEPTION, name + " sent a response too short for a header");
            return;
        }
        int id = ResponseHeaderView.correlationId(frame, bodyOffset);
        int expected = waitingIds.peekInt();
        if (expected != id) {
            frame.release();
            fail(Errors.NETWORK_EXCEPTION, name + " answered correlation id " + id + " but "
                    + (expected < 0 ? "no response" : Integer.toString(expected)) + " was expected");
            return;
        }
        waitingIds.pollInt();
        if (waitingFetch.poll() == Boolean.TRUE) {
            fetchBytes.add(frame.readableBytes());
        }
        waiting.poll().onResponse(frame, waitingTags.pollInt());
        if (closeWhenAnswered && waiting.isEmpty()) {
            closeAfterWrites();
        }
    }

    private void fail(Errors error, String reason) {
        if (closed) {
            return;
        }
        closed = true;
        closeReason = reason;
        if (!draining) {
            releaseUnsent();
        }
        if (channel != null && !channelClosedByUs) {
            channel.close();
        }
        waitingIds.clear();
        waitingFetch.clear();
        Exchange e;
        while ((e = waiting.poll()) != null) {
            e.onFailure(error, reason, waitingTags.pollInt());
        }
        owner.onLinkClosed(this);
    }

    private final class Handler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (closed) {
                ((ByteBuf) msg).release();
                return;
            }
            onFrame((ByteBuf) msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            owner.onLinkReadComplete();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            owner.onLinkWritabilityChanged(UpstreamLink.this, ctx.channel().isWritable());
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            byBroker = !closed;
            fail(Errors.NETWORK_EXCEPTION, name + " closed the connection");
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            byBroker = false;
            if (cause instanceof UpstreamSaslHandshake.UpstreamSaslException && failure.isEmpty()) {
                // connected but not usable: counts as not reached (backoff, the session's log and metrics)
                failure = "cannot authenticate to broker " + where() + ": " + cause.getMessage();
            }
            errorDetail = cause.getMessage() != null ? cause.getMessage() : cause.toString();
            fail(Errors.NETWORK_EXCEPTION, "connection to " + name + " failed: " + cause.getMessage());
        }
    }
}
