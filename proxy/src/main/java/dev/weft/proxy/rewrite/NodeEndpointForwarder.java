package dev.weft.proxy.rewrite;

import dev.weft.protocol.fetch.FetchResponseSkim;
import dev.weft.protocol.header.ResponseHeaderView;
import dev.weft.protocol.produce.ProduceResponseSkim;
import dev.weft.protocol.skim.NodeEndpointRewriter;
import dev.weft.proxy.gateway.BrokerAddressBook;
import dev.weft.proxy.session.ResponseRewriter;
import dev.weft.routing.node.NodeIdMapping;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.FastThreadLocal;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Keeps clients on the proxy when a Produce (v10+) or Fetch (v16+) response tells them where a
 * partition's leader went: {@code node_endpoints} get the gateway's host and port, and node ids
 * ({@code current_leader}, {@code preferred_read_replica}) become virtual ids.
 *
 * <p>Hot path: the response is skimmed (partition fields only, records untouched); when it carries no
 * node endpoints and ids need no mapping — the normal case — it is forwarded as the same buffer with
 * only the correlation id patched. Otherwise the new frame is a retained slice of the response plus a
 * freshly written tagged-field trailer. Skims are per event loop thread (this object is shared).
 */
public final class NodeEndpointForwarder implements ResponseRewriter {

    private final NodeEndpointRewriter mapping;
    private final boolean idsChange;
    private final int route;
    private final FastThreadLocal<Skims> skims = new FastThreadLocal<>() {
        @Override
        protected Skims initialValue() {
            return new Skims();
        }
    };

    public NodeEndpointForwarder(BrokerAddressBook addresses, NodeIdMapping bijection, int route) {
        this.route = route;
        this.idsChange = bijection.routes() > 1;
        this.mapping = new GatewayEndpoints(addresses, bijection, route);
    }

    /** Whether responses of this API at this version can carry node endpoints or node ids to map. */
    public static boolean applies(short apiKey, short apiVersion) {
        return (apiKey == ApiKeys.PRODUCE.id && apiVersion >= ProduceResponseSkim.FIRST_NODE_ENDPOINTS_VERSION)
                || (apiKey == ApiKeys.FETCH.id && apiVersion >= 16);
    }

    @Override
    public ByteBuf rewrite(ByteBuf frame, short apiKey, short apiVersion, int clientCorrelationId, ByteBufAllocator alloc) {
        int headerStart = frame.readerIndex() + 4;
        ResponseHeaderView.correlationId(frame, headerStart, clientCorrelationId);
        if (!applies(apiKey, apiVersion) && !idsChange) {
            return frame;
        }
        Skims s = skims.get();
        try {
            if (apiKey == ApiKeys.PRODUCE.id) {
                ProduceResponseSkim skim = s.produce.wrap(frame, headerStart, frame.writerIndex(), apiVersion);
                if (idsChange) {
                    skim.rewriteLeaderIdsInPlace(mapping, route);
                }
                if (skim.nodeEndpoints().count() == 0) {
                    return frame;
                }
                ByteBuf out = skim.rewriteNodeEndpoints(mapping, route, alloc);
                frame.release();
                return out;
            }
            FetchResponseSkim skim = s.fetch.wrap(frame, headerStart, frame.writerIndex(), apiVersion);
            if (idsChange) {
                skim.rewriteNodeIdsInPlace(mapping, route);
            }
            if (skim.nodeEndpoints().count() == 0) {
                return frame;
            }
            ByteBuf out = skim.rewriteNodeEndpoints(mapping, route, alloc);
            frame.release();
            return out;
        } catch (RuntimeException e) {
            frame.release();
            throw e;
        }
    }

    /** One event loop's reusable skims. */
    private static final class Skims {
        final ProduceResponseSkim produce = new ProduceResponseSkim();
        final FetchResponseSkim fetch = new FetchResponseSkim();
    }
}
