package dev.weft.proxy.session;

import dev.weft.protocol.ApiKeyTable;
import dev.weft.protocol.cold.ColdCodec;
import dev.weft.protocol.versions.ApiVersionsIntersection;
import dev.weft.proxy.exchange.ColdExchange;
import dev.weft.proxy.upstream.UpstreamLink;
import dev.weft.routing.plan.Answer;
import dev.weft.routing.plan.Destination;
import dev.weft.routing.plan.Part;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.message.ApiVersionsResponseData.FinalizedFeatureKey;
import org.apache.kafka.common.message.ApiVersionsResponseData.FinalizedFeatureKeyCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * ApiVersions of a woven virtual cluster, answered by the proxy (DESIGN §5): the versions every
 * upstream cluster supports, intersected with Weft's table, and only for APIs the weave can route
 * (Produce, Fetch, ApiVersions, Metadata, InitProducerId, and the APIs that have a planner): a client
 * never sends a request that would have to be refused. Clamps: Produce v3–13 and Fetch v4–18 (what the
 * hot-path skims read), AddPartitionsToTxn up to v3 (v4+ is the broker-to-broker batch form).
 * Finalized features are those every cluster has, at the lowest level any of them finalized.
 *
 * <p>The upstream answers are asked for by a client's ApiVersions and cached for the virtual cluster
 * for {@link #MAX_AGE_NANOS} (a cluster upgraded or downgraded meanwhile is seen at the next one).
 */
final class ApiVersionsAnswer {

    private static final short UPSTREAM_VERSION = 3;
    static final long MAX_AGE_NANOS = java.util.concurrent.TimeUnit.MINUTES.toNanos(5);

    private final VirtualClusterRuntime runtime;
    private volatile ApiVersionsResponseData cached;
    private volatile long cachedAtNanos;

    ApiVersionsAnswer(VirtualClusterRuntime runtime) {
        this.runtime = runtime;
    }

    /** Whether the virtual cluster offers {@code apiKey} at {@code version} (before the first answer: Weft's own ranges). */
    boolean advertises(short apiKey, short version) {
        ApiVersionsResponseData now = cached;
        if (now == null) {
            return handled(apiKey) && ApiKeyTable.isSupported(apiKey, version);
        }
        ApiVersion v = now.apiKeys().find(apiKey);
        return v != null && version >= v.minVersion() && version <= v.maxVersion();
    }

    /** The highest version of {@code apiKey} on offer, or -1. */
    short maxVersion(short apiKey) {
        ApiVersionsResponseData now = cached;
        if (now == null) {
            return handled(apiKey) ? ApiKeyTable.latestVersion(apiKey) : -1;
        }
        ApiVersion v = now.apiKeys().find(apiKey);
        return v == null ? -1 : v.maxVersion();
    }

    /** Whether the virtual cluster's router serves {@code apiKey} at all (what it does not is not advertised). */
    private boolean handled(short apiKey) {
        return runtime.apiRoute(apiKey) != dev.weft.routing.api.ApiRoute.REFUSED;
    }

    /** Answers a client's ApiVersions (takes ownership of {@code frame}). */
    void answer(Session session, int slot, ByteBuf frame, short version, int correlationId) {
        frame.release();
        ApiVersionsResponseData now = cached;
        if (version > ApiKeyTable.latestVersion(ApiKeys.API_VERSIONS.id)) {
            // Like a broker: a v0 answer with UNSUPPORTED_VERSION and our ranges, so the client retries lower.
            ApiVersionsResponseData error = new ApiVersionsResponseData().setErrorCode(Errors.UNSUPPORTED_VERSION.code())
                    .setApiKeys(now != null ? now.apiKeys().duplicate() : weftOnly());
            respond(session, slot, correlationId, (short) 0, error);
            return;
        }
        if (now != null && System.nanoTime() - cachedAtNanos < MAX_AGE_NANOS) {
            respond(session, slot, correlationId, version, now);
            return;
        }
        int routes = runtime.routeCount();
        Answer[] answers = new Answer[routes];
        int[] remaining = {routes};
        for (int route = 0; route < routes; route++) {
            int r = route;
            UpstreamLink link = session.links.any(route);
            ApiVersionsRequestData ask = new ApiVersionsRequestData().setClientSoftwareName("weft").setClientSoftwareVersion("0.1");
            ColdExchange.send(session, link, new Part(route, Destination.ANY, UPSTREAM_VERSION, ask), "weft", answer -> {
                answers[r] = answer;
                if (--remaining[0] == 0) {
                    finish(session, slot, correlationId, version, answers);
                }
            }, null);
            link.flush();
        }
    }

    private void finish(Session session, int slot, int correlationId, short version, Answer[] answers) {
        List<ApiVersionsResponseData> upstream = new ArrayList<>();
        for (int r = 0; r < answers.length; r++) {
            if (answers[r].failed() || ((ApiVersionsResponseData) answers[r].body()).errorCode() != 0) {
                ApiVersionsResponseData stale = cached;
                if (stale != null) {
                    // A cluster not answering now (a broker down) does not change what it supports: the
                    // last answer serves until it does; the next ApiVersions asks again.
                    respond(session, slot, correlationId, version, stale);
                    session.flushClient();
                    return;
                }
                session.failedQuietly("cannot answer ApiVersions: cluster '" + runtime.routeName(r) + "' did not say which versions it supports",
                        new IllegalStateException(answers[r].failed() ? answers[r].reason()
                                : Errors.forCode(((ApiVersionsResponseData) answers[r].body()).errorCode()).name()));
                return;
            }
            upstream.add((ApiVersionsResponseData) answers[r].body());
        }
        ApiVersionsResponseData combined = combine(upstream);
        cachedAtNanos = System.nanoTime();
        cached = combined;
        respond(session, slot, correlationId, version, combined);
    }

    ApiVersionsResponseData combine(List<ApiVersionsResponseData> upstream) {
        ApiVersionCollection intersection = ApiVersionsIntersection.of(upstream.stream().map(ApiVersionsResponseData::apiKeys).toList());
        ApiVersionCollection offered = new ApiVersionCollection();
        for (ApiVersion v : intersection) {
            if (!handled(v.apiKey())) {
                continue;
            }
            short min = v.minVersion();
            short max = v.maxVersion();
            if (v.apiKey() == ApiKeys.PRODUCE.id) {
                min = (short) Math.max(min, 3);
                max = (short) Math.min(max, 13);
            } else if (v.apiKey() == ApiKeys.FETCH.id) {
                min = (short) Math.max(min, 4);
                max = (short) Math.min(max, 18);
            } else if (v.apiKey() == ApiKeys.ADD_PARTITIONS_TO_TXN.id) {
                max = (short) Math.min(max, 3);
            }
            if (min <= max) {
                offered.add(new ApiVersion().setApiKey(v.apiKey()).setMinVersion(min).setMaxVersion(max));
            }
        }
        ApiVersionsResponseData first = upstream.getFirst();
        FinalizedFeatureKeyCollection finalized = new FinalizedFeatureKeyCollection();
        long epoch = -1;
        for (FinalizedFeatureKey f : first.finalizedFeatures()) {
            short level = f.maxVersionLevel();
            boolean everywhere = true;
            for (ApiVersionsResponseData other : upstream) {
                FinalizedFeatureKey o = other.finalizedFeatures().find(f.name());
                if (o == null) {
                    everywhere = false;
                } else {
                    level = (short) Math.min(level, o.maxVersionLevel());
                }
            }
            if (everywhere) {
                finalized.add(new FinalizedFeatureKey().setName(f.name()).setMinVersionLevel(f.minVersionLevel()).setMaxVersionLevel(level));
            }
        }
        for (ApiVersionsResponseData u : upstream) {
            epoch = Math.max(epoch, u.finalizedFeaturesEpoch());
        }
        return new ApiVersionsResponseData()
                .setApiKeys(offered)
                .setSupportedFeatures(first.supportedFeatures().duplicate())
                .setFinalizedFeatures(finalized)
                .setFinalizedFeaturesEpoch(epoch);
    }

    private ApiVersionCollection weftOnly() {
        ApiVersionCollection out = new ApiVersionCollection();
        for (ApiKeys k : ApiKeys.clientApis()) {
            if (handled(k.id) && ApiKeyTable.isKnownKey(k.id)) {
                out.add(new ApiVersion().setApiKey(k.id).setMinVersion(ApiKeyTable.oldestVersion(k.id))
                        .setMaxVersion(ApiKeyTable.latestVersion(k.id)));
            }
        }
        return out;
    }

    private static void respond(Session session, int slot, int correlationId, short version, ApiVersionsResponseData body) {
        session.complete(slot, ColdCodec.writeResponse(session.client.alloc(), correlationId, version, body));
        session.flushClient();
    }
}
