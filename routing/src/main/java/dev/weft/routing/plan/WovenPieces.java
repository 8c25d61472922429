package dev.weft.routing.plan;

import dev.weft.routing.TopicSegment;
import dev.weft.routing.VisibleTopic;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntUnaryOperator;

/**
 * A request entry naming a partition-woven topic, split into the pieces it goes out as: one per (route,
 * real topic) its named partitions live on, each with the renumbering there and back; partitions the
 * woven topic does not have are kept apart (answered UNKNOWN_TOPIC_OR_PARTITION).
 */
final class WovenPieces {

    /** The partitions of one real topic behind one route that an entry names (one or more segments of it). */
    record Piece(int route, String realName, org.apache.kafka.common.Uuid realId, List<TopicSegment> segments,
            Set<Integer> virtualPartitions) {

        /** Virtual → real for the partitions this piece takes; -1 for the others. */
        IntUnaryOperator toReal() {
            return vp -> {
                if (!virtualPartitions.contains(vp)) {
                    return -1;
                }
                for (TopicSegment s : segments) {
                    if (s.holdsVirtual(vp)) {
                        return s.toReal(vp);
                    }
                }
                return -1;
            };
        }

        /** Real → virtual for the partitions this piece asked for; -1 for the others (not asked, or another segment's). */
        IntUnaryOperator toVirtual() {
            return rp -> {
                for (TopicSegment s : segments) {
                    int vp = s.toVirtual(rp);
                    if (vp >= 0 && virtualPartitions.contains(vp)) {
                        return vp;
                    }
                }
                return -1;
            };
        }

        /** Keeps only this piece's virtual partitions (on a copy of the client's entry). */
        IntUnaryOperator keep() {
            return vp -> virtualPartitions.contains(vp) ? vp : -1;
        }
    }

    private final List<Piece> pieces;
    private final Set<Integer> unknown;

    private WovenPieces(List<Piece> pieces, Set<Integer> unknown) {
        this.pieces = pieces;
        this.unknown = unknown;
    }

    static WovenPieces of(VisibleTopic topic, List<Integer> partitions) {
        Map<List<Object>, Piece> byRealTopic = new LinkedHashMap<>();
        Set<Integer> unknown = new TreeSet<>();
        for (int vp : partitions) {
            TopicSegment s = topic.segments().of(vp);
            if (s == null) {
                unknown.add(vp);
                continue;
            }
            Piece p = byRealTopic.computeIfAbsent(List.of(s.route(), s.realName()),
                    k -> new Piece(s.route(), s.realName(), s.realId(), new ArrayList<>(), new TreeSet<>()));
            if (!p.segments().contains(s)) {
                p.segments().add(s);
            }
            p.virtualPartitions().add(vp);
        }
        return new WovenPieces(List.copyOf(byRealTopic.values()), unknown);
    }

    /** One piece per (route, real topic) of every segment: for APIs that name a topic, not partitions. */
    static WovenPieces perRealTopic(VisibleTopic topic) {
        List<Integer> all = new ArrayList<>(topic.segments().partitionCount());
        for (int v = 0; v < topic.segments().partitionCount(); v++) {
            all.add(v);
        }
        return of(topic, all);
    }

    List<Piece> pieces() {
        return pieces;
    }

    /** The named partitions the topic does not have. */
    Set<Integer> unknown() {
        return unknown;
    }

    /** Keeps only the partitions the topic does not have. */
    IntUnaryOperator keepUnknown() {
        return vp -> unknown.contains(vp) ? vp : -1;
    }
}
