package dev.weft.proxy.weave;

import dev.weft.protocol.ApiKeyTable;
import dev.weft.protocol.cold.ColdCodec;
import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.protocol.header.RequestHeaderView;
import dev.weft.protocol.wire.MalformedFrameException;
import dev.weft.proxy.gateway.BrokerAddressBook;
import dev.weft.proxy.session.ClientConnectionChecks;
import dev.weft.proxy.session.SessionMetrics;
import dev.weft.proxy.session.SessionRegistry;
import dev.weft.proxy.session.SessionSettings;
import dev.weft.proxy.weave.ResponseSlots.Slot;
import dev.weft.routing.plan.ColdPlanner;
import dev.weft.routing.plan.Planners;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.timeout.IdleStateEvent;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.Errors;
import dev.weft.routing.plan.Destination;
import dev.weft.routing.plan.Part;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection to a virtual cluster woven from several clusters (DESIGN §5). A connection to
 * virtual node v is bound to one real broker (its "own" link: Produce, Fetch and the coordinator
 * APIs of groups and transactions homed there go to it); every other request is planned per API
 * ({@link Planners}) and may go to any broker or coordinator of any route over links this session
 * opens on demand, all on the client's event loop. Responses leave in request order
 * ({@link ResponseSlots}).
 */
