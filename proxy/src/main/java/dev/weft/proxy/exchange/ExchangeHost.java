package dev.weft.proxy.exchange;

import dev.weft.protocol.skim.NodeEndpointRewriter;
import dev.weft.proxy.upstream.UpstreamCluster;
import dev.weft.proxy.upstream.UpstreamLinks;
import dev.weft.proxy.upstream.UpstreamRequestCounters;
import dev.weft.routing.Router;
import dev.weft.routing.api.HotContext;
import dev.weft.routing.api.TopicNameCache;
import dev.weft.routing.plan.PlanContext;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import java.util.concurrent.CompletableFuture;

/**
 * What an exchange sees of the client connection it serves (implemented by the session,
 * {@code proxy.session.Session}): its request order, its upstream links, the virtual cluster's facts it
 * plans and merges by, and how a request or the connection fails. Everything is called on the
 * connection's event loop. Facts are read through here at the time of use, as the session holds them:
 * nothing is copied per request.
 */
public interface ExchangeHost {

    // --- the client connection

    /** The client channel's allocator: every frame built for this connection comes from it. */
    ByteBufAllocator alloc();

    /** The connection's event loop (timers of exchanges run on it). */
    EventLoop eventLoop();

    /** True once the connection is closed: what arrives then is released, not answered. */
    boolean isClosed();

    /** Who the client authenticated as at the gateway ({@code User:alice}), or null when the proxy did not authenticate it. */
    String principal();

    // --- the request order

    /** Finishes request {@code slot} with its response frame (<em>takes ownership</em>; null: none is due). */
    void complete(int slot, ByteBuf response);

    /** The API key of an open slot's request (for messages and metrics). */
    short slotApiKey(int slot);

    /** Flushes the client's answers; needed after work outside a read of the client or of a link. */
    void flushClient();

    // --- upstream

    /**
     * Sends a Produce or Fetch frame the plan left as the client sent it (or patched in place) over the
     * connection's bound link, answered like any forwarded request; {@code expectsResponse} false
     * (acks=0) finishes the slot at once. <em>Takes ownership</em> of {@code frame}.
     */
    void forwardHot(ByteBuf frame, int slot, boolean expectsResponse);

    /** The connection's upstream links. */
    UpstreamLinks links();

    /** The cluster behind {@code route}. */
    UpstreamCluster cluster(int route);

    /** Requests sent to each upstream broker, and Fetch bytes discarded (the exporter's counters). */
    UpstreamRequestCounters upstreamRequests();

    /** What became of branch copies (the exporter's counters). */
    BranchCounters branchCounters();

    /** The off-loop writer of side route {@code route}'s transformed copies, or null: copies go out as they are. */
    dev.weft.proxy.branch.BranchWriter branchWriter(int route);

    /**
     * A client's EndTxn was answered without error (the transaction of {@code producerId} committed or
     * aborted): told before the client gets the answer, for whatever waits on transaction outcomes (branch
     * writers holding transactional batches).
     */
    void transactionEnded(long producerId, boolean committed);

    // --- the virtual cluster's facts

    Router router();

    /**
     * What the router's hot planner is told about this connection. With per-principal authorization its
     * catalog is the principal's view of the topics it may write (Produce) or read (Fetch): the exchange
     * in progress says which ({@link #access()}).
     */
    HotContext hotContext();

    /**
     * The client principal's rules and views, or null when the virtual cluster does not authorize per
     * principal; its {@code lastViews()} are the ones the current request was planned with.
     */
    dev.weft.routing.access.ConnectionAccess access();

    /** What the router's cold planners are told about this connection. */
    PlanContext planContext();

    /** The connection's interned topic names (shared by its plan pools). */
    TopicNameCache topicNames();

    /** The route of the connection's own broker, or -1 on a bootstrap connection. */
    int ownRoute();

    String virtualClusterName();

    String routeName(int route);

    /** How node ids and endpoints of answers from {@code route} are mapped for the connection's gateway. */
    NodeEndpointRewriter endpoints(int route);

    /** Whether hot plans go by the cached partition leaders (the collapsed topology): answers teach the cache. */
    boolean plansByCachedLeaders();

    /** The producer id {@code route}'s cluster knows for the client's (virtual) one, or -1 when not agreed yet. */
    long cachedProducerId(long virtualPid, int route);

    /**
     * Holds a Produce (<em>takes ownership</em>) and everything the client sends after it until the fleet
     * agreed on the producer id of {@code virtualPid} on {@code route}; then it is handled again.
     */
    void parkForProducerId(ByteBuf frame, int slot, short version, long virtualPid, int route);

    /** Reads the topic catalog again; completes (on another thread) when the new one is in force. */
    CompletableFuture<?> refreshCatalog();

    /** The real coordinator of {@code group} on {@code route}, as this connection last found it, or null. */
    Integer cachedCoordinator(int route, String group);

    /** Remembers (null: forgets) the coordinator of {@code group} on {@code route}. */
    void cacheCoordinator(int route, String group, Integer nodeId);

    // --- failures

    /** Logs a request the virtual cluster refuses (it is answered with an error; the connection stays). */
    void logRefusal(String message);

    /** Counts a request some of whose upstream parts failed (they were answered retriably). */
    void countUpstreamFailure(short apiKey);

    /** A planner, merge or rewrite failed on what it could not handle: logs, closes the connection. */
    void failed(String what, Throwable cause);
}
