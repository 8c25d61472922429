package dev.weft.routing.partitionweave;

import dev.weft.routing.dag.RawSettings;
import dev.weft.routing.dag.RoutingProblem;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.internals.Topic;

/**
 * Reads {@link PartitionWeaveSettings} from a router's config mapping as plain Java (maps, lists, strings,
 * numbers, as the config reader hands it over in {@code RouterSpec.settings}), and checks what can be
 * checked without asking a cluster. Every problem is added with its path in the document, all at once:
 * <pre>
 * routers:
 *   orders-weave:
 *     type: partition-weave
 *     routes: [ { name: us-east, target: ... }, { name: eu-west, target: ... } ]
 *     topics:
 *       orders:                                                  # a logical topic
 *         - { route: us-east, topic: orders,    partitions: 0-15 }   # virtual 0-15
 *         - { route: eu-west, topic: orders-eu, partitions: 0-15 }   # virtual 16-31
 * </pre>
 *
 * <p>Refused here: unknown keys (router: {@code type, routes, topics}; route: {@code name, target};
 * segment: {@code route, topic, partitions}), values of the wrong shape, no logical topics, a logical
 * topic without segments, a logical or physical topic name Kafka would not accept, a route that is not
 * one of the router's, a partition range that is not {@code A-B} ({@code 0 <= A <= B <= 2147483647}) or a
 * single {@code N}, a logical topic of more than {@link Integer#MAX_VALUE} partitions, and any physical
 * partition (route + topic + partition number) taken twice, within one logical topic or by two.
 *
 * <p><b>Gaps.</b> Virtual partitions are the segments concatenated in order, so a logical topic never has
 * a hole of its own. Leaving physical partitions out is the operator's choice and is allowed: taking
 * {@code orders} 0-3 and 8-11 as two segments (a hole 4-7 between them), or a physical topic of 32
 * partitions of which only 0-15 are woven. There is no gap rule beyond the overlap rule: what is written
 * is what is woven.
 *
 * <p><b>Not checked here: whether the partitions exist.</b> That needs the clusters, so it plugs in at
 * discovery, with the router (still to come, issue #12): the router's catalog, rebuilt from each route's
 * topic list ({@code Router.catalog(topicsByRoute)}), checks every {@link Segment} against the partition
 * count the route shows for its physical topic, refusing to start on a segment naming partitions the topic
 * does not have, and later logging and counting one whose topic shrank or vanished. A physical topic that
 * grows changes nothing: {@link LogicalTopic#partitionCount()} is what the segments say, and the operator
 * extends a segment to take more.
 */
public final class PartitionWeaveSettingsReader {

    private static final Set<String> ROUTER_KEYS = Set.of("type", "routes", "topics");
    private static final Set<String> ROUTE_KEYS = Set.of("name", "target");
    private static final Set<String> SEGMENT_KEYS = Set.of("route", "topic", "partitions");

    /** {@code N} or {@code A-B}, ASCII digits only (so no sign: "-1" is not a partition). */
    private static final Pattern RANGE = Pattern.compile("(\\d+)(?:\\s*-\\s*(\\d+))?");
    private static final String RANGE_HINT = "write A-B with 0 <= A <= B (e.g. 0-15) or a single partition N";
    /** Kafka's rule, as {@link Topic#isValid} (which decides) applies it, in words for the operator. */
    private static final String TOPIC_NAME_RULE = "a topic name is 1 to 249 of the characters a-z A-Z 0-9 . _ - and"
            + " not '.' or '..'";

    private final List<String> routeNames;
    private final List<RoutingProblem> problems;
    private final RawSettings shapes;
    /** Every well-formed segment read so far, across logical topics, to find partitions taken twice. */
    private final List<Placed> placed = new ArrayList<>();

    /** A segment and where it was written. */
    private record Placed(String logicalTopic, int index, String path, Segment segment) {
    }

    private PartitionWeaveSettingsReader(List<String> routeNames, List<RoutingProblem> problems) {
        this.routeNames = List.copyOf(routeNames);
        this.problems = problems;
        this.shapes = new RawSettings(problems);
    }

    /**
     * The settings in {@code raw}, or null when anything is wrong (every problem then added to
     * {@code problems}).
     *
     * @param path the router's path ({@code routers.<name>})
     * @param routeNames the router's route names in order (a segment's route is its index here)
     */
    public static PartitionWeaveSettings read(String path, Map<?, ?> raw, List<String> routeNames,
            List<RoutingProblem> problems) {
        int before = problems.size();
        PartitionWeaveSettings settings = new PartitionWeaveSettingsReader(routeNames, problems).router(path, raw);
        return problems.size() == before ? settings : null;
    }

