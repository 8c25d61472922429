package dev.weft.routing.plan;

import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;

/**
 * How one API's topic entries carry partition indexes, so a partition-woven topic's entries can be split
 * by segment, renumbered, and put back together: what an API with partitions gives {@link TopicsByRoute}
 * and {@link TopicListPlanner}.
 *
 * @param requested the partition indexes a request entry names
 * @param renumberRequest rewrites a request entry (a copy) in place: each partition p becomes
 *     {@code f(p)}, or is removed when {@code f(p)} is -1
 * @param renumberResult the same for a response entry
 * @param appendResult appends the second response entry's partitions to the first's (same topic)
 * @param <E> request topic entry
 * @param <T> response topic entry
 */
record PartitionLists<E, T>(Function<E, List<Integer>> requested, BiConsumer<E, IntUnaryOperator> renumberRequest,
        BiConsumer<T, IntUnaryOperator> renumberResult, BiConsumer<T, T> appendResult) {

    /**
     * Renumbers a list of partition objects in place (their index read and written through the
     * accessors), dropping those {@code f} maps to -1: the common body of every API's renumbering.
     */
    static <P> List<P> renumbered(List<P> partitions, Function<P, Integer> index, BiConsumer<P, Integer> setIndex,
            IntUnaryOperator f) {
        List<P> out = new java.util.ArrayList<>(partitions.size());
        for (P p : partitions) {
            int q = f.applyAsInt(index.apply(p));
            if (q >= 0) {
                setIndex.accept(p, q);
                out.add(p);
            }
        }
        return out;
    }

    /** A new list of both lists' elements (either may be immutable). */
    static <P> List<P> concat(List<P> a, List<P> b) {
        List<P> out = new java.util.ArrayList<>(a.size() + b.size());
        out.addAll(a);
        out.addAll(b);
        return out;
    }

    /**
     * The lists of an API whose request entries list partition objects and whose response entries list
     * partition results, both in plain lists (the common shape).
     */
    static <E, P, T, Q> PartitionLists<E, T> of(Function<E, List<P>> requestPartitions, BiConsumer<E, List<P>> setRequestPartitions,
            Function<P, Integer> requestIndex, BiConsumer<P, Integer> setRequestIndex,
            Function<T, List<Q>> resultPartitions, BiConsumer<T, List<Q>> setResultPartitions,
            Function<Q, Integer> resultIndex, BiConsumer<Q, Integer> setResultIndex) {
        return new PartitionLists<>(
                e -> requestPartitions.apply(e).stream().map(requestIndex).toList(),
                (e, f) -> setRequestPartitions.accept(e, renumbered(requestPartitions.apply(e), requestIndex, setRequestIndex, f)),
                (t, f) -> setResultPartitions.accept(t, renumbered(resultPartitions.apply(t), resultIndex, setResultIndex, f)),
                (into, from) -> setResultPartitions.accept(into, concat(resultPartitions.apply(into), resultPartitions.apply(from))));
    }

    /** Renumbers a list of plain partition indexes, dropping those {@code f} maps to -1. */
    static List<Integer> renumbered(List<Integer> partitions, IntUnaryOperator f) {
        List<Integer> out = new java.util.ArrayList<>(partitions.size());
        for (int p : partitions) {
            int q = f.applyAsInt(p);
            if (q >= 0) {
                out.add(q);
            }
        }
        return out;
    }
}
