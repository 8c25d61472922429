package dev.weft.protocol.testing;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.protocol.DataOutputStreamWritable;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.protocol.types.ArrayOf;
import org.apache.kafka.common.protocol.types.BoundField;
import org.apache.kafka.common.protocol.types.CompactArrayOf;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.NullableSchema;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.TaggedFields;
import org.apache.kafka.common.protocol.types.Type;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Writes random bytes that conform to a kafka-clients {@link Schema}: one of the per-version schemas
 * every generated {@code *Data} class publishes ({@code ApiMessageType.requestSchemas()[version]}).
 *
 * <p>Walking the schema rather than the Java classes means the generator knows exactly which fields
 * exist at which version, which are nullable, and which are tagged, without a copy of the JSON specs.
 * kafka-clients then reads the bytes into a {@code *Data} object: that object is the random message,
 * and the read checks the generator at the same time.
 *
 * <p>What it produces: every field of the version; integers biased to edges (0, -1, min, max);
 * strings with non-ASCII and 4-byte UTF-8; null for nullable strings, bytes, arrays, structs and
 * records; empty arrays; nested structs with array lengths shrinking with depth; real
 * {@link MemoryRecords} batches (plain, gzip, idempotent, transactional, with headers) in records
 * fields; known tagged fields at random, plus unknown tagged fields (tags the version does not define,
 * including very large ones) that the generated classes must carry through.
 */
public final class RandomSchemaBytes {

    private static final String[] STRING_PIECES = {
        "a", "b", "z", "A", "Q", "0", "7", "-", "_", ".", " ", "topic", "weft",
        "é", "ß", "ø", "中", "文", "ру", "🙂", "𝄞", "\u0000", "\t"
    };

    private static final int[] EDGE_INTS = {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 0x7f, 0x80, 0x3fff, 0x4000};
    private static final long[] EDGE_LONGS = {0L, 1L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, Integer.MAX_VALUE + 1L};
    // Integer.MAX_VALUE itself is not usable: kafka-clients' RawTaggedFieldWriter uses it as its "flush all" sentinel.
    private static final int[] BIG_UNKNOWN_TAGS = {127, 128, 16_383, 16_384, 1_000_000, Integer.MAX_VALUE - 1};

    private static final List<byte[]> RECORD_BATCHES = recordBatches();

    /**
     * What all generators of this JVM produced, so a test can show (and assert) that the random
     * messages really contain each kind of value, not just defaults.
     */
    public static final class Coverage {
        public static final LongAdder NULLS = new LongAdder();
        public static final LongAdder EMPTY_ARRAYS = new LongAdder();
        public static final LongAdder KNOWN_TAGGED_FIELDS = new LongAdder();
        public static final LongAdder UNKNOWN_TAGGED_FIELDS = new LongAdder();
        public static final LongAdder RECORD_BATCHES = new LongAdder();
        public static final LongAdder NON_ASCII_STRINGS = new LongAdder();
        /** Names of the types a value was generated for ("INT32", "COMPACT_NULLABLE_STRING", "ARRAY"...). */
        public static final Set<String> TYPES = ConcurrentHashMap.newKeySet();

        private Coverage() {
        }

        public static String summary() {
            return NULLS.sum() + " nulls, " + EMPTY_ARRAYS.sum() + " empty arrays, " + KNOWN_TAGGED_FIELDS.sum()
                    + " known + " + UNKNOWN_TAGGED_FIELDS.sum() + " unknown tagged fields, " + RECORD_BATCHES.sum()
                    + " records fields with batches, " + NON_ASCII_STRINGS.sum() + " non-ASCII strings, "
                    + TYPES.size() + " wire types";
        }
    }

    private final SplittableRandom random;
    private final Set<Integer> reservedTags;

    /** A generator for values only (strings, bytes): schemas it walks get no unknown tagged fields. */
    public RandomSchemaBytes(SplittableRandom random) {
        this(random, null);
    }

    /**
     * @param reservedTags tags that unknown tagged fields must not use: every tag the message defines
     *     at any version ({@link #tagsOfAnyVersion}). kafka-clients refuses a tag that a field uses at
     *     another version ("Tag 0 is not valid for version 9") instead of keeping it as unknown, so
     *     those are not unknown tags a peer could send. Null: no unknown tagged fields at all.
     */
    public RandomSchemaBytes(SplittableRandom random, Set<Integer> reservedTags) {
        this.random = random;
        this.reservedTags = reservedTags;
    }

