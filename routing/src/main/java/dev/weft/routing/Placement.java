package dev.weft.routing;

/** The answer of {@link PlacementRouting#place}: where to create the topic, or why it cannot be created. */
public sealed interface Placement {

    /** Create real topic {@code realName} behind route {@code route}. */
    record Placed(int route, String routeName, String realName) implements Placement {
    }

    /** Refuse the topic; {@code message} says why (for the CreateTopics error message and the log). */
    record Refused(Reason reason, String message) implements Placement {
    }

    enum Reason {
        /** A visible topic already has this virtual name: TOPIC_ALREADY_EXISTS. */
        ALREADY_EXISTS,
        /** The name cannot be mapped back to a real name on the placed route: INVALID_TOPIC_EXCEPTION. */
        CANNOT_MAP,
        /** The real topic would be hidden by the route's include/exclude or by a collision: POLICY_VIOLATION. */
        WOULD_BE_HIDDEN,
        /** The client's principal may not create a topic of this name: TOPIC_AUTHORIZATION_FAILED. */
        NOT_AUTHORIZED
    }
}
