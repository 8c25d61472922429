package dev.weft.proxy.resilience;

import dev.weft.protocol.ApiKeyTable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Turns a corpus of real request frames into streams of mutated frames for one connection each, and
 * predicts, with the framing rules Weft documents (size prefix between 0 and {@code maxFrameBytes},
 * a 10-byte fixed request header, a known API key, a version Weft implements except for ApiVersions),
 * where the proxy must refuse the stream. A virtual cluster whose proxy answers ApiVersions itself
 * refuses, instead of versions Weft does not implement, every API and version its answer did not offer
 * ({@link Offer}).
 *
 * <p>Every frame the proxy would forward is checked against {@link #SAFE_KEYS}: a mutation that would
 * hand the broker an administrative request (CreateTopics, AlterConfigs, UnregisterBroker, quotas,
 * inter-broker APIs...) is drawn again, so the fuzz attacks the proxy without rebuilding the broker.
 */
final class Mutator {

    /** Requests a client may send that cannot damage the broker whatever their content. */
    static final Set<Short> SAFE_KEYS = Set.of(
            ApiKeys.PRODUCE.id, ApiKeys.FETCH.id, ApiKeys.LIST_OFFSETS.id, ApiKeys.METADATA.id,
            ApiKeys.OFFSET_COMMIT.id, ApiKeys.OFFSET_FETCH.id, ApiKeys.FIND_COORDINATOR.id, ApiKeys.JOIN_GROUP.id,
            ApiKeys.HEARTBEAT.id, ApiKeys.LEAVE_GROUP.id, ApiKeys.SYNC_GROUP.id, ApiKeys.DESCRIBE_GROUPS.id,
            ApiKeys.LIST_GROUPS.id, ApiKeys.SASL_HANDSHAKE.id, ApiKeys.API_VERSIONS.id, ApiKeys.INIT_PRODUCER_ID.id,
            ApiKeys.OFFSET_FOR_LEADER_EPOCH.id, ApiKeys.DESCRIBE_ACLS.id, ApiKeys.DESCRIBE_CONFIGS.id,
            ApiKeys.DESCRIBE_LOG_DIRS.id, ApiKeys.OFFSET_DELETE.id, ApiKeys.DESCRIBE_CLIENT_QUOTAS.id,
            ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS.id, ApiKeys.DESCRIBE_CLUSTER.id, ApiKeys.DESCRIBE_PRODUCERS.id,
            ApiKeys.DESCRIBE_TRANSACTIONS.id, ApiKeys.LIST_TRANSACTIONS.id, ApiKeys.CONSUMER_GROUP_HEARTBEAT.id,
            ApiKeys.CONSUMER_GROUP_DESCRIBE.id, ApiKeys.GET_TELEMETRY_SUBSCRIPTIONS.id,
            ApiKeys.DESCRIBE_TOPIC_PARTITIONS.id);

    /** Mutation operators; the weights favour mutations the proxy forwards, so a connection carries many frames. */
    enum Op {
        BIT_FLIP(14), BYTE_SUBSTITUTION(14), TRUNCATE(8), TRUNCATE_LYING(2), LENGTH_LIE(2), INSERTION(8),
        INSERTION_LYING(1), SPLICE(8), SPLICE_LYING(1), API_KEY_SWAP(7), API_VERSION_SWAP(8), CLIENT_ID_LIE(6),
        RANDOM_BODY(6), HEADER_ONLY(2), TAGGED_FIELDS_LIE(4);

        final int weight;

        Op(int weight) {
            this.weight = weight;
        }
    }

    /** Why the modelled proxy refuses a stream. */
    enum Refusal {
        FRAME_SIZE("frame of", "invalid frame size"),
        SHORT_HEADER("malformed request"),
        UNKNOWN_KEY("unknown API key"),
        BROKER_INTERNAL("is a broker-internal API"),
        UNSUPPORTED_VERSION("is not supported"),
        /** A proxy that answers ApiVersions itself refuses what it did not offer there. */
        NOT_OFFERED("is not offered by virtual cluster");

        final String[] phrases;

        Refusal(String... phrases) {
            this.phrases = phrases;
        }

        boolean matches(String logMessage) {
            for (String p : phrases) {
                if (logMessage.contains(p)) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * One connection's mutated frames, ending at the first one the proxy must refuse (nothing after it
     * would ever be read). {@code refusedAt} is the index of that frame in {@code chunks}, or -1.
     */
    record Plan(List<byte[]> chunks, int refusedAt, Refusal refusal, List<Integer> forwardedCorrelationIds,
            int framesForwarded, Map<Op, Integer> ops) {
    }

    private static final byte[] INTERESTING = {0, (byte) 0xff, 0x7f, (byte) 0x80, 1, (byte) 0xfe, 0x40};
    private static final short[] UNKNOWN_KEYS = {999, 32767, -1, -32768, 200, 0x7f00};
    private static final int HEADER_FIXED = 4 + 10; // size prefix + fixed request header

    /**
     * What a virtual cluster's own ApiVersions answer offers (API key to its version range): anything
     * else is refused by the proxy before it reaches a broker (ApiVersions itself is always answered).
     */
    record Offer(Map<Short, short[]> versions) {
        static Offer of(org.apache.kafka.common.message.ApiVersionsResponseData answer) {
            Map<Short, short[]> out = new java.util.HashMap<>();
            answer.apiKeys().forEach(v -> out.put(v.apiKey(), new short[] {v.minVersion(), v.maxVersion()}));
            return new Offer(Map.copyOf(out));
        }

        boolean offers(short key, short version) {
            short[] range = versions.get(key);
            return range != null && version >= range[0] && version <= range[1];
        }
    }

    private final List<byte[]> corpus;
    private final short[] corpusKeys;
    private final int maxFrameBytes;
    private final int totalWeight;
    /** Null: the proxy forwards ApiVersions and checks versions against Weft's own table. */
    private final Offer offer;

    /** A mutator for a virtual cluster that forwards ApiVersions (pass-through). */
    Mutator(List<byte[]> corpus, int maxFrameBytes) {
        this(corpus, maxFrameBytes, null);
    }

    /** @param offer what the virtual cluster's own ApiVersions answer offers, or null when it forwards ApiVersions */
    Mutator(List<byte[]> corpus, int maxFrameBytes, Offer offer) {
        this.corpus = List.copyOf(corpus);
        this.maxFrameBytes = maxFrameBytes;
        this.offer = offer;
        this.corpusKeys = distinctKeys(corpus);
        this.totalWeight = Arrays.stream(Op.values()).mapToInt(o -> o.weight).sum();
    }

    private static short[] distinctKeys(List<byte[]> corpus) {
        Set<Short> keys = new LinkedHashSet<>();
        for (byte[] f : corpus) {
            keys.add(ByteBuffer.wrap(f).getShort(4));
        }
        short[] out = new short[keys.size()];
        int i = 0;
        for (short k : keys) {
            out[i++] = k;
        }
        return out;
    }

    /** Plans up to {@code maxFrames} mutated frames for one connection. */
    Plan plan(Random random, int maxFrames) {
        List<byte[]> chunks = new ArrayList<>();
        Map<Op, Integer> ops = new EnumMap<>(Op.class);
        StreamModel model = new StreamModel();
        for (int i = 0; i < maxFrames; i++) {
            byte[] chunk = null;
            StreamModel next = null;
            List<Op> used = null;
            for (int attempt = 0; attempt < 50; attempt++) {
                used = new ArrayList<>();
                chunk = mutate(random, used);
                next = model.copy();
                if (next.feed(chunk)) {
                    break; // nothing dangerous would reach the broker
                }
                next = null;
            }
            if (next == null) {
                continue; // could not find a safe mutation here: skip this slot
            }
            model = next;
            chunks.add(chunk);
            for (Op op : used) {
                ops.merge(op, 1, Integer::sum);
            }
            if (model.refusal != null) {
                return new Plan(chunks, chunks.size() - 1, model.refusal, model.forwarded, model.forwarded.size(), ops);
            }
        }
        return new Plan(chunks, -1, null, model.forwarded, model.forwarded.size(), ops);
    }

    private byte[] mutate(Random r, List<Op> used) {
        byte[] frame = corpus.get(r.nextInt(corpus.size())).clone();
        int rounds = r.nextInt(100) < 75 ? 1 : r.nextInt(100) < 80 ? 2 : 3;
        for (int i = 0; i < rounds; i++) {
            Op op = pick(r);
            used.add(op);
            frame = apply(op, frame, r);
        }
        return frame;
    }

    private Op pick(Random r) {
        int x = r.nextInt(totalWeight);
        for (Op op : Op.values()) {
            x -= op.weight;
            if (x < 0) {
                return op;
            }
        }
        throw new AssertionError();
    }

    private byte[] apply(Op op, byte[] f, Random r) {
        switch (op) {
            case BIT_FLIP -> {
                for (int n = 1 + r.nextInt(3); n > 0; n--) {
                    int pos = position(f, r);
                    f[pos] ^= (byte) (1 << r.nextInt(8));
                }
                return f;
            }
            case BYTE_SUBSTITUTION -> {
                for (int n = 1 + r.nextInt(4); n > 0; n--) {
                    int pos = position(f, r);
                    f[pos] = r.nextBoolean() ? INTERESTING[r.nextInt(INTERESTING.length)] : (byte) r.nextInt(256);
                }
                return f;
            }
            case TRUNCATE -> {
                if (f.length <= HEADER_FIXED) {
                    return f;
                }
                return fixSize(Arrays.copyOf(f, HEADER_FIXED + r.nextInt(f.length - HEADER_FIXED)));
            }
            case TRUNCATE_LYING -> {
                return Arrays.copyOf(f, 5 + r.nextInt(Math.max(1, f.length - 5)));
            }
            case LENGTH_LIE -> {
                int size = ByteBuffer.wrap(f).getInt(0);
                int lie = switch (r.nextInt(7)) {
                    case 0 -> size + 1 + r.nextInt(16);
                    case 1 -> Math.max(0, size - 1 - r.nextInt(16));
                    case 2 -> 0;
                    case 3 -> -1 - r.nextInt(Integer.MAX_VALUE);
                    case 4 -> maxFrameBytes + 1 + r.nextInt(1 << 20);
                    case 5 -> r.nextInt(Integer.MAX_VALUE);
                    default -> r.nextInt(16);
                };
                ByteBuffer.wrap(f).putInt(0, lie);
                return f;
            }
            case INSERTION, INSERTION_LYING -> {
                int at = Math.min(f.length, 4 + r.nextInt(Math.max(1, f.length - 3)));
                byte[] extra = new byte[1 + r.nextInt(32)];
                r.nextBytes(extra);
                byte[] out = new byte[f.length + extra.length];
                System.arraycopy(f, 0, out, 0, at);
                System.arraycopy(extra, 0, out, at, extra.length);
                System.arraycopy(f, at, out, at + extra.length, f.length - at);
                return op == Op.INSERTION ? fixSize(out) : out;
            }
            case SPLICE, SPLICE_LYING -> {
                byte[] other = corpus.get(r.nextInt(corpus.size()));
                int head = Math.min(f.length, HEADER_FIXED + r.nextInt(Math.max(1, f.length - HEADER_FIXED + 1)));
                int from = 4 + r.nextInt(Math.max(1, other.length - 4));
                byte[] out = new byte[head + other.length - from];
                System.arraycopy(f, 0, out, 0, head);
                System.arraycopy(other, from, out, head, other.length - from);
                return op == Op.SPLICE ? fixSize(out) : out;
            }
            case API_KEY_SWAP -> {
                if (f.length < 6) {
                    return f;
                }
                int x = r.nextInt(10);
                short key = x < 8 ? corpusKeys[r.nextInt(corpusKeys.length)]
                        : x < 9 ? UNKNOWN_KEYS[r.nextInt(UNKNOWN_KEYS.length)]
                        : (short) r.nextInt(ApiKeyTable.size());
                ByteBuffer.wrap(f).putShort(4, key);
                return f;
            }
            case API_VERSION_SWAP -> {
                if (f.length < 8) {
                    return f;
                }
                short key = ByteBuffer.wrap(f).getShort(4);
                int x = r.nextInt(20);
                short version;
                if (x < 14 && ApiKeyTable.isKnownKey(key) && ApiKeyTable.latestVersion(key) >= 0) {
                    short oldest = ApiKeyTable.oldestVersion(key);
                    version = (short) (oldest + r.nextInt(ApiKeyTable.latestVersion(key) - oldest + 1));
                } else if (x < 17 && ApiKeyTable.isKnownKey(key)) {
                    version = (short) (ApiKeyTable.latestVersion(key) + 1 + r.nextInt(3));
                } else if (x < 18) {
                    version = (short) (-1 - r.nextInt(100));
                } else {
                    version = (short) r.nextInt(1 << 16);
                }
                ByteBuffer.wrap(f).putShort(6, version);
                return f;
            }
            case CLIENT_ID_LIE -> {
                if (f.length < HEADER_FIXED) {
                    return f;
                }
                short len = ByteBuffer.wrap(f).getShort(12);
                short[] lies = {-2, Short.MIN_VALUE, (short) (len + 1 + r.nextInt(100)), Short.MAX_VALUE, 0};
                ByteBuffer.wrap(f).putShort(12, lies[r.nextInt(lies.length)]);
                return f;
            }
            case RANDOM_BODY -> {
                int start = Math.min(f.length, HEADER_FIXED + r.nextInt(24));
                byte[] noise = new byte[f.length - start];
                r.nextBytes(noise);
                System.arraycopy(noise, 0, f, start, noise.length);
                return f;
            }
            case HEADER_ONLY -> {
                return fixSize(Arrays.copyOf(f, Math.min(f.length, 4 + 6 + r.nextInt(9))));
            }
            case TAGGED_FIELDS_LIE -> {
                if (f.length < HEADER_FIXED) {
                    return f;
                }
                int clientIdLength = Math.max(0, ByteBuffer.wrap(f).getShort(12));
                int at = HEADER_FIXED + clientIdLength;
                if (at >= f.length) {
                    return f;
                }
                byte[] varint = r.nextBoolean() ? new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f}
                        : new byte[] {(byte) (1 + r.nextInt(127))};
                byte[] out = new byte[f.length + varint.length - 1];
                System.arraycopy(f, 0, out, 0, at);
                System.arraycopy(varint, 0, out, at, varint.length);
                System.arraycopy(f, at + 1, out, at + varint.length, f.length - at - 1);
                return fixSize(out);
            }
            default -> throw new AssertionError(op);
        }
    }

    /** Mostly past the fixed header (the body the broker parses), sometimes anywhere including the size. */
    private static int position(byte[] f, Random r) {
        if (f.length > HEADER_FIXED && r.nextInt(100) < 85) {
            return HEADER_FIXED + r.nextInt(f.length - HEADER_FIXED);
        }
        return r.nextInt(f.length);
    }

    private static byte[] fixSize(byte[] f) {
        if (f.length >= 4) {
            ByteBuffer.wrap(f).putInt(0, f.length - 4);
        }
        return f;
    }

    /** What the proxy's frame decoder and header checks make of a byte stream, fed chunk by chunk. */
    private final class StreamModel {
        private byte[] pending = new byte[0];
        private final List<Integer> forwarded;
        private Refusal refusal;

        StreamModel() {
            this.forwarded = new ArrayList<>();
        }

        private StreamModel(StreamModel other) {
            this.pending = other.pending;
            this.forwarded = new ArrayList<>(other.forwarded);
            this.refusal = other.refusal;
        }

        StreamModel copy() {
            return new StreamModel(this);
        }

        /** Adds {@code chunk}; false when a request the broker must never get would be forwarded. */
        boolean feed(byte[] chunk) {
            byte[] all = new byte[pending.length + chunk.length];
            System.arraycopy(pending, 0, all, 0, pending.length);
            System.arraycopy(chunk, 0, all, pending.length, chunk.length);
            int at = 0;
            while (refusal == null && all.length - at >= 4) {
                int size = ByteBuffer.wrap(all).getInt(at);
                if (size < 0 || size > maxFrameBytes) {
                    refusal = Refusal.FRAME_SIZE;
                    break;
                }
                if (all.length - at - 4 < size) {
                    break; // incomplete: the decoder waits
                }
                ByteBuffer frame = ByteBuffer.wrap(all, at + 4, size).slice();
                at += 4 + size;
                if (size < 10) {
                    refusal = Refusal.SHORT_HEADER;
                    break;
                }
                short key = frame.getShort(0);
                short version = frame.getShort(2);
                if (!ApiKeyTable.isKnownKey(key)) {
                    refusal = Refusal.UNKNOWN_KEY;
                    break;
                }
                if (!ApiKeyTable.isClientApi(key)) {
                    refusal = Refusal.BROKER_INTERNAL; // refused whatever the version
                    break;
                }
                if (offer != null) {
                    if (key != ApiKeys.API_VERSIONS.id && !offer.offers(key, version)) {
                        refusal = Refusal.NOT_OFFERED;
                        break;
                    }
                } else if (!ApiKeyTable.isSupported(key, version) && key != ApiKeys.API_VERSIONS.id) {
                    refusal = Refusal.UNSUPPORTED_VERSION;
                    break;
                }
                if (!SAFE_KEYS.contains(key)) {
                    return false;
                }
                forwarded.add(frame.getInt(4));
            }
            pending = refusal != null ? new byte[0] : Arrays.copyOfRange(all, at, all.length);
            return true;
        }
    }
}