    /** Every tag used in any tagged-field section, at any depth, of any of these per-version schemas. */
    public static Set<Integer> tagsOfAnyVersion(Schema[] schemas) {
        Set<Integer> tags = new HashSet<>();
        Set<Type> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Schema schema : schemas) {
            if (schema != null) {
                collectTags(schema, tags, seen);
            }
        }
        return Set.copyOf(tags);
    }

    private static void collectTags(Type type, Set<Integer> tags, Set<Type> seen) {
        if (!seen.add(type)) {
            return;
        }
        if (type instanceof Schema schema) {
            for (BoundField field : schema.fields()) {
                collectTags(field.def.type, tags, seen);
            }
        } else if (type instanceof TaggedFields tagged) {
            for (Map.Entry<Integer, Field> entry : tagged.fields().entrySet()) {
                tags.add(entry.getKey());
                collectTags(entry.getValue().type, tags, seen);
            }
        } else if (type.isArray()) {
            collectTags(type.arrayElementType().orElseThrow(), tags, seen);
        }
    }

    /** Random bytes of one message laid out as {@code schema} says. */
    public byte[] generate(Schema schema) {
        return bytesOf(schema, 0);
    }

    private byte[] bytesOf(Type type, int depth) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        DataOutputStreamWritable out = new DataOutputStreamWritable(new DataOutputStream(bytes));
        write(type, out, depth);
        out.flush();
        return bytes.toByteArray();
    }

    private void write(Type type, Writable out, int depth) {
        Coverage.TYPES.add(typeName(type));
        if (type instanceof NullableSchema nullable) {
            // Nullable structs carry a presence byte: -1 for null, 1 for present.
            if (chance(5)) {
                Coverage.NULLS.increment();
                out.writeByte((byte) -1);
            } else {
                out.writeByte((byte) 1);
                writeStruct(nullable, out, depth);
            }
        } else if (type instanceof Schema schema) {
            writeStruct(schema, out, depth);
        } else if (type instanceof TaggedFields tagged) {
            writeTaggedFields(tagged, out, depth);
        } else if (type instanceof ArrayOf || type instanceof CompactArrayOf) {
            writeArray(type, out, depth);
        } else {
            writePrimitive(type, out);
        }
    }

    private void writeStruct(Schema schema, Writable out, int depth) {
        for (BoundField field : schema.fields()) {
            write(field.def.type, out, depth + 1);
        }
    }

    private void writeArray(Type type, Writable out, int depth) {
        boolean compact = type instanceof CompactArrayOf;
        Type element = type.arrayElementType().orElseThrow();
        int length;
        if (type.isNullable() && chance(6)) {
            length = -1;
            Coverage.NULLS.increment();
        } else {
            int max = depth <= 2 ? 3 : depth <= 5 ? 2 : 1;
            length = random.nextInt(max + 1);
            if (length == 0) {
                Coverage.EMPTY_ARRAYS.increment();
            }
        }
        if (compact) {
            out.writeUnsignedVarint(length + 1);
        } else {
            out.writeInt(length);
        }
        for (int i = 0; i < length; i++) {
            write(element, out, depth + 1);
        }
    }

    /**
     * A random subset of the known tags (values written through their types) merged with a few unknown
     * tags, in ascending order as the protocol requires.
     */
    private void writeTaggedFields(TaggedFields tagged, Writable out, int depth) {
        Map<Integer, Field> known = tagged.fields();
        TreeMap<Integer, byte[]> chosen = new TreeMap<>();
        for (Map.Entry<Integer, Field> entry : known.entrySet()) {
            if (random.nextBoolean()) {
                chosen.put(entry.getKey(), bytesOf(entry.getValue().type, depth + 1));
                Coverage.KNOWN_TAGGED_FIELDS.increment();
            }
        }
        int unknown = reservedTags != null && chance(3) ? 1 + random.nextInt(3) : 0;
        for (int i = 0; i < unknown; i++) {
            int tag = chance(4) ? BIG_UNKNOWN_TAGS[random.nextInt(BIG_UNKNOWN_TAGS.length)] : random.nextInt(64);
            if (!known.containsKey(tag) && !reservedTags.contains(tag)) {
                chosen.put(tag, randomBytes(random.nextInt(9)));
                Coverage.UNKNOWN_TAGGED_FIELDS.increment();
            }
        }
        out.writeUnsignedVarint(chosen.size());
        for (Map.Entry<Integer, byte[]> entry : chosen.entrySet()) {
            out.writeUnsignedVarint(entry.getKey());
            out.writeUnsignedVarint(entry.getValue().length);
            out.writeByteArray(entry.getValue());
        }
    }

    private void writePrimitive(Type type, Writable out) {
        if (type == Type.BOOLEAN) {
            out.writeByte((byte) (random.nextBoolean() ? 1 : 0));
        } else if (type == Type.INT8) {
            out.writeByte((byte) randomInt());
        } else if (type == Type.INT16) {
            out.writeShort((short) randomInt());
        } else if (type == Type.UINT16) {
            out.writeShort((short) (randomInt() & 0xffff));
        } else if (type == Type.INT32) {
            out.writeInt(randomInt());
        } else if (type == Type.UNSIGNED_INT32) {
            out.writeInt(randomInt());
        } else if (type == Type.INT64) {
            out.writeLong(randomLong());
        } else if (type == Type.VARINT) {
            out.writeVarint(randomInt());
        } else if (type == Type.VARLONG) {
            out.writeVarlong(randomLong());
        } else if (type == Type.UUID) {
            out.writeLong(chance(8) ? 0L : random.nextLong());
            out.writeLong(chance(8) ? 0L : random.nextLong());
        } else if (type == Type.FLOAT64) {
            // Finite only: NaN is never equal to itself, so message equality could not be checked.
            out.writeDouble(chance(5) ? 0.0 : (random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(-6, 12)));
        } else if (type == Type.STRING || type == Type.NULLABLE_STRING) {
            writeString(type.isNullable(), false, out);
        } else if (type == Type.COMPACT_STRING || type == Type.COMPACT_NULLABLE_STRING) {
            writeString(type.isNullable(), true, out);
        } else if (type == Type.BYTES || type == Type.NULLABLE_BYTES) {
            writeBytes(type.isNullable(), false, randomBytes(random.nextInt(17)), out);
        } else if (type == Type.COMPACT_BYTES || type == Type.COMPACT_NULLABLE_BYTES) {
            writeBytes(type.isNullable(), true, randomBytes(random.nextInt(17)), out);
        } else if (type == Type.RECORDS || type == Type.NULLABLE_RECORDS) {
            writeBytes(type.isNullable(), false, randomRecords(), out);
        } else if (type == Type.COMPACT_RECORDS || type == Type.COMPACT_NULLABLE_RECORDS) {
            writeBytes(type.isNullable(), true, randomRecords(), out);
        } else {
            throw new IllegalStateException("generator does not know type " + type + " (" + type.getClass() + ")");
        }
    }

    private void writeString(boolean nullable, boolean compact, Writable out) {
        if (nullable && chance(5)) {
            Coverage.NULLS.increment();
            writeLength(-1, compact, false, out);
            return;
        }
        String value = randomString();
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        if (utf8.length != value.length()) {
            Coverage.NON_ASCII_STRINGS.increment();
        }
        writeLength(utf8.length, compact, false, out);
        out.writeByteArray(utf8);
    }

    private void writeBytes(boolean nullable, boolean compact, byte[] value, Writable out) {
        if (nullable && chance(5)) {
            Coverage.NULLS.increment();
            writeLength(-1, compact, true, out);
            return;
        }
        writeLength(value.length, compact, true, out);
        out.writeByteArray(value);
    }

    /** Classic strings have an int16 length, classic bytes an int32; compact ones a uvarint of length + 1. */
    private static void writeLength(int length, boolean compact, boolean int32, Writable out) {
        if (compact) {
            out.writeUnsignedVarint(length + 1);
        } else if (int32) {
            out.writeInt(length);
        } else {
            out.writeShort((short) length);
        }
    }

    /** A random string of whole code points: ASCII, Latin-1, CJK, Cyrillic, 4-byte UTF-8, controls. */
    public String randomString() {
        int pieces = chance(10) ? random.nextInt(20, 60) : random.nextInt(9);
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < pieces; i++) {
            s.append(STRING_PIECES[random.nextInt(STRING_PIECES.length)]);
        }
        return s.toString();
    }

    public byte[] randomBytes(int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    private byte[] randomRecords() {
        if (chance(6)) {
            return new byte[0];
        }
        Coverage.RECORD_BATCHES.increment();
        return RECORD_BATCHES.get(random.nextInt(RECORD_BATCHES.size()));
    }

    /** Every wire type used anywhere in these schemas, by {@link #typeName} (for coverage checks). */
    public static Set<String> typesOf(Schema[] schemas) {
        Set<String> names = new HashSet<>();
        Set<Type> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Schema schema : schemas) {
            if (schema != null) {
                collectTypes(schema, names, seen);
            }
        }
        return names;
    }

    private static void collectTypes(Type type, Set<String> names, Set<Type> seen) {
        if (!seen.add(type)) {
            return;
        }
        names.add(typeName(type));
        if (type instanceof Schema schema) {
            for (BoundField field : schema.fields()) {
                collectTypes(field.def.type, names, seen);
            }
        } else if (type instanceof TaggedFields tagged) {
            for (Field field : tagged.fields().values()) {
                collectTypes(field.type, names, seen);
            }
        } else if (type.isArray()) {
            collectTypes(type.arrayElementType().orElseThrow(), names, seen);
        }
    }

    /** Primitive types by their protocol name; composite ones by kind (struct, nullable struct, arrays, tagged fields). */
    public static String typeName(Type type) {
        if (type instanceof NullableSchema) {
            return "NULLABLE_STRUCT";
        } else if (type instanceof Schema) {
            return "STRUCT";
        } else if (type instanceof TaggedFields) {
            return "TAGGED_FIELDS";
        } else if (type instanceof CompactArrayOf) {
            return type.isNullable() ? "COMPACT_NULLABLE_ARRAY" : "COMPACT_ARRAY";
        } else if (type instanceof ArrayOf) {
            return type.isNullable() ? "NULLABLE_ARRAY" : "ARRAY";
        }
        return type.toString();
    }

    private int randomInt() {
        return chance(4) ? EDGE_INTS[random.nextInt(EDGE_INTS.length)] : random.nextInt();
    }

    private long randomLong() {
        return chance(4) ? EDGE_LONGS[random.nextInt(EDGE_LONGS.length)] : random.nextLong();
    }

    /** True one time in {@code n}. */
    private boolean chance(int n) {
        return random.nextInt(n) == 0;
    }

    /** A few real record batches, built once: records fields carry them as opaque bytes. */
    private static List<byte[]> recordBatches() {
        Header[] headers = {new RecordHeader("trace", "abc".getBytes(StandardCharsets.UTF_8)), new RecordHeader("ü", null)};
        List<MemoryRecords> batches = new ArrayList<>();
        batches.add(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(1L, "k".getBytes(), "v".getBytes())));
        batches.add(MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(2L, null, "value-only".getBytes()),
                new SimpleRecord(3L, "key".getBytes(), null, headers)));
        batches.add(MemoryRecords.withRecords(Compression.gzip().build(),
                new SimpleRecord(4L, "gz".getBytes(), "compressed value".getBytes()),
                new SimpleRecord(5L, "gz2".getBytes(), "another".getBytes())));
        batches.add(MemoryRecords.withIdempotentRecords(Compression.NONE, 4242L, (short) 3, 17,
                new SimpleRecord(6L, "pid".getBytes(), "idempotent".getBytes())));
        batches.add(MemoryRecords.withTransactionalRecords(Compression.NONE, 99L, (short) 1, 0,
                new SimpleRecord(7L, "txn".getBytes(), "transactional".getBytes())));
        List<byte[]> out = new ArrayList<>();
        for (MemoryRecords batch : batches) {
            ByteBuffer buffer = batch.buffer().duplicate();
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            out.add(bytes);
        }
        // Two batches back to back, as a Fetch response carries them.
        byte[] first = out.get(0);
        byte[] third = out.get(2);
        byte[] both = new byte[first.length + third.length];
        System.arraycopy(first, 0, both, 0, first.length);
        System.arraycopy(third, 0, both, first.length, third.length);
        out.add(both);
        return List.copyOf(out);
    }
}
