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

    /**
     * The response results of an entry whose results are a keyed collection (kafka-clients'
     * {@code ImplicitLinkedHashCollection}s, which an element belongs to once): renumbering builds a new
     * collection of copies, appending adds copies.
     *
     * @param results the entry's results
     * @param setResults replaces them
     * @param newCollection an empty collection of the results' type
     */
    static <T, Q extends org.apache.kafka.common.protocol.Message, C extends java.util.Collection<Q>> BiConsumer<T, IntUnaryOperator>
            renumberCollection(Function<T, C> results, BiConsumer<T, C> setResults, java.util.function.Supplier<C> newCollection,
                    java.util.function.ToIntFunction<Q> index, BiConsumer<Q, Integer> setIndex) {
        return (t, f) -> {
            C out = newCollection.get();
            for (Q q : results.apply(t)) {
                int to = f.applyAsInt(index.applyAsInt(q));
                if (to >= 0) {
                    Q copy = copyOf(q);
                    setIndex.accept(copy, to);
                    out.add(copy);
                }
            }
            setResults.accept(t, out);
        };
    }

    /** Appends copies of the second entry's results to the first's (a keyed collection, see {@link #renumberCollection}). */
    static <T, Q extends org.apache.kafka.common.protocol.Message, C extends java.util.Collection<Q>> BiConsumer<T, T>
            appendCollection(Function<T, C> results) {
        return (into, from) -> results.apply(from).forEach(q -> results.apply(into).add(copyOf(q)));
    }

    @SuppressWarnings("unchecked")
    private static <Q extends org.apache.kafka.common.protocol.Message> Q copyOf(Q q) {
        return (Q) q.duplicate();
    }

    /**
     * The lists of an API whose request entries list plain partition indexes and whose response entries
     * list partition results in a plain list.
     */
    static <E, T, Q> PartitionLists<E, T> ofIndexes(Function<E, List<Integer>> requestIndexes,
            BiConsumer<E, List<Integer>> setRequestIndexes, Function<T, List<Q>> resultPartitions,
            BiConsumer<T, List<Q>> setResultPartitions, Function<Q, Integer> resultIndex, BiConsumer<Q, Integer> setResultIndex) {
        return new PartitionLists<>(requestIndexes, (e, f) -> setRequestIndexes.accept(e, renumbered(requestIndexes.apply(e), f)),
                (t, f) -> setResultPartitions.accept(t, renumbered(resultPartitions.apply(t), resultIndex, setResultIndex, f)),
                (into, from) -> setResultPartitions.accept(into, concat(resultPartitions.apply(into), resultPartitions.apply(from))));
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
