package dev.weft.protocol;

import java.util.EnumSet;
import java.util.Set;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * What Weft knows about every Kafka API key: its name, the versions it implements, and which header
 * versions each of those versions uses.
 *
 * <p>Built once from kafka-clients' {@link ApiKeys} (the cold path) into plain arrays indexed by API
 * key, so the hot path answers "which header version?" with two array loads instead of
 * {@code ApiKeys.forId}'s map lookup and boxing.
 */
public final class ApiKeyTable {

    /** Served on broker listeners, but sent only by brokers to brokers. */
    private static final Set<ApiKeys> BROKER_TO_BROKER = EnumSet.of(
            ApiKeys.WRITE_TXN_MARKERS,
            ApiKeys.INITIALIZE_SHARE_GROUP_STATE,
            ApiKeys.READ_SHARE_GROUP_STATE,
            ApiKeys.WRITE_SHARE_GROUP_STATE,
            ApiKeys.DELETE_SHARE_GROUP_STATE,
            ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY);

    /** Marker for "this key/version is not implemented". */
    public static final byte UNSUPPORTED = -1;

    private static final int SIZE;
    private static final String[] NAMES;
    private static final short[] OLDEST;
    private static final short[] LATEST;
    /** Whether a client may send the key to a broker (see {@link #isClientApi}). */
    private static final boolean[] CLIENT_API;
    /** [apiKey][apiVersion] → request header version (1 or 2), or {@link #UNSUPPORTED}. */
    private static final byte[][] REQUEST_HEADER;
    /** [apiKey][apiVersion] → response header version (0 or 1), or {@link #UNSUPPORTED}. */
    private static final byte[][] RESPONSE_HEADER;

    static {
        int max = 0;
        for (ApiKeys key : ApiKeys.values()) {
            max = Math.max(max, key.id);
        }
        SIZE = max + 1;
        NAMES = new String[SIZE];
        OLDEST = new short[SIZE];
        LATEST = new short[SIZE];
        CLIENT_API = new boolean[SIZE];
        REQUEST_HEADER = new byte[SIZE][];
        RESPONSE_HEADER = new byte[SIZE][];
        for (int i = 0; i < SIZE; i++) {
            OLDEST[i] = 0;
            LATEST[i] = -1;
            REQUEST_HEADER[i] = new byte[0];
            RESPONSE_HEADER[i] = new byte[0];
        }
        for (ApiKeys key : ApiKeys.values()) {
            NAMES[key.id] = key.name;
            if (!key.hasValidVersion()) {
                continue; // inter-broker APIs removed from the protocol (LeaderAndIsr & co.)
            }
            short oldest = key.oldestVersion();
            short latest = key.latestVersion(true);
            OLDEST[key.id] = oldest;
            LATEST[key.id] = latest;
            byte[] req = new byte[latest + 1];
            byte[] resp = new byte[latest + 1];
            for (short v = 0; v <= latest; v++) {
                boolean known = v >= oldest;
                req[v] = known ? (byte) key.requestHeaderVersion(v) : UNSUPPORTED;
                resp[v] = known ? (byte) key.responseHeaderVersion(v) : UNSUPPORTED;
            }
            CLIENT_API[key.id] = key.messageType.listeners().contains(ApiMessageType.ListenerType.BROKER)
                    && !BROKER_TO_BROKER.contains(key);
            REQUEST_HEADER[key.id] = req;
            RESPONSE_HEADER[key.id] = resp;
        }
    }

    private ApiKeyTable() {
    }

    /**
     * True when clients may send this API to a broker: it is served on broker listeners and is not
     * one brokers only send each other (transaction markers, share-group state). Controller-only APIs
     * (Vote, BrokerHeartbeat, ...) are not client APIs either. Admin APIs are.
     */
    public static boolean isClientApi(int apiKey) {
        return apiKey >= 0 && apiKey < SIZE && CLIENT_API[apiKey];
    }

    /** Largest API key id plus one: the size of an array indexed by API key. */
    public static int size() {
        return SIZE;
    }

    /** True when Weft implements this API key at this version. */
    public static boolean isSupported(int apiKey, int apiVersion) {
        return requestHeaderVersion(apiKey, apiVersion) != UNSUPPORTED;
    }

    /** True when the key exists in the protocol at all (any version). */
    public static boolean isKnownKey(int apiKey) {
        return apiKey >= 0 && apiKey < SIZE && LATEST[apiKey] >= 0;
    }

    /** Request header version (1 or 2) for this API version, or {@link #UNSUPPORTED}. */
    public static byte requestHeaderVersion(int apiKey, int apiVersion) {
        if (apiKey < 0 || apiKey >= SIZE) {
            return UNSUPPORTED;
        }
        byte[] versions = REQUEST_HEADER[apiKey];
        return apiVersion >= 0 && apiVersion < versions.length ? versions[apiVersion] : UNSUPPORTED;
    }

    /** Response header version (0 or 1) for this API version, or {@link #UNSUPPORTED}. */
    public static byte responseHeaderVersion(int apiKey, int apiVersion) {
        if (apiKey < 0 || apiKey >= SIZE) {
            return UNSUPPORTED;
        }
        byte[] versions = RESPONSE_HEADER[apiKey];
        return apiVersion >= 0 && apiVersion < versions.length ? versions[apiVersion] : UNSUPPORTED;
    }

    public static short oldestVersion(int apiKey) {
        return isKnownKey(apiKey) ? OLDEST[apiKey] : -1;
    }

    public static short latestVersion(int apiKey) {
        return isKnownKey(apiKey) ? LATEST[apiKey] : -1;
    }

    /** The protocol name of the key ({@code "Produce"}), or {@code "UnknownApiKey(n)"} for logs. */
    public static String name(int apiKey) {
        if (apiKey >= 0 && apiKey < SIZE && NAMES[apiKey] != null) {
            return NAMES[apiKey];
        }
        return "UnknownApiKey(" + apiKey + ")";
    }
}
