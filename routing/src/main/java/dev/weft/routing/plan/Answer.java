package dev.weft.routing.plan;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * What came back for one {@link Part}: the response body, or why there is none (the route's broker
 * could not be reached, the connection died, the coordinator could not be found).
 *
 * @param body the response body, or null when the part failed
 * @param failure null when {@code body} is set; else a retriable error suggesting what to tell the
 *     client (e.g. {@link Errors#NETWORK_EXCEPTION}, {@link Errors#COORDINATOR_NOT_AVAILABLE})
 * @param reason for log lines and error messages when failed, else null
 */
public record Answer(ApiMessage body, Errors failure, String reason) {

    public static Answer of(ApiMessage body) {
        return new Answer(body, null, null);
    }

    public static Answer failed(Errors failure, String reason) {
        return new Answer(null, failure, reason);
    }

    public boolean failed() {
        return body == null;
    }
}
