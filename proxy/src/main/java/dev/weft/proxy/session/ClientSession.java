package dev.weft.proxy.session;

import dev.weft.protocol.ApiKeyTable;
import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.protocol.header.RequestHeaderView;
import dev.weft.protocol.header.ResponseHeaderView;
import dev.weft.protocol.wire.MalformedFrameException;
import dev.weft.protocol.wire.WireCursor;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.timeout.IdleStateEvent;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection and the upstream broker connection that serves it, both on the client's
 * event loop (no cross-core hand-off, no locks).
 *
 * <p>Requests are forwarded as the frames they arrived in, with only the correlation id patched in
 * place; responses are matched to requests by order (Kafka answers a connection's requests in order),
 * get the client's correlation id back, and are either forwarded opaquely or given to the gateway's
 * {@link ResponseRewriter} for their API. Produce with {@code acks=0} expects no response and gets
 * none. Backpressure is end to end: a side that cannot write stops the other side reading.
 *
 * <p>Frames arrive from {@link KafkaFrameDecoder} with their size prefix kept, so forwarding is one
 * write of the retained slice and allocates nothing.
 */
public final class ClientSession extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(ClientSession.class);
    private static final AtomicLong IDS = new AtomicLong();
    private static final int PREFIX = KafkaFrameDecoder.SIZE_PREFIX_BYTES;

    private final SessionTarget target;
    private final SessionSettings settings;
    private final String id = "c" + IDS.incrementAndGet();
    private final RequestHeaderView requestHeader = new RequestHeaderView();
    private final WireCursor cursor = new WireCursor();
    private final InflightRequests inflight = new InflightRequests(16);
    private final ArrayDeque<ByteBuf> pending = new ArrayDeque<>(4);

    private SessionMetrics metrics = SessionMetrics.NONE;
    private Channel client;
    // Written and read only on the client's event loop, which also owns the upstream channel.
    private Channel upstream;
    private InetSocketAddress upstreamAddress;
    private int nextUpstreamCorrelationId;
    private boolean closed;
    private boolean draining;
    private long lastReadNanos = System.nanoTime();

    public ClientSession(SessionTarget target, SessionSettings settings) {
        this.target = target;
        this.settings = settings;
    }

    /** For log lines: connection id and client address. */
    public String describe() {
        return id + " " + (client != null ? client.remoteAddress() : "?") + " (" + target.describe() + ")";
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        client = ctx.channel();
        client.config().setAutoRead(false);
        metrics = settings.metrics().metricsFor(target.virtualCluster(), client.eventLoop());
        settings.registry().register(client);
        metrics.connectionOpened();
        LOG.debug("{}: connected", describe());
        target.resolve((address, error) -> client.eventLoop().execute(() -> onResolved(address, error)));
        ctx.fireChannelActive();
    }

    private void onResolved(InetSocketAddress address, Throwable error) {
        if (closed) {
            return;
        }
        if (error != null) {
            LOG.warn("{}: no upstream broker to connect to: {}; closing the client connection", describe(), error.getMessage());
            metrics.connectionError(SessionMetrics.SessionError.UPSTREAM_UNREACHABLE, (short) -1);
            close();
            return;
        }
        upstreamAddress = address;
        UpstreamHandler handler = new UpstreamHandler(this);
        settings.loops().clientBootstrap(client.eventLoop(), settings.buffers())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, settings.connectTimeoutMillis())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        SslContext tls = target.upstreamTls();
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc(), address.getHostString(), address.getPort()));
                        }
                        ch.pipeline().addLast(
                                new KafkaFrameDecoder(settings.maxFrameBytes(), "broker " + address, true),
                                handler);
                    }
                })
                .connect(address)
                .addListener((ChannelFutureListener) f -> onUpstreamConnected(f.isSuccess() ? f.channel() : null, f.cause()));
    }

    private void onUpstreamConnected(Channel channel, Throwable cause) {
        if (channel == null) {
            LOG.warn("{}: cannot connect to broker {}: {}; closing the client connection so it retries",
                    describe(), upstreamAddress, cause == null ? "unknown error" : cause.getMessage());
            target.reportUnreachable(upstreamAddress, cause);
            metrics.connectionError(SessionMetrics.SessionError.UPSTREAM_UNREACHABLE, (short) -1);
            close();
            return;
        }
        if (closed) {
            channel.close();
            return;
        }
        upstream = channel;
        LOG.debug("{}: upstream {} connected", describe(), upstreamAddress);
        forwardPending();
        upstream.flush();
        updateClientReading();
        client.read();
    }

    /**
     * Reads from the client only while it makes sense: the upstream can take more, the client has
     * fewer than {@code maxInflightRequests} unanswered (a client that pipelines and never reads
     * cannot grow the session's memory), and the session is not draining.
     */
    private void updateClientReading() {
        if (client == null || closed) {
            return;
        }
        boolean read = !draining && upstream != null && upstream.isWritable() && pending.isEmpty()
                && inflight.size() < settings.maxInflightRequests();
        if (client.config().isAutoRead() != read) {
            client.config().setAutoRead(read);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        if (closed) {
            frame.release();
            return;
        }
        if (upstream == null) {
            if (pending.size() >= settings.maxPendingFrames()) {
                frame.release();
                LOG.warn("{}: sent more than {} requests before the upstream connection was up; closing",
                        describe(), settings.maxPendingFrames());
                metrics.connectionError(SessionMetrics.SessionError.TOO_MANY_PENDING, (short) -1);
                close();
                return;
            }
            pending.add(frame);
            return;
        }
        if (!pending.isEmpty() || inflight.size() >= settings.maxInflightRequests()) {
            // At the in-flight cap reads are already off; what the last read decoded waits here, in order.
            pending.add(frame);
            return;
        }
        forwardRequest(frame);
    }

    /** Forwards queued requests while the in-flight cap allows; returns whether any went out. */
    private boolean forwardPending() {
        boolean sent = false;
        ByteBuf frame;
        while (!closed && inflight.size() < settings.maxInflightRequests() && (frame = pending.poll()) != null) {
            forwardRequest(frame);
            sent = true;
        }
        return sent;
    }

    /** Patches the correlation id and writes the frame upstream (no flush). Takes ownership of {@code frame}. */
    private void forwardRequest(ByteBuf frame) {
        int clientCorrelationId;
        int upstreamCorrelationId;
        short apiKey;
        try {
            RequestHeaderView header = requestHeader.wrap(frame, frame.readerIndex() + PREFIX);
            apiKey = header.apiKey();
            short apiVersion = header.apiVersion();
            if (!ApiKeyTable.isClientApi(apiKey) && ApiKeyTable.isKnownKey(apiKey)) {
                frame.release();
                LOG.warn("{}: {} is a broker-internal API, not for clients; closing", describe(), ApiKeyTable.name(apiKey));
                metrics.connectionError(SessionMetrics.SessionError.UNSUPPORTED_REQUEST, apiKey);
                close();
                return;
            }
            if (!ApiKeyTable.isSupported(apiKey, apiVersion) && apiKey != ApiKeys.API_VERSIONS.id) {
                // ApiVersions is exempt: a client probing with a newer version must get the broker's
                // UNSUPPORTED_VERSION answer (in v0 form) and retry lower.
                frame.release();
                rejectUnsupported(apiKey, apiVersion);
                return;
            }
            clientCorrelationId = header.correlationId();
            upstreamCorrelationId = nextUpstreamCorrelationId++ & Integer.MAX_VALUE;
            if (expectsResponse(header, apiKey, apiVersion)) {
                inflight.add(clientCorrelationId, upstreamCorrelationId, apiKey, apiVersion, System.nanoTime());
                if (inflight.size() == settings.maxInflightRequests()) {
                    updateClientReading(); // stop reading; frames already read still go through
                }
            }
            header.correlationId(upstreamCorrelationId);
        } catch (MalformedFrameException e) {
            frame.release();
            LOG.warn("{}: malformed request: {}; closing", describe(), e.getMessage());
            metrics.connectionError(SessionMetrics.SessionError.MALFORMED_REQUEST, (short) -1);
            close();
            return;
        }
        metrics.requestForwarded(apiKey, frame.readableBytes());
        upstream.write(frame, upstream.voidPromise());
    }

    /** Every request gets a response except Produce with acks=0. */
    private boolean expectsResponse(RequestHeaderView header, short apiKey, short apiVersion) {
        if (apiKey != ApiKeys.PRODUCE.id) {
            return true;
        }
        cursor.wrap(header.buffer(), header.bodyOffset(), header.buffer().writerIndex());
        if (apiVersion >= 9) {
            cursor.skipCompactString("transactional_id");
        } else {
            cursor.skipString("transactional_id");
        }
        return cursor.readInt16() != 0;
    }

    private void rejectUnsupported(short apiKey, short apiVersion) {
        if (!ApiKeyTable.isKnownKey(apiKey)) {
            LOG.warn("{}: unknown API key {} (not a Kafka request Weft knows); closing", describe(), apiKey);
        } else {
            LOG.warn("{}: {} version {} is not supported (Weft implements {} to {}); closing",
                    describe(), ApiKeyTable.name(apiKey), apiVersion,
                    ApiKeyTable.oldestVersion(apiKey), ApiKeyTable.latestVersion(apiKey));
        }
        metrics.connectionError(SessionMetrics.SessionError.UNSUPPORTED_REQUEST, apiKey);
        close();
    }

    /**
     * Reader-idle ticks from the pipeline's {@code IdleStateHandler}: a client that holds half a frame
     * too long (slow-loris) or is silent with nothing in flight for the idle timeout is closed.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == SessionRegistry.DRAIN) {
            startDrain();
            return;
        }
        if (closed) {
            ctx.fireUserEventTriggered(evt);
            return;
        }
        if (ClientConnectionChecks.mustClose(evt, ctx, LOG, describe(), settings, metrics, lastReadNanos, inflight.isEmpty())) {
            close();
        } else if (!(evt instanceof IdleStateEvent) && !(evt instanceof SslHandshakeCompletionEvent)) {
            ctx.fireUserEventTriggered(evt);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        lastReadNanos = System.nanoTime();
        if (upstream != null) {
            upstream.flush();
        }
        ctx.fireChannelReadComplete();
    }

    /** A response frame (size prefix kept) from the broker; takes ownership. Runs on the client's loop. */
    void onUpstreamFrame(ByteBuf frame) {
        if (closed) {
            frame.release();
            return;
        }
        int bodyOffset = frame.readerIndex() + PREFIX;
        if (frame.writerIndex() - bodyOffset < ResponseHeaderView.FIXED_LENGTH) {
            frame.release();
            LOG.warn("{}: broker {} sent a response too short for a header; closing", describe(), upstreamAddress);
            metrics.connectionError(SessionMetrics.SessionError.UPSTREAM_PROTOCOL, (short) -1);
            close();
            return;
        }
        int correlationId = ResponseHeaderView.correlationId(frame, bodyOffset);
        if (inflight.isEmpty() || inflight.headUpstreamCorrelationId() != correlationId) {
            frame.release();
            LOG.warn("{}: broker {} answered correlation id {} but {} was expected; closing",
                    describe(), upstreamAddress, correlationId,
                    inflight.isEmpty() ? "no response" : Integer.toString(inflight.headUpstreamCorrelationId()));
            metrics.connectionError(SessionMetrics.SessionError.UPSTREAM_PROTOCOL, (short) -1);
            close();
            return;
        }
        short apiKey = inflight.headApiKey();
        short apiVersion = inflight.headApiVersion();
        int clientCorrelationId = inflight.headClientCorrelationId();
        long sentNanos = inflight.headSentNanos();
        inflight.removeHead();
        if (inflight.size() == settings.maxInflightRequests() - 1) {
            if (forwardPending()) {
                upstream.flush();
            }
            updateClientReading();
        }
        ResponseRewriter rewriter = target.rewriterFor(apiKey);
        ByteBuf out;
        if (rewriter == null) {
            ResponseHeaderView.correlationId(frame, bodyOffset, clientCorrelationId);
            out = frame;
        } else {
            try {
                out = rewriter.rewrite(frame, apiKey, apiVersion, clientCorrelationId, client.alloc());
            } catch (RuntimeException e) {
                LOG.warn("{}: cannot rewrite {} v{} response from broker {}: {}; closing",
                        describe(), ApiKeyTable.name(apiKey), apiVersion, upstreamAddress, e.toString());
                metrics.connectionError(SessionMetrics.SessionError.REWRITE_FAILED, apiKey);
                close();
                return;
            }
        }
        metrics.responseReturned(apiKey, out.readableBytes(), System.nanoTime() - sentNanos);
        client.write(out, client.voidPromise());
    }

    void onUpstreamReadComplete() {
        if (client != null) {
            client.flush();
        }
        if (draining) {
            finishDrainIfIdle();
        }
    }

    /** Shutdown: read nothing more from the client, answer what is in flight, then close. */
    private void startDrain() {
        if (closed || draining) {
            return;
        }
        draining = true;
        updateClientReading();
        LOG.debug("{}: draining with {} request(s) in flight", describe(), inflight.size());
        finishDrainIfIdle();
    }

    private void finishDrainIfIdle() {
        if (!closed && inflight.isEmpty()) {
            // Close only after the responses already written have reached the socket.
            client.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER).addListener(f -> close());
        }
    }

    void onUpstreamWritabilityChanged(boolean writable) {
        updateClientReading();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (upstream != null) {
            upstream.config().setAutoRead(ctx.channel().isWritable());
        }
        ctx.fireChannelWritabilityChanged();
    }

    void onUpstreamClosed() {
        if (!closed) {
            LOG.info("{}: broker {} closed the connection{}; closing the client connection", describe(), upstreamAddress,
                    inflight.isEmpty() ? "" : " with " + inflight.size() + " request(s) unanswered");
            close();
        }
    }

    void onUpstreamError(Throwable cause) {
        if (!closed) {
            LOG.warn("{}: connection to broker {} failed: {}; closing", describe(), upstreamAddress, reason(cause));
            metrics.connectionError(SessionMetrics.SessionError.UPSTREAM_FAILED, (short) -1);
            close();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        LOG.debug("{}: client disconnected", describe());
        close();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!closed) {
            if (cause.getCause() instanceof NotSslRecordException) {
                LOG.warn("{}: not a TLS record: a plaintext client on a TLS port; closing", describe());
                metrics.connectionError(SessionMetrics.SessionError.TLS_HANDSHAKE, (short) -1);
            } else if (cause instanceof java.nio.channels.ClosedChannelException) {
                LOG.info("{}: the client went away before its responses were written; closing", describe());
            } else {
                LOG.warn("{}: {}; closing", describe(), rootMessage(cause));
            }
        }
        close();
    }

    /** What to log for an I/O failure: closed channels and resets say so in words. */
    private static String reason(Throwable cause) {
        if (cause instanceof java.nio.channels.ClosedChannelException) {
            return "the connection was already closed";
        }
        return rootMessage(cause);
    }

    private static String rootMessage(Throwable t) {
        return ClientConnectionChecks.rootMessage(t);
    }

    /** Closes both sides and releases what is queued; idempotent. */
    private void close() {
        if (closed) {
            return;
        }
        closed = true;
        metrics.connectionClosed();
        ByteBuf frame;
        while ((frame = pending.poll()) != null) {
            frame.release();
        }
        if (upstream != null) {
            upstream.close();
        }
        if (client != null) {
            client.close();
        }
    }
}
