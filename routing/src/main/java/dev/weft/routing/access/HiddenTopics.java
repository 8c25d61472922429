package dev.weft.routing.access;

import org.apache.kafka.common.protocol.Errors;

/**
 * How a request naming a topic the principal may not even describe is answered. Kafka's own answer is
 * TOPIC_AUTHORIZATION_FAILED whether or not the topic exists (so existence does not leak, and clients
 * fail fast); {@link #UNKNOWN} answers as if the topic did not exist (UNKNOWN_TOPIC_OR_PARTITION: clients
 * retry until their timeout, as for a topic not yet created).
 */
public enum HiddenTopics {
    AUTHORIZATION_FAILED(Errors.TOPIC_AUTHORIZATION_FAILED),
    UNKNOWN(Errors.UNKNOWN_TOPIC_OR_PARTITION);

    private final Errors error;

    HiddenTopics(Errors error) {
        this.error = error;
    }

    public Errors error() {
        return error;
    }
}
