package dev.weft.routing.switching;

import dev.weft.routing.Router;
import dev.weft.routing.RouterFactory;
import dev.weft.routing.dag.RouterSpec;
import dev.weft.routing.dag.RoutingProblem;
import dev.weft.routing.topicweave.TopicWeaveFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds {@code type: switch} routers: candidate routes ({@code name}, {@code target}, optionally
 * {@code mirrorAlias}), {@code active}, {@code state.cluster}, {@code cutover} timeouts and
 * {@code failover} ({@code to}, {@code afterMs}); see {@link SwitchSettingsReader}.
 */
public final class SwitchFactory implements RouterFactory {

    public static final String TYPE = "switch";

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public Router create(String path, RouterSpec spec, List<RoutingProblem> problems) {
        List<RoutingProblem> found = new ArrayList<>();
        SwitchSettings settings = SwitchSettingsReader.read(path, spec, found);
        if (!found.isEmpty()) {
            problems.addAll(found);
            return null;
        }
        Router weave = new TopicWeaveFactory().create(path, new RouterSpec(spec.name(), TopicWeaveFactory.TYPE, spec.routes(), null),
                problems);
        return weave == null ? null : new SwitchRouter(spec, weave, settings);
    }
}
