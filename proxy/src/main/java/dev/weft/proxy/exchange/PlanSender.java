package dev.weft.proxy.exchange;

import dev.weft.proxy.upstream.UpstreamLink;
import dev.weft.proxy.upstream.UpstreamLinks;
import dev.weft.routing.api.RoutePlan;
import dev.weft.routing.api.RoutePlanPool;
import io.netty.buffer.ByteBuf;

/**
 * Sends the parts of a split Produce or Fetch: one per session and API, so the builder is made once,
 * not per request, and the array of built parts is reused.
 */
final class PlanSender {

    /** Builds the part of {@code plan} for one target from the skimmed client request. */
    @FunctionalInterface
    interface PartBuilder {
        ByteBuf build(RoutePlan plan, int target);
    }

    private final ExchangeHost host;
    private final RoutePlanPool plans;
    private final String api;
    private final PartBuilder builder;
    private ByteBuf[] parts = new ByteBuf[4];

    PlanSender(ExchangeHost host, RoutePlanPool plans, String api, PartBuilder builder) {
        this.host = host;
        this.plans = plans;
        this.api = api;
        this.builder = builder;
    }

    /** The link for a plan's target: the bound link for {@link RoutePlan#OWN_BROKER}, else that broker of the leaf. */
    static UpstreamLink linkFor(UpstreamLinks links, int leaf, int broker) {
        return broker == RoutePlan.OWN_BROKER ? links.bound() : links.broker(leaf, broker);
    }

    /**
     * Sends one part per target of {@code plan}, each built by the builder (a sub-request around
     * retained slices of the client's frame), to its target's link, with {@code answer} (null: none
     * expected). Every part is built before any is sent: a part that cannot be built (a request the
     * skim read but a builder refuses) releases what was built, the client's frame and the plan, and
     * closes the connection with a log line — nothing half-sent, nothing leaked.
     *
     * @return false when the request could not be split (already handled)
     */
    boolean send(RoutePlan plan, SplitAnswer answer, ByteBuf frame) {
        int n = plan.targetCount();
        if (parts.length < n) {
            parts = new ByteBuf[Math.max(n, parts.length * 2)];
        }
        int built = 0;
        try {
            for (; built < n; built++) {
                parts[built] = builder.build(plan, built);
            }
        } catch (RuntimeException e) {
            for (int i = 0; i < built; i++) {
                parts[i].release();
                parts[i] = null;
            }
            frame.release();
            plans.release(plan);
            host.failed("cannot split a " + api + " request", e);
            return false;
        }
        UpstreamLinks links = host.links();
        for (int t = 0; t < n; t++) {
            ByteBuf part = parts[t];
            parts[t] = null;
            linkFor(links, plan.targetLeaf(t), plan.targetBroker(t)).send(part, answer, t);
        }
        return true;
    }
}
