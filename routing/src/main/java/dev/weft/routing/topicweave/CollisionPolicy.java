package dev.weft.routing.topicweave;

/** What a topic-weave router does when two routes would expose a topic under the same virtual name. */
public enum CollisionPolicy {
    /** Refuse: at startup the virtual cluster does not start; discovered later, every claimant is hidden and reported. */
    REJECT("reject"),
    /** The first route in config order keeps the name; the others' topics are hidden (and reported). */
    FIRST_WINS("first-wins"),
    /** Every claimant is exposed under its route's qualify prefix (route name + "." unless configured). */
    QUALIFY("qualify");

    private final String configName;

    CollisionPolicy(String configName) {
        this.configName = configName;
    }

    /** The spelling in the config file. */
    public String configName() {
        return configName;
    }

    /** The policy spelled {@code text} in the config, or null. */
    public static CollisionPolicy fromConfig(String text) {
        for (CollisionPolicy p : values()) {
            if (p.configName.equals(text)) {
                return p;
            }
        }
        return null;
    }
}
