package dev.weft.routing.plan;

import java.util.Objects;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * One request a plan sends to one route.
 *
 * @param route the route index
 * @param to which broker of that route
 * @param version the API version to send (usually the client's; the API key is {@code body.apiKey()})
 * @param body the request body (the proxy writes the header: client id, its own correlation id)
 */
public record Part(int route, Destination to, short version, ApiMessage body) {
    public Part {
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(body, "body");
    }

    public short apiKey() {
        return body.apiKey();
    }
}
