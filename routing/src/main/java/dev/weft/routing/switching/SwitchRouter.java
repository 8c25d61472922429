package dev.weft.routing.switching;

import dev.weft.routing.GroupRouting;
import dev.weft.routing.RealTopic;
import dev.weft.routing.Router;
import dev.weft.routing.RouterListener;
import dev.weft.routing.TopicRouting;
import dev.weft.routing.TransactionRouting;
import dev.weft.routing.api.ApiRoute;
import dev.weft.routing.api.HotPlanner;
import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.dag.RouterSpec;
import dev.weft.routing.plan.ColdPlanner;
import dev.weft.routing.topicweave.IndexedTopicRouting;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The switch router: one candidate route at a time serves the virtual cluster ({@link SwitchCatalog}),
 * planned like a topic weave (the same hot and cold planners) in which only the active route shows.
 * Groups and transactions are homed on the active route. Virtual node ids keep every candidate's
 * brokers apart (DESIGN §4), so a client that still holds the old cluster's Metadata cannot mistake one
 * of its brokers for the new cluster's.
 *
 * <p>The state is one volatile reference, written by the cutover ({@link #apply}) and read when a
 * catalog is built and by the homes; every proxy serving it is told through {@link #watch}.
 */
public final class SwitchRouter implements Router {

    private final RouterSpec spec;
    private final Router weave;
    private final SwitchSettings settings;
    private final List<RouterListener> listeners = new CopyOnWriteArrayList<>();
    private volatile SwitchState state;

    SwitchRouter(RouterSpec spec, Router weave, SwitchSettings settings) {
        this.spec = spec;
        this.weave = weave;
        this.settings = settings;
        this.state = new SwitchState(settings.initialActive(), false, 0);
    }

    public SwitchSettings settings() {
        return settings;
    }

    public SwitchState state() {
        return state;
    }

    /** The name of route {@code k} (for logs and the admin answer). */
    public String routeName(int k) {
        return spec.routes().get(k).name();
    }

    /** The route with this name, or -1. */
    public int routeIndex(String name) {
        return spec.routeIndex(name);
    }

    /**
     * Puts {@code next} in force: every virtual cluster served through this switch builds its catalog
     * again, and with a {@code drainReason} drains its client connections.
     *
     * @return completes when every one of them has the new catalog in force (and drained its connections)
     */
    public CompletableFuture<Void> apply(SwitchState next, String drainReason) {
        state = next;
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (RouterListener l : listeners) {
            done.add(l.routerChanged(drainReason, settings.drainTimeout()));
        }
        return CompletableFuture.allOf(done.toArray(CompletableFuture[]::new));
    }

    /** The switch records' cluster holds the producer-id claims too: it outlives every candidate. */
    @Override
    public String fleetStateCluster() {
        return settings.stateCluster();
    }

    @Override
    public void watch(RouterListener listener) {
        listeners.add(listener);
    }

    @Override
    public TopicRouting catalog(List<List<RealTopic>> topicsByRoute) {
        SwitchState s = state;
        List<List<RealTopic>> activeOnly = new ArrayList<>(topicsByRoute.size());
        for (int k = 0; k < topicsByRoute.size(); k++) {
            activeOnly.add(k == s.active() && s.known() ? topicsByRoute.get(k) : List.of());
        }
        return new SwitchCatalog((IndexedTopicRouting) weave.catalog(activeOnly), s, routeName(s.active()));
    }

    @Override
    public GroupRouting groups() {
        return group -> state.active();
    }

    @Override
    public TransactionRouting transactions() {
        return transactionalId -> state.active();
    }

    @Override
    public String name() {
        return spec.name();
    }

    @Override
    public String type() {
        return SwitchFactory.TYPE;
    }

    @Override
    public List<RouteSpec> routes() {
        return spec.routes();
    }

    @Override
    public ApiRoute apiRoute(short apiKey) {
        return weave.apiRoute(apiKey);
    }

    @Override
    public HotPlanner hotPlanner() {
        return weave.hotPlanner();
    }

    @Override
    public ColdPlanner coldPlanner(short apiKey) {
        return weave.coldPlanner(apiKey);
    }

    @Override
    public boolean usesTopicCatalog() {
        return true;
    }

    @Override
    public String toString() {
        return "switch router '" + spec.name() + "' " + spec.routeNames() + " at '" + routeName(state.active()) + "'";
    }
}
