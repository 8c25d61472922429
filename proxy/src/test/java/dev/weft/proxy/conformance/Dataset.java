package dev.weft.proxy.conformance;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/**
 * Records a test sends, made deterministically from a seed: key {@code <prefix>-<seq>} and a value
 * of varied length (empty included), either arbitrary bytes or, for tools that print values as text,
 * letters and digits only.
 */
public final class Dataset {

    private static final char[] PRINTABLE =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".toCharArray();

    /** One record: its position in send order, key and value. */
    public record Entry(int seq, String key, byte[] value) {
        public byte[] keyBytes() {
            return key.getBytes(StandardCharsets.UTF_8);
        }
    }

    private final String prefix;
    private final List<Entry> entries;
    private final Map<String, Entry> byKey;

    private Dataset(String prefix, List<Entry> entries) {
        this.prefix = prefix;
        this.entries = List.copyOf(entries);
        Map<String, Entry> index = new HashMap<>();
        for (Entry e : entries) {
            index.put(e.key(), e);
        }
        this.byKey = Collections.unmodifiableMap(index);
    }

    /** {@code count} records with arbitrary byte values of 0 to {@code maxValueBytes} bytes. */
    public static Dataset binary(String prefix, int count, long seed, int maxValueBytes) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Entry> entries = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            byte[] value = new byte[i == 0 ? 0 : random.nextInt(maxValueBytes + 1)];
            random.nextBytes(value);
            entries.add(new Entry(i, key(prefix, i), value));
        }
        return new Dataset(prefix, entries);
    }

    /** {@code count} records whose values are 1 to {@code maxValueChars} letters and digits. */
    public static Dataset printable(String prefix, int count, long seed, int maxValueChars) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Entry> entries = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int length = 1 + random.nextInt(maxValueChars);
            byte[] value = new byte[length];
            for (int j = 0; j < length; j++) {
                value[j] = (byte) PRINTABLE[random.nextInt(PRINTABLE.length)];
            }
            entries.add(new Entry(i, key(prefix, i), value));
        }
        return new Dataset(prefix, entries);
    }

    private static String key(String prefix, int seq) {
        return prefix + "-" + String.format("%06d", seq);
    }

    public String prefix() {
        return prefix;
    }

    public List<Entry> entries() {
        return entries;
    }

    public int size() {
        return entries.size();
    }

    /** The entry with {@code key}, or null when the key is not one of this dataset's. */
    public Entry entry(String key) {
        return byKey.get(key);
    }

    /** This dataset restricted to the given entries, in their order (for a slice a test expects). */
    Dataset subset(List<Entry> selected) {
        return new Dataset(prefix, selected);
    }

    /** CRC32C over every entry in send order (key length, key, value length, value). */
    public long checksum() {
        return checksum(entries);
    }

    static long checksum(List<Entry> entries) {
        CRC32C crc = new CRC32C();
        for (Entry e : entries) {
            byte[] k = e.keyBytes();
            crc.update(intBytes(k.length));
            crc.update(k);
            crc.update(intBytes(e.value().length));
            crc.update(e.value());
        }
        return crc.getValue();
    }

    private static byte[] intBytes(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    /**
     * Writes one line per record, {@code key<TAB>value}, the value in base64 ({@code base64}) or as it
     * is (printable datasets only).
     */
    public Path writeTsv(Path file, boolean base64) throws IOException {
        StringBuilder out = new StringBuilder(entries.size() * 64);
        Base64.Encoder encoder = Base64.getEncoder();
        for (Entry e : entries) {
            out.append(e.key()).append('\t')
                    .append(base64 ? encoder.encodeToString(e.value()) : new String(e.value(), StandardCharsets.US_ASCII))
                    .append('\n');
        }
        Files.writeString(file, out, StandardCharsets.US_ASCII);
        return file;
    }

    @Override
    public String toString() {
        return "dataset " + prefix + " (" + entries.size() + " records, crc32c " + Long.toHexString(checksum()) + ")";
    }
}
