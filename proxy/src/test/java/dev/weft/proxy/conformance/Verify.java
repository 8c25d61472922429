package dev.weft.proxy.conformance;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/** Checks of what arrived against what was sent. */
public final class Verify {

    private static final int MAX_REPORTED = 20;

    private Verify() {
    }

    /** What a check found, for messages and reports. */
    public record Summary(int sent, int arrived, int distinct, int duplicates, long sentCrc, long arrivedCrc,
                   Map<Integer, Integer> perPartition) {
        @Override
        public String toString() {
            return "sent " + sent + ", arrived " + arrived + " (" + distinct + " distinct, " + duplicates
                    + " redelivered), crc32c sent " + Long.toHexString(sentCrc) + " arrived "
                    + Long.toHexString(arrivedCrc) + ", per partition " + perPartition;
        }
    }

    /**
     * Every record of {@code sent} arrived exactly once, byte-identical, and nothing else arrived; for
     * each receiver and partition, offsets strictly increase in arrival order; in each partition the
     * send order is kept (sequence numbers increase with offsets).
     */
    public static Summary exactlyOnce(Dataset sent, List<Arrived> arrived, Supplier<String> context) {
        return check(sent, arrived, false, context);
    }

    /**
     * Like {@link #exactlyOnce} but a record may arrive more than once (a group redelivering what was
     * processed but not yet committed when a partition moved): each redelivery must be the same record
     * (same partition, offset and bytes). Arrival order is not checked here (the caller checks it per
     * assignment); send order per partition is.
     */
    public static Summary atLeastOnce(Dataset sent, List<Arrived> arrived, Supplier<String> context) {
        return check(sent, arrived, true, context);
    }

    private static Summary check(Dataset sent, List<Arrived> arrived, boolean redeliveryAllowed,
                                 Supplier<String> context) {
        List<String> errors = new ArrayList<>();
        Map<String, Arrived> firstByKey = new HashMap<>();
        int duplicates = 0;
        Map<String, Long> lastOffset = new HashMap<>(); // member/partition -> offset
        for (Arrived a : arrived) {
            Dataset.Entry expected = a.key() == null ? null : sent.entry(a.key());
            if (expected == null) {
                errors.add("unexpected record " + describe(a));
                continue;
            }
            if (!Arrays.equals(expected.value(), a.value())) {
                errors.add("value of " + a.key() + " differs: sent " + expected.value().length + " bytes, got "
                        + a.value().length + " bytes, first difference at byte "
                        + Arrays.mismatch(expected.value(), a.value()) + " (" + describe(a) + ")");
            }
            Arrived first = firstByKey.putIfAbsent(a.key(), a);
            if (first != null) {
                duplicates++;
                if (!redeliveryAllowed) {
                    errors.add("duplicate " + a.key() + ": first " + describe(first) + ", again " + describe(a));
                } else if (first.partition() != a.partition() || first.offset() != a.offset()) {
                    errors.add("record " + a.key() + " was written twice: " + describe(first) + " and " + describe(a));
                }
            }
            if (!redeliveryAllowed) {
                String stream = a.member() + "/" + a.partition();
                Long previous = lastOffset.put(stream, a.offset());
                if (previous != null && previous >= a.offset()) {
                    errors.add("out of order at " + stream + ": offset " + a.offset() + " after " + previous);
                }
            }
        }
        int missing = 0;
        List<String> missingKeys = new ArrayList<>();
        for (Dataset.Entry e : sent.entries()) {
            if (!firstByKey.containsKey(e.key())) {
                missing++;
                if (missingKeys.size() < 10) {
                    missingKeys.add(e.key());
                }
            }
        }
        if (missing > 0) {
            errors.add(missing + " record(s) never arrived, e.g. " + missingKeys);
        }
        // Send order per partition: in offset order, sequence numbers increase.
        Map<Integer, List<Arrived>> byPartition = new TreeMap<>();
        for (Arrived a : firstByKey.values()) {
            byPartition.computeIfAbsent(a.partition(), p -> new ArrayList<>()).add(a);
        }
        Map<Integer, Integer> perPartition = new LinkedHashMap<>();
        for (Map.Entry<Integer, List<Arrived>> p : byPartition.entrySet()) {
            List<Arrived> records = p.getValue();
            records.sort(Comparator.comparingLong(Arrived::offset));
            perPartition.put(p.getKey(), records.size());
            for (int i = 1; i < records.size(); i++) {
                Arrived prev = records.get(i - 1);
                Arrived cur = records.get(i);
                if (prev.offset() == cur.offset()) {
                    errors.add("two records at partition " + p.getKey() + " offset " + cur.offset() + ": "
                            + prev.key() + " and " + cur.key());
                } else if (sent.entry(prev.key()).seq() > sent.entry(cur.key()).seq()) {
                    errors.add("send order broken in partition " + p.getKey() + ": " + describe(prev)
                            + " before " + describe(cur));
                }
            }
        }
        List<Dataset.Entry> arrivedEntries = new ArrayList<>();
        for (Dataset.Entry e : sent.entries()) {
            Arrived a = firstByKey.get(e.key());
            if (a != null) {
                arrivedEntries.add(new Dataset.Entry(e.seq(), a.key(), a.value()));
            }
        }
        Summary summary = new Summary(sent.size(), arrived.size(), firstByKey.size(), duplicates, sent.checksum(),
                Dataset.checksum(arrivedEntries), perPartition);
        if (!errors.isEmpty()) {
            StringBuilder message = new StringBuilder("content check failed for ").append(sent).append(": ")
                    .append(summary).append('\n').append(errors.size()).append(" problem(s):\n");
            errors.stream().limit(MAX_REPORTED).forEach(e -> message.append("  ").append(e).append('\n'));
            if (errors.size() > MAX_REPORTED) {
                message.append("  ...\n");
            }
            message.append(context.get());
            throw new AssertionError(message.toString());
        }
        if (summary.sentCrc() != summary.arrivedCrc()) {
            throw new AssertionError("checksums differ although every record matched: " + summary + "\n" + context.get());
        }
        return summary;
    }

