package dev.weft.proxy.session;

import dev.weft.routing.api.TopicNameCache;
import dev.weft.protocol.ApiKeyTable;
import dev.weft.protocol.cold.ColdCodec;
import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.protocol.header.RequestHeaderView;
import dev.weft.protocol.wire.MalformedFrameException;
import dev.weft.protocol.skim.NodeEndpointRewriter;
import dev.weft.proxy.exchange.ColdExchange;
import dev.weft.proxy.exchange.ExchangeHost;
import dev.weft.proxy.exchange.HotFetch;
import dev.weft.proxy.exchange.HotProduce;
import dev.weft.proxy.exchange.PlanRun;
import dev.weft.proxy.exchange.ProduceAcks;
import dev.weft.proxy.gateway.BrokerAddressBook;
import dev.weft.proxy.upstream.UpstreamCluster;
import dev.weft.proxy.upstream.UpstreamLink;
import dev.weft.proxy.upstream.UpstreamLinks;
import dev.weft.proxy.upstream.UpstreamRequestCounters;
import dev.weft.routing.Router;
import dev.weft.routing.plan.ColdPlanner;
import dev.weft.routing.plan.PlanContext;
import dev.weft.routing.api.ApiRoute;
import dev.weft.routing.api.HotCatalog;
import dev.weft.routing.api.HotContext;
import dev.weft.protocol.header.ResponseHeaderView;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
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
 * One client connection to a virtual cluster — any virtual cluster: a single cluster (the identity
 * router), a topic weave, a nested DAG. Nothing here knows which: per API key the router chose at start
 * what happens ({@link ApiRoute}), and the session carries that out.
 * <ul>
 *   <li>{@link ApiRoute#FORWARD}: the client's frame goes over the connection's own upstream link (a
 *       broker port's real broker; on a bootstrap connection, one broker of the first route, opened when
 *       first needed) with only the correlation id patched, and the answer comes back with node ids and
 *       addresses mapped. One exchange object serves every forwarded request of the session (the slot
 *       number travels as the link's tag): nothing is allocated per request.</li>
 *   <li>{@link ApiRoute#HOT}: Produce and Fetch are skimmed and planned by the router's
 *       {@link dev.weft.routing.api.HotPlanner} ({@link HotProduce}, {@link HotFetch}).</li>
 *   <li>{@link ApiRoute#PLANNED}: decoded and planned by the router's cold planner ({@link PlanRun}),
 *       which may send parts to any broker or coordinator of any route over links opened on demand.</li>
 *   <li>{@link ApiRoute#ANSWERED}: ApiVersions, answered by the proxy.</li>
 * </ul>
 * Everything runs on the client's event loop. Responses leave in request order ({@link ResponseOrder});
 * reads pause at the in-flight cap, while any upstream link is not writable, and while isDraining().
 * The exchanges ({@code proxy.exchange}) see the session as their {@link ExchangeHost}; its upstream
 * links ({@link UpstreamLinks}) as their {@link UpstreamLinks.Client}.
 */
public final class Session extends ChannelInboundHandlerAdapter implements ExchangeHost, UpstreamLinks.Client {

    private static final Logger LOG = LoggerFactory.getLogger(Session.class);
    private static final AtomicLong IDS = new AtomicLong();
    private static final int PREFIX = KafkaFrameDecoder.SIZE_PREFIX_BYTES;
    private static final long ALLOCATION_PATIENCE_NANOS = TimeUnit.SECONDS.toNanos(20);

    final VirtualClusterRuntime runtime;
    final SessionSettings settings;
    final BrokerAddressBook addresses;
    final int virtualNodeId;
    final int ownRoute;
    /** The real node id of the broker a mirrored broker connection is bound to; -1 for bootstrap and collapsed connections. */
    private final int ownBroker;
    private dev.weft.routing.api.FollowerEndChecks endChecks;
    private final String id = "w" + IDS.incrementAndGet();
    private final RequestHeaderView requestHeader = new RequestHeaderView();
    private final ResponseOrder slots;
    private final ResponseOrder.Writer writeSlot = this::writeSlot;
    private final ForwardAnswer forwardAnswer = new ForwardAnswer();
    private final ProduceAcks produceAcks = new ProduceAcks();
    private final ArrayDeque<ByteBuf> pending = new ArrayDeque<>(4);
    final UpstreamLinks links;
    final SessionPlanContext planContext;
    final TopicNameCache topicNames = new TopicNameCache();
    final HotContext hotContext;
    /**
     * The hot-path exchanges, made on the first Produce/Fetch that needs them: a pass-through session
     * forwards and never does, and an idle connection should not carry their skims and builders.
     */
    private HotProduce produce;
    private HotFetch fetch;
    private final Map<String, Integer> coordinators = new HashMap<>();

    /** The client principal's rules and views (per-principal authorization), made for the principal it is for. */
    private dev.weft.routing.access.ConnectionAccess access;
    private dev.weft.proxy.security.ClientPrincipal accessPrincipal;
    /** What the Produce or Fetch being planned does to its topics: which of the principal's views plans it. */
    private dev.weft.routing.access.TopicOperation hotOperation = dev.weft.routing.access.TopicOperation.READ;

    SessionMetrics metrics = SessionMetrics.NONE;
    Channel client;
    /** The connection's life; every change goes through {@link #state(Lifecycle)}. */
    private Lifecycle state = Lifecycle.OPEN;
    private boolean clientNeedsFlush;
    private ByteBuf parkedFrame;
    private int parkedSlot;
    private int parkedRoute;
    private short parkedVersion;
    private long lastReadNanos;
    /** The runtime a config reload replaced this session's with: it moves there once nothing is in flight. */
    private VirtualClusterRuntime successor;
    /** The client authenticated with the broker itself over this session's link (SASL forwarded): it cannot move. */
    private boolean clientSaslForwarded;

    Session(VirtualClusterRuntime runtime, SessionSettings settings, BrokerAddressBook addresses, int virtualNodeId) {
        this.runtime = runtime;
        this.settings = settings;
        this.addresses = addresses;
        this.virtualNodeId = virtualNodeId;
        this.ownRoute = virtualNodeId < 0 ? -1 : runtime.bijection().routeOf(virtualNodeId);
        this.ownBroker = virtualNodeId < 0 || runtime.collapsed() != null ? -1 : runtime.bijection().realNodeId(virtualNodeId);
        this.slots = new ResponseOrder(ResponseOrder.INITIAL_SLOTS);
        this.lastReadNanos = settings.clock().nanoTime();
        this.links = new UpstreamLinks(this, settings.links(), runtime.upstreamRequests(), ownRoute);
        this.planContext = new SessionPlanContext(this);
        this.hotContext = new HotContext() {
            @Override
            public int ownRoute() {
                return ownRoute;
            }

            @Override
            public HotCatalog catalog() {
                HotCatalog catalog = runtime.catalog();
                dev.weft.routing.access.ConnectionAccess a = access();
                return a == null || catalog == null ? catalog : a.views(catalog).hotCatalog(hotOperation);
            }

            @Override
            public boolean boundToBroker() {
                return runtime.collapsed() == null;
            }

            @Override
            public dev.weft.routing.topology.PartitionLeadership leaders(int route) {
                return runtime.leaders(route);
            }

            @Override
            public int ownBroker() {
                return ownBroker;
            }

            @Override
            public dev.weft.routing.topology.ClusterTopology brokers(int route) {
                return runtime.brokers(route);
            }

            @Override
            public dev.weft.routing.api.FollowerEndChecks endChecks() {
                if (endChecks == null) {
                    endChecks = new dev.weft.routing.api.FollowerEndChecks(); // rack-aware sessions only
                }
                return endChecks;
            }
        };
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
        serveHere();
        client.config().setAutoRead(true);
        ctx.fireChannelActive();
    }

    /** Counts the connection in its runtime and opens its own broker link; then follows a reload that came first. */
    private void serveHere() {
        runtime.clients().register(client);
        if (ownRoute >= 0) {
            links.openOwn(runtime.bijection().realNodeId(virtualNodeId));
        }
        VirtualClusterRuntime next = runtime.successor(); // replaced while this connection was being set up
        if (next != null) {
            moveTo(next);
        }
    }

    /**
     * A config reload replaced this virtual cluster's runtime: nothing more is taken from the client
     * until what is in flight is answered, then the connection moves ({@link #moveIfQuiet}).
     */
    private void moveTo(VirtualClusterRuntime next) {
        if (isClosed() || isDraining()) {
            return;
        }
        successor = next;
        updateClientReading();
        moveIfQuiet();
    }

    /**
     * Hands the client connection to a new session on the successor runtime, with nothing in flight: this
     * session's broker links close (the new one opens its own as it needs them) and the client keeps its
     * TCP connection, principal and queued requests. A connection that cannot carry on there (its gateway
     * or its broker changed) is closed instead, so the client reconnects.
     */
    private void moveIfQuiet() {
        if (successor == null || !slots.isEmpty() || parkedFrame != null || isClosed()) {
            return;
        }
        VirtualClusterRuntime next = successor;
        successor = null;
        String why = next.whyNotAdopt(runtime, addresses, virtualNodeId, clientSaslForwarded);
        if (why != null) {
            state(new Lifecycle.Draining("virtual cluster '" + runtime.name() + "' was reconfigured and " + why));
            LOG.info("{}: the virtual cluster was reconfigured and {}; closing so the client reconnects", describe(), why);
            finishDrain();
            return;
        }
        Session moved = new Session(next, settings, addresses, virtualNodeId);
        moved.client = client;
        moved.metrics = metrics; // same virtual cluster, same core
        moved.lastReadNanos = lastReadNanos;
        moved.pending.addAll(pending);
        pending.clear();
        state(new Lifecycle.Closed("moved to the reconfigured virtual cluster"));
        links.closeAll();
        if (produce != null) {
            produce.release();
        }
        if (fetch != null) {
            fetch.release();
        }
        runtime.clients().unregister(client);
        LOG.debug("{}: moved to the reconfigured virtual cluster as {}", describe(), moved.id);
        client.pipeline().replace(this, client.pipeline().context(this).name(), moved);
        moved.serveHere();
        moved.handlePending();
        moved.updateClientReading();
        moved.flushClient();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        if (isClosed()) {
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
        return parkedFrame == null && successor == null && slots.size() < settings.maxInflightRequests();
    }

    private void handlePending() {
        ByteBuf next;
        while (!isClosed() && canHandle() && (next = pending.poll()) != null) {
            handle(next);
        }
        links.flushAll();
    }

    /**
     * A Produce for another cluster than the producer-id home carries a virtual producer id that has no
     * id on that cluster yet: hold it (and everything after it, to keep the producer's order) until the
     * fleet has agreed on one.
     */
    @Override
    public void parkForProducerId(ByteBuf frame, int slot, short version, long virtualPid, int route) {
        parkedFrame = frame;
        parkedSlot = slot;
        parkedVersion = version;
        parkedRoute = route;
        updateClientReading();
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
        if (isClosed()) {
            result.completeExceptionally(new IllegalStateException("the client connection isClosed()"));
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
        int slot = parkedSlot;
        short version = parkedVersion;
        parkedFrame = null;
        if (frame == null) {
            return;
        }
        if (isClosed()) {
            frame.release();
            return;
        }
        if (error != null) {
            frame.release();
            LOG.warn("{}: no producer id on cluster '{}' for virtual producer id {}: {}; closing so the producer retries",
                    describe(), runtime.routeName(parkedRoute), virtualPid, rootMessage(error));
            metrics.connectionError(SessionMetrics.SessionError.UPSTREAM_FAILED, ApiKeys.PRODUCE.id);
            close();
            return;
        }
        try {
            hotOperation = dev.weft.routing.access.TopicOperation.WRITE; // planned again through the principal's write view
            produce().handle(frame, slot, version);
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
        } catch (MalformedFrameException e) {
            frame.release();
            malformed(e);
            return;
        }
        if (!ApiKeyTable.isKnownKey(apiKey)) {
            refuseAndClose(frame, apiKey, "unknown API key " + apiKey + " (not a Kafka request Weft knows)");
            return;
        }
        if (!ApiKeyTable.isClientApi(apiKey)) {
            refuseAndClose(frame, apiKey, ApiKeyTable.name(apiKey) + " is a broker-internal API, not for clients");
            return;
        }
        ApiRoute route = runtime.apiRoute(apiKey);
        if (route == ApiRoute.FORWARD || route == ApiRoute.HOT && forwardsVersionChecks()) {
            // ApiVersions is exempt: a client probing with a newer version must get the broker's
            // UNSUPPORTED_VERSION answer (in v0 form) and retry lower.
            if (!ApiKeyTable.isSupported(apiKey, version) && apiKey != ApiKeys.API_VERSIONS.id) {
                refuseAndClose(frame, apiKey, ApiKeyTable.name(apiKey) + " version " + version + " is not supported (Weft implements "
                        + ApiKeyTable.oldestVersion(apiKey) + " to " + ApiKeyTable.latestVersion(apiKey) + ")");
                return;
            }
        } else if (route == ApiRoute.REFUSED || route != ApiRoute.ANSWERED && !runtime.apiVersions().advertises(apiKey, version)) {
            refuseAndClose(frame, apiKey, ApiKeyTable.name(apiKey) + " v" + version + " is not offered by virtual cluster '"
                    + runtime.name() + "' (see its ApiVersions answer)");
            return;
        }
        if (route == ApiRoute.FORWARD && apiKey == ApiKeys.SASL_HANDSHAKE.id) {
            clientSaslForwarded = true;
        }
        metrics.requestForwarded(apiKey, frame.readableBytes());
        int slot = slots.open(apiKey, version, correlationId, settings.clock().nanoTime());
        if (slots.size() >= settings.maxInflightRequests()) {
            updateClientReading(); // at the cap: stop reading now, not one read batch later
        }
        try {
            switch (route) {
                case FORWARD -> forward(frame, slot, apiKey, version);
                case HOT -> {
                    if (apiKey == ApiKeys.PRODUCE.id) {
                        hotOperation = dev.weft.routing.access.TopicOperation.WRITE;
                        produce().handle(frame, slot, version);
                    } else {
                        hotOperation = dev.weft.routing.access.TopicOperation.READ;
                        fetch().handle(frame, slot, version);
                    }
                }
                case ANSWERED -> runtime.apiVersions().answer(this, slot, frame, version, correlationId);
                case PLANNED -> planCold(frame, slot, apiKey, version, correlationId);
                case REFUSED -> throw new IllegalStateException("refused API reached dispatch");
            }
        } catch (MalformedFrameException e) {
            malformed(e);
        }
    }

    /**
     * Sends a Produce or Fetch frame the plan left as the client sent it (or patched in place) over the
     * bound link; the answer's node endpoints are mapped like any forwarded answer. Takes ownership.
     */
    @Override
    public void forwardHot(ByteBuf frame, int slot, boolean expectsResponse) {
        UpstreamLink link = links.bound();
        if (expectsResponse) {
            link.send(frame, forwardAnswer, slot);
        } else {
            link.send(frame, null);
            complete(slot, null);
        }
    }

    /** Routers that forward ApiVersions let the broker's versions (clamped to Weft's) decide: check Weft's table. */
    private boolean forwardsVersionChecks() {
        return runtime.apiRoute(ApiKeys.API_VERSIONS.id) == ApiRoute.FORWARD;
    }

    private void refuseAndClose(ByteBuf frame, short apiKey, String why) {
        frame.release();
        LOG.warn("{}: {}; closing", describe(), why);
        metrics.connectionError(SessionMetrics.SessionError.UNSUPPORTED_REQUEST, apiKey);
        close();
    }

    /**
     * Sends the client's frame as it is over the connection's own link (takes ownership). Produce with
     * acks=0 gets no response and its slot is finished at once.
     */
    private void forward(ByteBuf frame, int slot, short apiKey, short version) {
        UpstreamLink link = links.bound();
        if (apiKey == ApiKeys.PRODUCE.id && !produceAcks.expectsResponse(frame, version)) {
            link.send(frame, null);
            complete(slot, null);
            return;
        }
        link.send(frame, forwardAnswer, slot);
    }

    private void planCold(ByteBuf frame, int slot, short apiKey, short version, int correlationId) {
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
        ColdPlanner planner = runtime.router().coldPlanner(apiKey);
        dev.weft.routing.access.ConnectionAccess a = access();
        HotCatalog catalog = runtime.catalog();
        return a == null || planner == null || catalog == null ? planner
                : dev.weft.routing.access.AccessGuard.guard(apiKey, planner, a, a.views(catalog));
    }

    /**
     * The principal's rules, or null when the virtual cluster does not authorize per principal. Made again
     * when the connection's principal is another object than the one they were made for: SASL sets it
     * after ApiVersions was answered (and keeps it on re-authentication: only the same principal may).
     */
    @Override
    public dev.weft.routing.access.ConnectionAccess access() {
        dev.weft.routing.access.AccessViewCache cache = runtime.access();
        if (cache == null) {
            return null;
        }
        dev.weft.proxy.security.ClientPrincipal p = client == null ? null : dev.weft.proxy.security.ClientPrincipal.of(client);
        if (access == null || p != accessPrincipal) {
            access = new dev.weft.routing.access.ConnectionAccess(cache, cache.policy().rulesFor(p == null ? null : p.user()));
            accessPrincipal = p;
        }
        return access;
    }

    private void malformed(MalformedFrameException e) {
        LOG.warn("{}: malformed request: {}; closing", describe(), e.getMessage());
        metrics.connectionError(SessionMetrics.SessionError.MALFORMED_REQUEST, (short) -1);
        close();
    }

    /** Finishes a request with its response frame (null: none is due); writes what is now in order. */
    @Override
    public void complete(int slot, ByteBuf response) {
        if (isClosed()) {
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
        if (isDraining() && slots.isEmpty()) {
            finishDrain();
        } else if (successor != null) {
            moveIfQuiet();
        }
    }

    private void writeSlot(int slot, ByteBuf r) {
        if (r != null) {
            metrics.responseReturned(slots.apiKey(slot), r.readableBytes(), settings.clock().nanoTime() - slots.startNanos(slot));
            client.write(r, client.voidPromise());
            clientNeedsFlush = true;
        }
    }

    /** The API key of an open slot's request (for messages). */
    @Override
    public short slotApiKey(int slot) {
        return slots.apiKey(slot);
    }

    /**
     * The answer to every forwarded request of this session: the slot number comes back as the link's
     * tag, and the slot knows the client's correlation id, API and version. A link failing while a
     * forwarded request waits closes the client connection: it was bound to that broker connection.
     */
    private final class ForwardAnswer implements UpstreamLink.Exchange {
        @Override
        public void onResponse(ByteBuf response, int slot) {
            short apiKey = slots.apiKey(slot);
            short version = slots.version(slot);
            int correlationId = slots.correlationId(slot);
            ResponseRewriter rewriter = runtime.forwardRewriter(addresses, links.boundRoute(), apiKey);
            ByteBuf out;
            if (rewriter == null) {
                ResponseHeaderView.correlationId(response, response.readerIndex() + PREFIX, correlationId);
                out = response;
            } else {
                try {
                    out = rewriter.rewrite(response, apiKey, version, correlationId, client.alloc());
                } catch (RuntimeException e) {
                    LOG.warn("{}: cannot rewrite {} v{} response from {}: {}; closing", describe(), ApiKeyTable.name(apiKey),
                            version, links.bound().name(), e.toString());
                    metrics.connectionError(SessionMetrics.SessionError.REWRITE_FAILED, apiKey);
                    close();
                    return;
                }
            }
            complete(slot, out);
        }

        @Override
        public void onFailure(Errors error, String reason, int slot) {
            // the link tells its owner next (onOwnLinkEnded), which closes the client connection
        }
    }

    /** Flushes responses written since the last flush (called once per batch of upstream reads, and after async work). */
    @Override
    public void flushClient() {
        if (clientNeedsFlush && client != null) {
            clientNeedsFlush = false;
            client.flush();
        }
    }

    private void updateClientReading() {
        if (client == null || isClosed()) {
            return;
        }
        // A client that does not read its answers stops being read: its answers are bounded by the
        // in-flight cap (its upstream links also stop being read, see channelWritabilityChanged).
        boolean read = !isDraining() && pending.isEmpty() && canHandle() && links.allWritable() && client.isWritable();
        if (client.config().isAutoRead() != read) {
            client.config().setAutoRead(read);
        }
    }

    @Override
    public void onLinkWritabilityChanged() {
        updateClientReading();
    }

    @Override
    public void onLinkReadComplete() {
        flushClient();
    }

    @Override
    public void onLinkEnded(UpstreamLink link, boolean bound) {
        runtime.reportTrouble(link.route(), link.name(), link.closeReason());
        if (bound) {
            onOwnLinkEnded(link);
        } else {
            updateClientReading();
        }
    }

    @Override
    public void onLinkBackingOff(UpstreamLink link) {
        LOG.info("{}: {}; its partitions are answered with retriable errors until it is back", describe(), link.endedBecause());
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        lastReadNanos = settings.clock().nanoTime();
        links.flushAll();
        flushClient(); // answers the proxy gave itself while reading (refusals, cached ApiVersions)
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        links.setAutoRead(ctx.channel().isWritable());
        updateClientReading();
        ctx.fireChannelWritabilityChanged();
    }

    /** The real coordinator of {@code group} on {@code route}, as this session last found it, or null. */
    @Override
    public Integer cachedCoordinator(int route, String group) {
        return coordinators.get(route + "/" + group);
    }

    @Override
    public void cacheCoordinator(int route, String group, Integer nodeId) {
        if (nodeId == null) {
            coordinators.remove(route + "/" + group);
        } else {
            coordinators.put(route + "/" + group, nodeId);
        }
    }

    /**
     * The link the connection is bound to is gone (a broker port's broker, or the bootstrap connection's
     * forwarding link): the client reconnects, as it would to a broker that went away.
     */
    private void onOwnLinkEnded(UpstreamLink link) {
        if (isClosed()) {
            return;
        }
        String unanswered = slots.isEmpty() ? "" : " with " + slots.size() + " request(s) unanswered";
        if (link.neverConnected()) {
            LOG.warn("{}: {}; closing the client connection so it retries", describe(), link.endedBecause());
            metrics.connectionError(SessionMetrics.SessionError.UPSTREAM_UNREACHABLE, (short) -1);
        } else if (link.closedByBroker()) {
            // A broker closing a connection is ordinary (restart, its own idle timeout, a request it refused).
            LOG.info("{}: {}{}; closing the client connection", describe(), link.endedBecause(), unanswered);
        } else {
            LOG.warn("{}: {}{}; closing the client connection", describe(), link.endedBecause(), unanswered);
            metrics.connectionError(SessionMetrics.SessionError.UPSTREAM_FAILED, (short) -1);
        }
        close();
    }

    @Override
    public void logRefusal(String message) {
        LOG.warn("{}: refused: {}", describe(), message);
        metrics.connectionError(SessionMetrics.SessionError.UNSUPPORTED_REQUEST, (short) -1);
    }

    /** The proxy cannot answer a request now (an upstream is unreachable): WARN without a stack trace, close. */
    void failedQuietly(String what, Throwable cause) {
        if (!isClosed()) {
            LOG.warn("{}: {}: {}; closing so the client retries", describe(), what, cause.getMessage());
            metrics.connectionError(SessionMetrics.SessionError.UPSTREAM_UNREACHABLE, (short) -1);
            close();
        }
    }

    /** A planner or rewrite failed on a response it could not handle: a bug or a broker out of spec. */
    @Override
    public void failed(String what, Throwable cause) {
        if (!isClosed()) {
            LOG.warn("{}: {}: {}; closing", describe(), what, cause.toString(), cause);
            metrics.connectionError(SessionMetrics.SessionError.REWRITE_FAILED, (short) -1);
            close();
        }
    }

    @Override
    public boolean isClosed() {
        return state instanceof Lifecycle.Closed;
    }

    private boolean isDraining() {
        return state instanceof Lifecycle.Draining;
    }

    /**
     * A client connection's life, only ever forward: serving; draining (the proxy shuts down, or a switch
     * moves its virtual cluster: nothing more is read, what is in flight is answered, then it closes); closed (everything it held released).
     */
    sealed interface Lifecycle {
        Open OPEN = new Open();

        /** Orders the states: a transition only goes to a higher rank. */
        int rank();

        record Open() implements Lifecycle {
            @Override
            public int rank() {
                return 0;
            }
        }

        record Draining(String reason) implements Lifecycle {
            @Override
            public int rank() {
                return 1;
            }
        }

        record Closed(String reason) implements Lifecycle {
            @Override
            public int rank() {
                return 2;
            }
        }
    }

    /** Every change of {@link #state} goes through here: one place that orders and traces them (DEBUG). */
    private void state(Lifecycle next) {
        if (next.rank() <= state.rank()) {
            return;
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("{}: {} -> {}", describe(), state, next);
        }
        state = next;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof VirtualClusterRuntime.Successor next) {
            if (next.runtime() != runtime) {
                moveTo(next.runtime());
            }
            return;
        }
        if (evt instanceof SessionRegistry.Drain drain) {
            state(new Lifecycle.Draining(drain.reason()));
            updateClientReading();
            if (slots.isEmpty()) {
                finishDrain();
            }
            return;
        }
        if (isClosed()) {
            ctx.fireUserEventTriggered(evt);
            return;
        }
        if (evt instanceof dev.weft.proxy.security.ClientPrincipal.Established) {
            links.principalKnown(); // links opened before log in again where the principal has its own credentials
            return;
        }
        if (ClientConnectionChecks.mustClose(evt, ctx, LOG, describe(), settings, metrics, lastReadNanos, slots.isEmpty())) {
            close();
        } else if (!(evt instanceof IdleStateEvent) && !(evt instanceof SslHandshakeCompletionEvent)) {
            ctx.fireUserEventTriggered(evt);
        }
    }

    private void finishDrain() {
        if (!isClosed()) {
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
        if (!isClosed()) {
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

    void close() {
        if (isClosed()) {
            return;
        }
        state(new Lifecycle.Closed("closed by the proxy or the client"));
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
        if (produce != null) {
            produce.release();
        }
        if (fetch != null) {
            fetch.release();
        }
        if (client != null) {
            client.close();
        }
    }

    private HotProduce produce() {
        if (produce == null) {
            produce = new HotProduce(this);
        }
        return produce;
    }

    private HotFetch fetch() {
        if (fetch == null) {
            fetch = new HotFetch(this);
        }
        return fetch;
    }

    InetSocketAddress clientAddress() {
        return client == null ? null : (InetSocketAddress) client.remoteAddress();
    }

    // --- what the exchanges and the links read (ExchangeHost, UpstreamLinks.Client); event loop only

    @Override
    public ByteBufAllocator alloc() {
        return client.alloc();
    }

    @Override
    public EventLoop eventLoop() {
        return client.eventLoop();
    }

    @Override
    public UpstreamLinks links() {
        return links;
    }

    @Override
    public UpstreamCluster cluster(int route) {
        return runtime.cluster(route);
    }

    @Override
    public UpstreamRequestCounters upstreamRequests() {
        return runtime.upstreamRequests();
    }

    @Override
    public dev.weft.proxy.exchange.BranchCounters branchCounters() {
        return runtime.branchCounters();
    }

    @Override
    public dev.weft.proxy.branch.BranchWriter branchWriter(int route) {
        return runtime.branchWriters().of(route);
    }

    @Override
    public void transactionEnded(long producerId, boolean committed) {
        runtime.branchWriters().transactionEnded(producerId, committed);
    }

    @Override
    public Router router() {
        return runtime.router();
    }

    @Override
    public String principal() {
        dev.weft.proxy.security.ClientPrincipal p = clientPrincipal();
        return p == null ? null : p.toString();
    }

    @Override
    public String principalUser() {
        dev.weft.proxy.security.ClientPrincipal p = clientPrincipal();
        return p == null ? null : p.user();
    }

    private dev.weft.proxy.security.ClientPrincipal clientPrincipal() {
        return client == null ? null : dev.weft.proxy.security.ClientPrincipal.of(client);
    }

    @Override
    public boolean forwardsClientSasl() {
        return runtime.forwardsClientSasl();
    }

    @Override
    public HotContext hotContext() {
        return hotContext;
    }

    @Override
    public PlanContext planContext() {
        return planContext;
    }

    @Override
    public TopicNameCache topicNames() {
        return topicNames;
    }

    @Override
    public int ownRoute() {
        return ownRoute;
    }

    @Override
    public String virtualClusterName() {
        return runtime.name();
    }

    @Override
    public String routeName(int route) {
        return runtime.routeName(route);
    }

    @Override
    public NodeEndpointRewriter endpoints(int route) {
        return runtime.endpoints(addresses, route);
    }

    @Override
    public boolean plansByCachedLeaders() {
        return runtime.collapsed() != null; // only the collapsed topology plans by cached leaders
    }

    @Override
    public long cachedProducerId(long virtualPid, int route) {
        return runtime.producerIds().cached(virtualPid, route);
    }

    @Override
    public java.util.concurrent.CompletableFuture<?> refreshCatalog() {
        return runtime.catalogs().refresh();
    }

    @Override
    public void countUpstreamFailure(short apiKey) {
        metrics.connectionError(SessionMetrics.SessionError.UPSTREAM_FAILED, apiKey);
    }
}
