package dev.weft.routing.partitionweave;

import dev.weft.routing.Router;
import dev.weft.routing.RouterFactory;
import dev.weft.routing.dag.RouterSpec;
import dev.weft.routing.dag.RoutingProblem;
import java.util.List;
import java.util.Map;

/**
 * Builds {@code type: partition-weave} routers. Settings are a {@link PartitionWeaveSettings} or the
 * router's config mapping as plain Java, read by {@link PartitionWeaveSettingsReader}.
 */
public final class PartitionWeaveFactory implements RouterFactory {

    public static final String TYPE = "partition-weave";

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public Router create(String path, RouterSpec spec, List<RoutingProblem> problems) {
        PartitionWeaveSettings settings = switch (spec.settings()) {
            case PartitionWeaveSettings s -> s;
            case Map<?, ?> raw -> PartitionWeaveSettingsReader.read(path, raw, spec.routeNames(), problems);
            case null -> {
                problems.add(new RoutingProblem(path + ".topics", "a partition-weave router needs at least one logical"
                        + " topic: topics: { <name>: [ { route, topic, partitions }, ... ] }"));
                yield null;
            }
            default -> {
                problems.add(new RoutingProblem(path, "partition-weave settings must be a mapping, got "
                        + spec.settings().getClass().getSimpleName()));
                yield null;
            }
        };
        return settings == null ? null : new PartitionWeaveRouter(path, spec, settings);
    }
}
