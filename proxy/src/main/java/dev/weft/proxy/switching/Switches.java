package dev.weft.proxy.switching;

import dev.weft.routing.Router;
import dev.weft.routing.switching.SwitchRouter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/** The switches of this proxy by name, found among the routers its virtual clusters were built with. */
public final class Switches implements AutoCloseable {

    private final Map<String, SwitchController> byName;

    private Switches(Map<String, SwitchController> byName) {
        this.byName = byName;
    }

    /**
     * @param routersOfVirtualClusters each virtual cluster's routers (reachable from its target), by name
     * @param clientConfigOfCluster kafka-clients settings of a configured cluster, by name
     */
    /**
     * @param replicaId this proxy process, named in the fleet's switch records
     * @param startTimeout how long each switch with {@code state.cluster} waits for its records at start
     * @throws IllegalArgumentException naming a {@code state.cluster} that is not a configured cluster
     */
    public static Switches of(Collection<Map<String, Router>> routersOfVirtualClusters,
            Function<String, Map<String, Object>> clientConfigOfCluster, java.util.Set<String> clusterNames, String replicaId,
            java.time.Duration startTimeout) {
        Map<String, List<SwitchRouter>> instances = new TreeMap<>();
        for (Map<String, Router> routers : routersOfVirtualClusters) {
            routers.forEach((name, r) -> {
                if (r instanceof SwitchRouter s) {
                    instances.computeIfAbsent(name, n -> new ArrayList<>()).add(s);
                }
            });
        }
        Map<String, SwitchController> byName = new TreeMap<>();
        for (var e : instances.entrySet()) {
            String state = e.getValue().getFirst().settings().stateCluster();
            if (state != null && !clusterNames.contains(state)) {
                byName.values().forEach(SwitchController::close);
                throw new IllegalArgumentException("routers." + e.getKey() + ".state.cluster: no cluster named '" + state
                        + "' (clusters: " + String.join(", ", new java.util.TreeSet<>(clusterNames)) + ")");
            }
            byName.put(e.getKey(), new SwitchController(new SwitchGroup(e.getValue()), clientConfigOfCluster, replicaId, startTimeout));
        }
        return new Switches(byName);
    }

    /** The switch with this name, or null. */
    public SwitchController get(String name) {
        return byName.get(name);
    }

    public Collection<SwitchController> all() {
        return byName.values();
    }

    @Override
    public void close() {
        byName.values().forEach(SwitchController::close);
    }
}
