package dev.weft.testkit;

/** What a KRaft node runs: a broker, a controller, or both (combined mode). */
enum NodeRole {
    BROKER("broker"),
    CONTROLLER("controller");

    private final String processRole;

    NodeRole(String processRole) {
        this.processRole = processRole;
    }

    /** The value this role contributes to Kafka's {@code process.roles}. */
    String processRole() {
        return processRole;
    }
}
