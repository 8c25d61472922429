package dev.weft.routing.topicweave;

/**
 * The topic-weave settings of one route, at the same index as the route.
 *
 * @param topics which topics are visible
 * @param naming how they are named
 * @param qualifyPrefix the prefix used by collision policy {@code qualify}; null: the route name + "."
 */
public record RouteRules(TopicFilter topics, TopicNaming naming, String qualifyPrefix) {

    public static final RouteRules DEFAULT = new RouteRules(TopicFilter.ALL, TopicNaming.IDENTITY, null);

    public RouteRules {
        topics = topics == null ? TopicFilter.ALL : topics;
        naming = naming == null ? TopicNaming.IDENTITY : naming;
    }
}
