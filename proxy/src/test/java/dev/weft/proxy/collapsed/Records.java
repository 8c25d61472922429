package dev.weft.proxy.collapsed;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * Records with keys, binary values and headers (repeated keys, empty and null header values), made
 * from a seed; and the check that what arrived is exactly what was acknowledged: every record once, at
 * the partition and offset the producer was told, byte-identical (key, value, headers in order), and
 * in offset order per partition for each receiver.
 */
final class Records {

    private Records() {
    }

    /** One record to send; {@code seq} is its place in send order. */
    record Sent(int seq, String key, byte[] value, List<Header> headers) {

        ProducerRecord<byte[], byte[]> toProducerRecord(String topic) {
            return new ProducerRecord<>(topic, null, key.getBytes(StandardCharsets.UTF_8), value,
                    new ArrayList<>(headers));
        }
    }

    /** What a consumer received. */
    record Got(String member, int partition, long offset, String key, byte[] value, List<Header> headers) {

        static Got of(String member, ConsumerRecord<byte[], byte[]> r) {
            List<Header> h = new ArrayList<>();
            r.headers().forEach(x -> h.add(new RecordHeader(x.key(), x.value())));
            return new Got(member, r.partition(), r.offset(), r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8),
                    r.value(), h);
        }

        String where() {
            return key + "@" + partition + ":" + offset + (member.isEmpty() ? "" : " by " + member);
        }
    }

    /** Where the producer was told a record went. */
    record Acked(Sent sent, int partition, long offset) {
    }

    /** {@code count} records {@code <prefix>-<seq>}, values of 0 to {@code maxValueBytes} random bytes. */
    static List<Sent> make(String prefix, int count, long seed, int maxValueBytes) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Sent> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            byte[] value = new byte[i == 0 ? 0 : random.nextInt(maxValueBytes + 1)];
            random.nextBytes(value);
            List<Header> headers = new ArrayList<>();
            headers.add(new RecordHeader("seq", ByteBuffer.allocate(4).putInt(i).array()));
            if (i % 3 == 0) {
                headers.add(new RecordHeader("trace", ("t-" + Long.toHexString(random.nextLong())).getBytes(StandardCharsets.UTF_8)));
            }
            if (i % 5 == 0) {
                headers.add(new RecordHeader("dup", new byte[] {1}));
                headers.add(new RecordHeader("dup", new byte[] {2, 3}));
            }
            if (i % 7 == 0) {
                headers.add(new RecordHeader("null-value", null));
            }
            if (i % 11 == 0) {
                headers.add(new RecordHeader("empty", new byte[0]));
            }
            out.add(new Sent(i, prefix + "-" + String.format("%06d", i), value, List.copyOf(headers)));
        }
        return out;
    }

    /**
     * Every acknowledged record arrived exactly once, at its acknowledged partition and offset, with the
     * same key, value and headers; nothing else arrived; each receiver saw each partition in increasing
     * offset order; per partition, offsets follow send order.
     *
     * @param acked by key
     * @return records per partition (for reports)
     */
    static Map<Integer, Integer> verifyExactlyOnce(Map<String, Acked> acked, List<Got> got, Supplier<String> context) {
        List<String> errors = new ArrayList<>();
        Map<String, Got> first = new HashMap<>();
        Map<String, Long> lastOffset = new HashMap<>();
        for (Got g : got) {
            Acked a = g.key() == null ? null : acked.get(g.key());
            if (a == null) {
                errors.add("unexpected record " + g.where());
                continue;
            }
            Got earlier = first.putIfAbsent(g.key(), g);
            if (earlier != null) {
                errors.add("duplicate " + g.key() + ": first " + earlier.where() + ", again " + g.where());
            }
            if (a.partition() != g.partition() || a.offset() != g.offset()) {
                errors.add(g.key() + " acknowledged at " + a.partition() + ":" + a.offset() + ", arrived as " + g.where());
            }
            if (!Arrays.equals(a.sent().value(), g.value())) {
                errors.add("value of " + g.where() + " differs: sent " + a.sent().value().length + " bytes, got "
                        + (g.value() == null ? "null" : g.value().length + " bytes, first difference at "
                        + Arrays.mismatch(a.sent().value(), g.value())));
            }
            if (!sameHeaders(a.sent().headers(), g.headers())) {
                errors.add("headers of " + g.where() + " differ: sent " + describe(a.sent().headers()) + ", got "
                        + describe(g.headers()));
            }
            String stream = g.member() + "/" + g.partition();
            Long previous = lastOffset.put(stream, g.offset());
            if (previous != null && previous >= g.offset()) {
                errors.add("out of order at " + stream + ": offset " + g.offset() + " after " + previous);
            }
        }
        List<String> missing = new ArrayList<>();
        for (String key : acked.keySet()) {
            if (!first.containsKey(key)) {
                missing.add(key);
            }
        }
        if (!missing.isEmpty()) {
            errors.add(missing.size() + " acknowledged record(s) never arrived, e.g. " + missing.stream().sorted().limit(10).toList());
        }
        Map<Integer, List<Acked>> byPartition = new TreeMap<>();
        acked.values().forEach(a -> byPartition.computeIfAbsent(a.partition(), p -> new ArrayList<>()).add(a));
        Map<Integer, Integer> counts = new TreeMap<>();
        byPartition.forEach((p, list) -> {
            list.sort((x, y) -> Long.compare(x.offset(), y.offset()));
            counts.put(p, list.size());
            for (int i = 1; i < list.size(); i++) {
                if (list.get(i - 1).sent().seq() > list.get(i).sent().seq()) {
                    errors.add("send order broken in partition " + p + ": " + list.get(i - 1).sent().key() + " at offset "
                            + list.get(i - 1).offset() + " before " + list.get(i).sent().key() + " at " + list.get(i).offset());
                }
            }
        });
        if (!errors.isEmpty()) {
            StringBuilder m = new StringBuilder(errors.size() + " problem(s) with " + got.size() + " record(s) received, "
                    + acked.size() + " acknowledged:\n");
            errors.stream().limit(25).forEach(e -> m.append("  ").append(e).append('\n'));
            if (errors.size() > 25) {
                m.append("  ...\n");
            }
            throw new AssertionError(m.append(context.get()).toString());
        }
        return counts;
    }

    static boolean sameHeaders(List<Header> a, List<Header> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!a.get(i).key().equals(b.get(i).key()) || !Arrays.equals(a.get(i).value(), b.get(i).value())) {
                return false;
            }
        }
        return true;
    }

    private static String describe(List<Header> headers) {
        List<String> out = new ArrayList<>();
        for (Header h : headers) {
            out.add(h.key() + "=" + (h.value() == null ? "null" : Arrays.toString(h.value())));
        }
        return out.toString();
    }
}
