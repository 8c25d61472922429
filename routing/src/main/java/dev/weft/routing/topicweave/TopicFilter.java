package dev.weft.routing.topicweave;

import java.util.List;

/**
 * Which of a route's topics are visible. Each entry is an exact topic name, or a regular expression
 * after the prefix {@code re:} that must match the whole name ({@code "re:payments-.*"}). An empty
 * include list includes everything; exclude wins over include. Topics whose names start with
 * {@code __} (Kafka's internal topics, e.g. {@code __consumer_offsets}) are hidden unless the include
 * list names them exactly: every cluster has them, and groups and transactions are routed by home.
 * Patterns are evaluated when a catalog snapshot is built, never per request.
 */
public record TopicFilter(List<String> include, List<String> exclude) {

    public static final String REGEX_PREFIX = "re:";

    /** Everything visible (except internal topics). */
    public static final TopicFilter ALL = new TopicFilter(List.of(), List.of());

    public TopicFilter {
        include = List.copyOf(include);
        exclude = List.copyOf(exclude);
    }
}
