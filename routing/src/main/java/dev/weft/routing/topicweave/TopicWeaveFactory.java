package dev.weft.routing.topicweave;

import dev.weft.routing.Router;
import dev.weft.routing.RouterFactory;
import dev.weft.routing.dag.InvalidRoutingException;
import dev.weft.routing.dag.RouterSpec;
import dev.weft.routing.dag.RoutingProblem;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Builds {@code type: topic-weave} routers. Settings are either a {@link TopicWeaveSettings} or the
 * router's config mapping as plain Java (read by the rules in routing/README.md); null means defaults.
 */
public final class TopicWeaveFactory implements RouterFactory {

    public static final String TYPE = "topic-weave";

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public Router create(String path, RouterSpec spec, List<RoutingProblem> problems) {
        List<RoutingProblem> found = new ArrayList<>();
        TopicWeaveSettings settings = switch (spec.settings()) {
            case null -> TopicWeaveSettings.defaults();
            case TopicWeaveSettings s -> s;
            case Map<?, ?> raw -> SettingsReader.read(path, raw, spec.routes().size(), found);
            default -> {
                found.add(new RoutingProblem(path, "topic-weave settings must be a mapping, got "
                        + spec.settings().getClass().getSimpleName()));
                yield null;
            }
        };
        if (settings != null) {
            found.addAll(settings.validate(path, spec.routeNames()));
        }
        if (!found.isEmpty()) {
            problems.addAll(found);
            return null;
        }
        try {
            return new TopicWeaveRouter(spec, new CompiledWeave(path, settings, spec.routeNames()));
        } catch (InvalidRoutingException e) {
            problems.addAll(e.problems());
            return null;
        }
    }
}