    /**
     * The distinct (partition, offset) pairs that arrived are exactly those the producer was acknowledged
     * ({@code produced}: offsets by partition, from the producer's metadata).
     */
    public static void sameOffsets(Map<Integer, List<Long>> produced, List<Arrived> arrived, Supplier<String> context) {
        Map<Integer, java.util.SortedSet<Long>> got = new TreeMap<>();
        for (Arrived a : arrived) {
            got.computeIfAbsent(a.partition(), p -> new java.util.TreeSet<>()).add(a.offset());
        }
        Map<Integer, java.util.SortedSet<Long>> want = new TreeMap<>();
        produced.forEach((p, offsets) -> want.put(p, new java.util.TreeSet<>(offsets)));
        if (!want.equals(got)) {
            StringBuilder diff = new StringBuilder();
            for (Integer p : new java.util.TreeSet<>(union(want.keySet(), got.keySet()))) {
                java.util.SortedSet<Long> w = want.getOrDefault(p, new java.util.TreeSet<>());
                java.util.SortedSet<Long> g = got.getOrDefault(p, new java.util.TreeSet<>());
                if (!w.equals(g)) {
                    diff.append("  partition ").append(p).append(": acknowledged ").append(w.size())
                            .append(" offsets ").append(range(w)).append(", arrived ").append(g.size())
                            .append(" offsets ").append(range(g)).append('\n');
                }
            }
            throw new AssertionError("arrived offsets differ from the acknowledged ones:\n" + diff + context.get());
        }
    }

    private static java.util.Set<Integer> union(java.util.Set<Integer> a, java.util.Set<Integer> b) {
        java.util.Set<Integer> u = new java.util.HashSet<>(a);
        u.addAll(b);
        return u;
    }

    private static String range(java.util.SortedSet<Long> s) {
        return s.isEmpty() ? "[]" : "[" + s.first() + ".." + s.last() + "]";
    }

    private static String describe(Arrived a) {
        return a.key() + "@" + a.partition() + ":" + a.offset() + (a.member().isEmpty() ? "" : " by " + a.member());
    }

    /**
     * The end of a partition: one past the highest acknowledged offset, not the last acknowledgement's:
     * {@code @confluentinc/kafka-javascript} serves delivery reports on two threads at once while the producer
     * flushes (flush() polls librdkafka's queue on a libuv worker while setPollInterval polls on the JS
     * thread), so under CPU load one batch's reports can reach JS after a later batch's (seen in CI: the
     * last ack of rdkafka-orders-0 was offset 189 of 0..377, and the correct commit 378 was taken for wrong).
     */
    public static long endOf(List<Long> acknowledged) {
        return java.util.Collections.max(acknowledged) + 1;
    }
}
