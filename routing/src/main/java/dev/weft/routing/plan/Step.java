package dev.weft.routing.plan;

import java.util.List;
import java.util.function.Function;
import org.apache.kafka.common.protocol.ApiMessage;

/** What the proxy does next for one client request; see {@link ColdPlanner}. */
public sealed interface Step {

    /**
     * Send every part (concurrently), then continue with their answers, {@code answers.get(i)} for
     * {@code parts.get(i)}. {@code then} runs on the client's event loop and must not block.
     */
    record Send(List<Part> parts, Function<List<Answer>, Step> then) implements Step {
        public Send {
            parts = List.copyOf(parts);
        }
    }

    /** Answer the client with this response body (the client's API version and correlation id). */
    record Respond(ApiMessage body) implements Step {
    }

    /**
     * Send the client's request frame unchanged to its connection's own broker and relay the answer
     * unchanged (only the correlation id is patched): for requests that need no translation.
     */
    record Forward() implements Step {
    }

    Forward FORWARD = new Forward();

    static Step respond(ApiMessage body) {
        return new Respond(body);
    }

    static Step send(Part part, Function<Answer, Step> then) {
        return new Send(List.of(part), answers -> then.apply(answers.getFirst()));
    }
}