public final class WovenSession extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(WovenSession.class);
    private static final AtomicLong IDS = new AtomicLong();
    private static final int PREFIX = KafkaFrameDecoder.SIZE_PREFIX_BYTES;
    private static final long ALLOCATION_PATIENCE_NANOS = TimeUnit.SECONDS.toNanos(20);

    final WeaveRuntime runtime;
    final SessionSettings settings;
    final BrokerAddressBook addresses;
    final int virtualNodeId;
    final int ownRoute;
    private final String id = "w" + IDS.incrementAndGet();
    private final RequestHeaderView requestHeader = new RequestHeaderView();
    private final ResponseSlots slots = new ResponseSlots();
    private final java.util.function.Consumer<Slot> writeSlot = this::writeSlot;
    private final ArrayDeque<ByteBuf> pending = new ArrayDeque<>(4);
    final UpstreamLinks links;
    final SessionPlanContext planContext;
    final TopicNameCache topicNames = new TopicNameCache();
    final HotProduce produce;
    final HotFetch fetch;
    private final Map<String, Integer> coordinators = new HashMap<>();

    SessionMetrics metrics = SessionMetrics.NONE;
    Channel client;
    private boolean closed;
    private boolean draining;
    private boolean clientNeedsFlush;
    private ByteBuf parkedFrame;
    private Slot parkedSlot;
    private short parkedVersion;
    private long lastReadNanos = System.nanoTime();

    WovenSession(WeaveRuntime runtime, SessionSettings settings, BrokerAddressBook addresses, int virtualNodeId) {
        this.runtime = runtime;
        this.settings = settings;
        this.addresses = addresses;
        this.virtualNodeId = virtualNodeId;
        this.ownRoute = virtualNodeId < 0 ? -1 : runtime.bijection().routeOf(virtualNodeId);
        this.links = new UpstreamLinks(this);
        this.planContext = new SessionPlanContext(this);
        this.produce = new HotProduce(this);
        this.fetch = new HotFetch(this);
    }

    String describe() {
        return id + " " + (client != null ? client.remoteAddress() : "?") + " ("
                + (virtualNodeId < 0 ? "bootstrap" : "node " + virtualNodeId) + " of '" + runtime.name() + "')";
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        client = ctx.channel();
        metrics = settings.metrics().metricsFor(runtime.name(), client.eventLoop());
        settings.registry().register(client);
        metrics.connectionOpened();
        if (ownRoute >= 0) {
            links.openOwn(runtime.bijection().realNodeId(virtualNodeId));
        }
        client.config().setAutoRead(true);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        if (closed) {
            frame.release();
            return;
        }
        if (!pending.isEmpty() || !canHandle()) {
            pending.add(frame);
            updateClientReading();
            return;
        }
        handle(frame);
    }

    /** Requests are taken in order: not while one waits for a producer-id claim, nor beyond the in-flight cap. */
    private boolean canHandle() {
        return parkedFrame == null && slots.size() < settings.maxInflightRequests();
    }

    private void handlePending() {
        ByteBuf next;
        while (!closed && canHandle() && (next = pending.poll()) != null) {
            handle(next);
        }
        links.flushAll();
    }

    /**
     * A Produce for another cluster than the producer-id home carries a virtual producer id that has no
     * id on that cluster yet: hold it (and everything after it, to keep the producer's order) until the
     * fleet has agreed on one.
     */
    void parkForProducerId(ByteBuf frame, Slot slot, short version, long virtualPid) {
        parkedFrame = frame;
        parkedSlot = slot;
        parkedVersion = version;
        updateClientReading();
        int route = ownRoute;
        runtime.producerIds().claim(virtualPid, route, () -> allocateProducerId(route))
                .whenComplete((pid, error) -> client.eventLoop().execute(() -> resumeParked(virtualPid, error)));
    }

    private java.util.concurrent.CompletableFuture<Long> allocateProducerId(int route) {
        java.util.concurrent.CompletableFuture<Long> result = new java.util.concurrent.CompletableFuture<>();
        client.eventLoop().execute(() -> allocateProducerId(route, result, System.nanoTime() + ALLOCATION_PATIENCE_NANOS));
        return result;
    }

    /**
     * InitProducerId (no transactional id) on any broker of {@code route}; retried every 100 ms while the
     * cluster answers with a retriable error (a cluster that just started loads its transaction state).
     */
    private void allocateProducerId(int route, java.util.concurrent.CompletableFuture<Long> result, long deadlineNanos) {
        if (closed) {
            result.completeExceptionally(new IllegalStateException("the client connection closed"));
            return;
        }
        short version = (short) Math.min(4, runtime.apiVersions().maxVersion(ApiKeys.INIT_PRODUCER_ID.id));
        InitProducerIdRequestData init = new InitProducerIdRequestData().setTransactionalId(null)
                .setTransactionTimeoutMs(Integer.MAX_VALUE).setProducerId(-1).setProducerEpoch((short) -1);
        UpstreamLink link = links.any(route);
        ColdExchange.send(this, link, new Part(route, Destination.ANY, version, init), "weft", answer -> {
            Errors error = answer.failed() ? answer.failure()
                    : Errors.forCode(((InitProducerIdResponseData) answer.body()).errorCode());
            if (error == Errors.NONE) {
                result.complete(((InitProducerIdResponseData) answer.body()).producerId());
            } else if (error.exception() instanceof org.apache.kafka.common.errors.RetriableException
                    && System.nanoTime() < deadlineNanos) {
                client.eventLoop().schedule(() -> allocateProducerId(route, result, deadlineNanos), 100, TimeUnit.MILLISECONDS);
            } else {
                result.completeExceptionally(new IllegalStateException("cluster '" + runtime.routeName(route)
                        + "' did not allocate a producer id: " + (answer.failed() ? answer.reason() : error.name())));
            }
        }, null);
        link.flush();
    }

    private void resumeParked(long virtualPid, Throwable error) {
        ByteBuf frame = parkedFrame;
        Slot slot = parkedSlot;
        short version = parkedVersion;
        parkedFrame = null;
        parkedSlot = null;
        if (frame == null) {
            return;
        }
        if (closed) {
            frame.release();
            return;
        }
        if (error != null) {
            frame.release();
            LOG.warn("{}: no producer id on cluster '{}' for virtual producer id {}: {}; closing so the producer retries",
                    describe(), runtime.routeName(ownRoute), virtualPid, rootMessage(error));
            metrics.connectionError(SessionMetrics.SessionError.UPSTREAM_FAILED, ApiKeys.PRODUCE.id);
            close();
            return;
        }
        try {
            produce.handle(frame, slot, version);
        } catch (MalformedFrameException e) {
            malformed(e);
            return;
        }
        handlePending();
        updateClientReading();
        flushClient();
    }

    private static String rootMessage(Throwable t) {
        return ClientConnectionChecks.rootMessage(t);
    }

    private void handle(ByteBuf frame) {
        short apiKey;
        short version;
        int correlationId;
        try {
            RequestHeaderView header = requestHeader.wrap(frame, frame.readerIndex() + PREFIX);
            apiKey = header.apiKey();
            version = header.apiVersion();
            correlationId = header.correlationId();
            if (!ApiKeyTable.isKnownKey(apiKey)) {
                frame.release();
                LOG.warn("{}: unknown API key {} (not a Kafka request Weft knows); closing", describe(), apiKey);
                metrics.connectionError(SessionMetrics.SessionError.UNSUPPORTED_REQUEST, apiKey);
                close();
                return;
            }
            if (!ApiKeyTable.isClientApi(apiKey)) {
                frame.release();
                LOG.warn("{}: {} is a broker-internal API, not for clients; closing", describe(), ApiKeyTable.name(apiKey));
                metrics.connectionError(SessionMetrics.SessionError.UNSUPPORTED_REQUEST, apiKey);
                close();
                return;
            }
        } catch (MalformedFrameException e) {
            frame.release();
            malformed(e);
            return;
        }
        metrics.requestForwarded(apiKey, frame.readableBytes());
        Slot slot = slots.open(apiKey);
        if (apiKey == ApiKeys.API_VERSIONS.id) {
            runtime.apiVersions().answer(this, slot, frame, version, correlationId);
            return;
        }
        if (!runtime.apiVersions().advertises(apiKey, version)) {
            frame.release();
            LOG.warn("{}: {} v{} is not offered by virtual cluster '{}' (see its ApiVersions answer); closing",
                    describe(), ApiKeyTable.name(apiKey), version, runtime.name());
            metrics.connectionError(SessionMetrics.SessionError.UNSUPPORTED_REQUEST, apiKey);
            close();
            return;
        }
        try {
            if (apiKey == ApiKeys.PRODUCE.id) {
                produce.handle(frame, slot, version);
            } else if (apiKey == ApiKeys.FETCH.id) {
                fetch.handle(frame, slot, version);
            } else {
                planCold(frame, slot, apiKey, version, correlationId);
            }
        } catch (MalformedFrameException e) {
            malformed(e);
        }
    }

    private void planCold(ByteBuf frame, Slot slot, short apiKey, short version, int correlationId) {
        RequestHeaderData header;
        ApiMessage body;
        try {
            int headerStart = frame.readerIndex() + PREFIX;
            ByteBuf view = frame.slice(headerStart, frame.writerIndex() - headerStart);
            header = ColdCodec.readRequestHeader(view);
            int headerLength = requestHeader.wrap(frame, headerStart).headerLength();
            body = ColdCodec.readRequestBody(apiKey, version, view.slice(headerLength, view.readableBytes() - headerLength));
        } catch (MalformedFrameException e) {
            frame.release();
            malformed(e);
            return;
        } catch (RuntimeException e) {
            frame.release();
            failed("cannot read a " + ApiKeyTable.name(apiKey) + " v" + version + " request", e);
            return;
        }
        ColdPlanner planner = planner(apiKey, body);
        new PlanRun(this, slot, frame, header, version, correlationId).start(planner, body);
    }

    private ColdPlanner planner(short apiKey, ApiMessage body) {
        if (apiKey == ApiKeys.METADATA.id) {
            return runtime.metadataPlanner();
        }
        if (apiKey == ApiKeys.INIT_PRODUCER_ID.id && ((InitProducerIdRequestData) body).transactionalId() == null) {
            return IdempotentProducerIds.PLANNER;
        }
        return Planners.forApi(apiKey);
    }

    private void malformed(MalformedFrameException e) {
        LOG.warn("{}: malformed request: {}; closing", describe(), e.getMessage());
        metrics.connectionError(SessionMetrics.SessionError.MALFORMED_REQUEST, (short) -1);
        close();
    }

    /** Finishes a request with its response frame (null: none is due); writes what is now in order. */
    void complete(Slot slot, ByteBuf response) {
        if (closed) {
            if (response != null) {
                response.release();
            }
            return;
        }
        slots.complete(slot, response, writeSlot);
        if (!pending.isEmpty() && canHandle()) {
            handlePending();
        }
        updateClientReading();
        if (draining && slots.isEmpty()) {
            finishDrain();
        }
    }

    private void writeSlot(Slot s) {
        ByteBuf r = ResponseSlots.take(s);
        if (r != null) {
            metrics.responseReturned(s.apiKey, r.readableBytes(), System.nanoTime() - s.startNanos);
            client.write(r, client.voidPromise());
            clientNeedsFlush = true;
        }
    }

    /** Flushes responses written since the last flush (called once per batch of upstream reads, and after async work). */
    void flushClient() {
        if (clientNeedsFlush && client != null) {
            clientNeedsFlush = false;
            client.flush();
        }
    }

    private void updateClientReading() {
        if (client == null || closed) {
            return;
        }
        boolean read = !draining && pending.isEmpty() && canHandle() && links.ownWritable();
        if (client.config().isAutoRead() != read) {
            client.config().setAutoRead(read);
        }
    }

    void onOwnWritabilityChanged() {
        updateClientReading();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        lastReadNanos = System.nanoTime();
        links.flushAll();
        flushClient(); // answers the proxy gave itself while reading (refusals, cached ApiVersions)
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        links.setAutoRead(ctx.channel().isWritable());
        ctx.fireChannelWritabilityChanged();
    }

    /** The real coordinator of {@code group} on {@code route}, as this session last found it, or null. */
    Integer cachedCoordinator(int route, String group) {
        return coordinators.get(route + "/" + group);
    }

    void cacheCoordinator(int route, String group, Integer nodeId) {
        if (nodeId == null) {
            coordinators.remove(route + "/" + group);
        } else {
            coordinators.put(route + "/" + group, nodeId);
        }
    }

    /** The own link is gone: a connection to a virtual broker means that broker, so the client reconnects. */
    void onOwnLinkClosed(String reason) {
        if (!closed) {
            LOG.info("{}: {}; closing the client connection", describe(), reason);
            close();
        }
    }

    void logRefusal(String message) {
        LOG.warn("{}: refused: {}", describe(), message);
        metrics.connectionError(SessionMetrics.SessionError.UNSUPPORTED_REQUEST, (short) -1);
    }

    /** A planner or rewrite failed on a response it could not handle: a bug or a broker out of spec. */
    void failed(String what, Throwable cause) {
        if (!closed) {
            LOG.warn("{}: {}: {}; closing", describe(), what, cause.toString(), cause);
            metrics.connectionError(SessionMetrics.SessionError.REWRITE_FAILED, (short) -1);
            close();
        }
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == SessionRegistry.DRAIN) {
            draining = true;
            updateClientReading();
            if (slots.isEmpty()) {
                finishDrain();
            }
            return;
        }
        if (closed) {
            ctx.fireUserEventTriggered(evt);
            return;
        }
        if (ClientConnectionChecks.mustClose(evt, ctx, LOG, describe(), settings, metrics, lastReadNanos, slots.isEmpty())) {
            close();
        } else if (!(evt instanceof IdleStateEvent) && !(evt instanceof SslHandshakeCompletionEvent)) {
            ctx.fireUserEventTriggered(evt);
        }
    }

    private void finishDrain() {
        if (!closed) {
            client.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> close());
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        close();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!closed) {
            if (cause.getCause() instanceof NotSslRecordException) {
                LOG.warn("{}: not a TLS record: a plaintext client on a TLS port; closing", describe());
                metrics.connectionError(SessionMetrics.SessionError.TLS_HANDSHAKE, (short) -1);
            } else if (!(cause instanceof java.nio.channels.ClosedChannelException)) {
                LOG.warn("{}: {}; closing", describe(), cause.getMessage() != null ? cause.getMessage() : cause.toString());
            }
        }
        close();
    }

    void close() {
        if (closed) {
            return;
        }
        closed = true;
        metrics.connectionClosed();
        ByteBuf frame;
        while ((frame = pending.poll()) != null) {
            frame.release();
        }
        slots.releaseAll();
        if (parkedFrame != null) {
            parkedFrame.release();
            parkedFrame = null;
        }
        links.closeAll();
        produce.release();
        fetch.release();
        if (client != null) {
            client.close();
        }
    }

    InetSocketAddress clientAddress() {
        return client == null ? null : (InetSocketAddress) client.remoteAddress();
    }
}
