package dev.weft.routing.plan;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/** Where one entry of a client's request (a topic, a config resource) goes, or why it goes nowhere. */
sealed interface Located {

    /**
     * The entry goes to {@code to} of {@code route} under {@code realName}/{@code realId}; answers come
     * back under {@code virtualName}/{@code virtualId} ({@link Uuid#ZERO_UUID}: keep the id the route answers).
     */
    record Owner(int route, Destination to, String realName, Uuid realId, String virtualName, Uuid virtualId)
            implements Located {
    }

    /**
     * The entry is answered here with {@code error}; {@code log}: a refusal operators should see (policy),
     * not a client mistake or stale metadata.
     */
    record Refused(Errors error, String message, boolean log) implements Located {
    }

    static Refused unknownTopic() {
        return new Refused(Errors.UNKNOWN_TOPIC_OR_PARTITION, null, false);
    }
}
