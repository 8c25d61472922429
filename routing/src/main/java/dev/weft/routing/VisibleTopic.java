package dev.weft.routing;

import org.apache.kafka.common.Uuid;

/**
 * One topic a client can see through a router: its virtual name and id, and where it really lives.
 *
 * @param virtualName the name clients use
 * @param route the route index it lives behind
 * @param realName its name behind that route
 * @param virtualId the id clients see (the real id unless another visible topic has the same real id)
 * @param realId its id behind the route ({@link Uuid#ZERO_UUID} when unknown)
 */
public record VisibleTopic(String virtualName, int route, String realName, Uuid virtualId, Uuid realId) {
}
