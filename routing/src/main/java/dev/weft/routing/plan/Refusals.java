package dev.weft.routing.plan;

import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractRequest;

/**
 * Error answers in the exact shape each API expects: kafka-clients' own {@code getErrorResponse}, so
 * every topic, partition, group or resource the client named gets the error (nothing is left out and
 * clients parse it like a broker's).
 */
public final class Refusals {

    private Refusals() {
    }

    /**
     * The response to {@code request} (API version {@code version}) with {@code error} everywhere,
     * carrying {@code message} where the API has an error message.
     */
    public static ApiMessage errorResponse(ApiMessage request, short version, Errors error, String message) {
        ApiKeys api = ApiKeys.forId(request.apiKey());
        ByteBuffer bytes = MessageUtil.toByteBufferAccessor(request, version).buffer();
        bytes.rewind();
        AbstractRequest parsed = AbstractRequest.parseRequest(api, version, new org.apache.kafka.common.protocol.ByteBufferAccessor(bytes)).request;
        return parsed.getErrorResponse(0, error.exception(message)).data();
    }

    /** A step answering {@link #errorResponse}, after logging {@code message} as the refusal reason. */
    public static Step refuse(ApiMessage request, short version, PlanContext ctx, Errors error, String message) {
        ctx.logRefusal(message);
        return Step.respond(errorResponse(request, version, error, message));
    }
}