    private PartitionWeaveSettings router(String path, Map<?, ?> raw) {
        shapes.unknownKeys(path, raw, ROUTER_KEYS);
        routeKeys(path + ".routes", raw.get("routes"));
        Object rawTopics = raw.get("topics");
        Map<?, ?> topics = shapes.map(path + ".topics", rawTopics);
        if (rawTopics == null || topics != null && topics.isEmpty()) {
            problems.add(new RoutingProblem(path + ".topics", "a partition-weave router needs at least one logical"
                    + " topic: topics: { <name>: [ { route, topic, partitions }, ... ] }"));
        }
        if (topics == null) {
            return null;
        }
        Map<String, LogicalTopic> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : topics.entrySet()) {
            String name = String.valueOf(e.getKey());
            LogicalTopic topic = logicalTopic(path + ".topics." + name, name, e.getValue());
            if (topic != null) {
                out.put(name, topic);
            }
        }
        return new PartitionWeaveSettings(out);
    }

    /** Route names and targets are read by the config reader; a key beside them is a typo to report. */
    private void routeKeys(String path, Object rawRoutes) {
        if (rawRoutes instanceof List<?> routes) {
            for (int k = 0; k < routes.size(); k++) {
                if (routes.get(k) instanceof Map<?, ?> route) {
                    shapes.unknownKeys(path + "[" + k + "]", route, ROUTE_KEYS);
                }
            }
        }
    }

    private LogicalTopic logicalTopic(String path, String name, Object raw) {
        int before = problems.size();
        if (!Topic.isValid(name)) {
            problems.add(new RoutingProblem(path, "logical topic name '" + name + "' is not a valid Kafka topic name; "
                    + TOPIC_NAME_RULE));
        }
        List<?> rawSegments = shapes.list(path, raw);
        if (raw == null || rawSegments != null && rawSegments.isEmpty()) {
            problems.add(new RoutingProblem(path, "logical topic '" + name + "' has no segments; list at least one"
                    + " { route, topic, partitions }"));
        }
        if (rawSegments == null) {
            return null;
        }
        List<Segment> segments = new ArrayList<>();
        long partitions = 0; // of the segments whose range reads, whatever else is wrong with them
        for (int i = 0; i < rawSegments.size(); i++) {
            String p = path + "[" + i + "]";
            Object rawSegment = rawSegments.get(i);
            if (rawSegment == null) {
                problems.add(new RoutingProblem(p, "empty segment; write { route, topic, partitions }"));
                continue;
            }
            Map<?, ?> m = shapes.map(p, rawSegment);
            if (m == null) {
                continue;
            }
            shapes.unknownKeys(p, m, SEGMENT_KEYS);
            int route = route(p + ".route", m.get("route"));
            String topic = physicalTopic(p + ".topic", m.get("topic"));
            Range range = partitions(p + ".partitions", m.get("partitions"));
            if (range != null) {
                partitions += range.size();
            }
            // a range of 2^31 partitions (0-2147483647) is reported with the logical topic's count below
            if (route >= 0 && topic != null && range != null && range.size() <= Integer.MAX_VALUE) {
                Segment segment = new Segment(route, routeNames.get(route), topic, (int) range.first(), (int) range.last());
                overlaps(new Placed(name, i, p, segment));
                segments.add(segment);
            }
        }
        if (partitions > Integer.MAX_VALUE) {
            problems.add(new RoutingProblem(path, "logical topic '" + name + "' has " + partitions + " partitions in all;"
                    + " a topic has at most " + Integer.MAX_VALUE));
        }
        return problems.size() == before ? new LogicalTopic(name, segments) : null;
    }

    private int route(String path, Object raw) {
        if (raw == null) {
            problems.add(new RoutingProblem(path, "segment needs a route; routes: " + routeNames));
            return -1;
        }
        String name = shapes.string(path, raw);
        if (name == null) {
            return -1;
        }
        int route = routeNames.indexOf(name);
        if (route < 0) {
            problems.add(new RoutingProblem(path, "route '" + name + "' does not exist; routes: " + routeNames));
        }
        return route;
    }

    private String physicalTopic(String path, Object raw) {
        if (raw == null) {
            problems.add(new RoutingProblem(path, "segment needs a topic: the physical topic's name on its route"));
            return null;
        }
        String name = shapes.string(path, raw);
        if (name == null) {
            return null;
        }
        if (name.isEmpty()) {
            problems.add(new RoutingProblem(path, "topic name is empty; name the physical topic on its route"));
            return null;
        }
        if (!Topic.isValid(name)) {
            // no such topic can exist on a cluster, so the segment could never be served
            problems.add(new RoutingProblem(path, "topic name '" + name + "' is not a valid Kafka topic name; " + TOPIC_NAME_RULE));
            return null;
        }
        return name;
    }

    /** A well-formed partition range, both ends included, each within 0..2147483647. */
    private record Range(long first, long last) {
        long size() {
            return last - first + 1;
        }
    }

    /** {@code A-B} or {@code N}: a string, or a number as YAML reads {@code 3}; null when malformed. */
    private Range partitions(String path, Object raw) {
        return switch (raw) {
            case null -> {
                problems.add(new RoutingProblem(path, "segment needs partitions; " + RANGE_HINT));
                yield null;
            }
            case Integer n -> number(path, n.longValue());
            case Long n -> number(path, n);
            case java.math.BigInteger n -> {
                problems.add(new RoutingProblem(path, "partition " + n + " is " + (n.signum() < 0 ? "negative; partitions are"
                        + " numbered from 0" : "beyond the largest partition number " + Integer.MAX_VALUE)));
                yield null;
            }
            case String s -> text(path, s);
            default -> {
                problems.add(new RoutingProblem(path, RawSettings.describe(raw) + " is not a partition range; " + RANGE_HINT));
                yield null;
            }
        };
    }

    private Range number(String path, long n) {
        if (n < 0) {
            problems.add(new RoutingProblem(path, "partition " + n + " is negative; partitions are numbered from 0"));
            return null;
        }
        if (n > Integer.MAX_VALUE) {
            problems.add(new RoutingProblem(path, "partition " + n + " is beyond the largest partition number " + Integer.MAX_VALUE));
            return null;
        }
        return new Range(n, n);
    }

    private Range text(String path, String s) {
        Matcher m = RANGE.matcher(s.strip());
        if (!m.matches()) {
            problems.add(new RoutingProblem(path, "'" + s + "' is not a partition range; " + RANGE_HINT));
            return null;
        }
        String first = m.group(1);
        String last = m.group(2) != null ? m.group(2) : first;
        for (String digits : new String[] {first, last}) {
            // more than 10 digits is beyond any int (and past 19 would not even parse as a long)
            if (digits.length() > 10 || Long.parseLong(digits) > Integer.MAX_VALUE) {
                problems.add(new RoutingProblem(path, "partition " + digits + " in '" + s + "' is beyond the largest"
                        + " partition number " + Integer.MAX_VALUE));
                return null;
            }
        }
        long a = Long.parseLong(first);
        long b = Long.parseLong(last);
        if (b < a) {
            problems.add(new RoutingProblem(path, "range '" + s + "' ends before it starts; write A-B with A <= B"
                    + " (e.g. " + b + "-" + a + ")"));
            return null;
        }
        return new Range(a, b);
    }

    /**
     * Reports every earlier segment that takes a physical partition {@code next} also takes: in one logical
     * topic a record would have two virtual partitions; across two, two topics would share records.
     */
    private void overlaps(Placed next) {
        Segment s = next.segment();
        for (Placed earlier : placed) {
            Segment e = earlier.segment();
            if (!s.samePhysicalTopic(e)) {
                continue;
            }
            int first = Math.max(s.firstPartition(), e.firstPartition());
            int last = Math.min(s.lastPartition(), e.lastPartition());
            if (first > last) {
                continue;
            }
            boolean one = first == last;
            String taken = (one ? "partition " : "partitions ") + Segment.range(first, last) + " of topic '" + s.topic()
                    + "' on route '" + s.routeName() + "' " + (one ? "is" : "are");
            String where = "segment [" + earlier.index() + "] (" + e.range() + ")";
            String message = earlier.logicalTopic().equals(next.logicalTopic())
                    ? taken + " also in " + where + " of this logical topic; a physical partition can be in a logical"
                            + " topic once"
                    : taken + " already in " + where + " of logical topic '" + earlier.logicalTopic() + "'; a physical"
                            + " partition can belong to one logical topic only";
            problems.add(new RoutingProblem(next.path() + ".partitions", message));
        }
        placed.add(next);
    }





}
