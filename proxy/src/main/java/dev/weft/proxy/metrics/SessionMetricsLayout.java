package dev.weft.proxy.metrics;

import dev.weft.iocore.metrics.CounterId;
import dev.weft.iocore.metrics.LatencyId;
import dev.weft.iocore.metrics.MetricsLayout;
import dev.weft.protocol.ApiKeyTable;
import dev.weft.proxy.session.SessionMetrics.SessionError;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The counters and latency histograms every (virtual cluster, core) pair keeps, declared once in one
 * io-core {@link MetricsLayout} and addressed on the hot path by dense int indexes (no maps, no boxing).
 *
 * <p>API keys are folded into <em>slots</em>: one per API key Kafka defines, plus {@link #NONE_SLOT} for
 * errors that involve no request ({@code apiKey == -1}) and {@link #UNKNOWN_SLOT} for keys outside the
 * protocol (garbage from a client). A fixed slot set keeps label cardinality bounded whatever a client
 * sends.
 *
 * <p>Latency histograms exist per API-key slot. Produce and Fetch keep 2 significant digits (1%); the
 * other keys, mostly admin and coordination traffic, keep 1 (about 6%), which is enough for the
 * exported buckets and keeps the per-core footprint near 0.8 MiB per virtual cluster instead of ~5 MiB.
 */
public final class SessionMetricsLayout {

    /** Label value for errors not tied to a request. */
    public static final String NONE_LABEL = "none";
    /** Label value for API keys Kafka does not define. */
    public static final String UNKNOWN_LABEL = "unknown";

    /** Longest upstream latency tracked; longer ones count as this. */
    static final long HIGHEST_LATENCY_NANOS = TimeUnit.MINUTES.toNanos(1);
    static final int PRECISE_DIGITS = 2;
    static final int COARSE_DIGITS = 1;

    private static final SessionError[] ERRORS = SessionError.values();

    /** apiKey (0 .. ApiKeyTable.size()-1) → slot; keys Kafka does not define map to {@link #UNKNOWN_SLOT}. */
    private final int[] slotOfKey;
    private final String[] slotLabels;
    final int noneSlot;
    final int unknownSlot;

    private final MetricsLayout layout;
    final CounterId connectionsOpened;
    final CounterId connectionsClosed;
    /** Per slot: counter indexes into {@code CoreCounters}. */
    final int[] requests;
    final int[] requestBytes;
    final int[] responses;
    final int[] responseBytes;
    /** [error ordinal][slot] → counter index. */
    final int[][] errors;
    /** Per slot: the upstream latency histogram (every slot has one; NONE/UNKNOWN stay empty). */
    final LatencyId[] latency;

    private final List<CounterId> requestIds = new ArrayList<>();
    private final List<CounterId> requestByteIds = new ArrayList<>();
    private final List<CounterId> responseIds = new ArrayList<>();
    private final List<CounterId> responseByteIds = new ArrayList<>();
    private final List<List<CounterId>> errorIds = new ArrayList<>();

    /** Builds the layout for every API key kafka-clients defines and every {@link SessionError} kind. */
    public SessionMetricsLayout() {
        int size = ApiKeyTable.size();
        slotOfKey = new int[size];
        List<String> labels = new ArrayList<>();
        for (int key = 0; key < size; key++) {
            if (ApiKeyTable.isKnownKey(key)) {
                slotOfKey[key] = labels.size();
                labels.add(ApiKeyTable.name(key));
            } else {
                slotOfKey[key] = -1;
            }
        }
        noneSlot = labels.size();
        labels.add(NONE_LABEL);
        unknownSlot = labels.size();
        labels.add(UNKNOWN_LABEL);
        for (int key = 0; key < size; key++) {
            if (slotOfKey[key] < 0) {
                slotOfKey[key] = unknownSlot;
            }
        }
        slotLabels = labels.toArray(String[]::new);
        int slots = slotLabels.length;

        MetricsLayout.Builder b = MetricsLayout.builder();
        connectionsOpened = b.counter("connections_opened");
        connectionsClosed = b.counter("connections_closed");
        requests = new int[slots];
        requestBytes = new int[slots];
        responses = new int[slots];
        responseBytes = new int[slots];
        latency = new LatencyId[slots];
        for (int s = 0; s < slots; s++) {
            String api = slotLabels[s];
            requests[s] = add(requestIds, b.counter("requests/" + api));
            requestBytes[s] = add(requestByteIds, b.counter("request_bytes/" + api));
            responses[s] = add(responseIds, b.counter("responses/" + api));
            responseBytes[s] = add(responseByteIds, b.counter("response_bytes/" + api));
            latency[s] = b.latency("upstream_latency/" + api, HIGHEST_LATENCY_NANOS,
                    isPrecise(api) ? PRECISE_DIGITS : COARSE_DIGITS);
        }
        errors = new int[ERRORS.length][slots];
        for (SessionError e : ERRORS) {
            List<CounterId> ids = new ArrayList<>(slots);
            for (int s = 0; s < slots; s++) {
                errors[e.ordinal()][s] = add(ids, b.counter("errors/" + errorLabel(e) + "/" + slotLabels[s]));
            }
            errorIds.add(Collections.unmodifiableList(ids));
        }
        layout = b.build();
    }

    private static boolean isPrecise(String api) {
        return api.equals(ApiKeys.PRODUCE.name) || api.equals(ApiKeys.FETCH.name);
    }

    private static int add(List<CounterId> ids, CounterId id) {
        ids.add(id);
        return id.index();
    }

    /** The io-core layout every core's metrics follow. */
    public MetricsLayout layout() {
        return layout;
    }

    /** The slot of {@code apiKey}: its own for a key Kafka defines, else NONE (-1) or UNKNOWN. Hot path. */
    int slot(short apiKey) {
        if (apiKey >= 0 && apiKey < slotOfKey.length) {
            return slotOfKey[apiKey];
        }
        return apiKey == -1 ? noneSlot : unknownSlot;
    }

    /** Number of API-key slots (defined keys + none + unknown). */
    public int slotCount() {
        return slotLabels.length;
    }

    /** The {@code api} label of a slot: the protocol name ({@code Produce}), {@code none} or {@code unknown}. */
    public String apiLabel(int slot) {
        return slotLabels[slot];
    }

    public CounterId connectionsOpened() {
        return connectionsOpened;
    }

    public CounterId connectionsClosed() {
        return connectionsClosed;
    }

    public CounterId requests(int slot) {
        return requestIds.get(slot);
    }

    public CounterId requestBytes(int slot) {
        return requestByteIds.get(slot);
    }

    public CounterId responses(int slot) {
        return responseIds.get(slot);
    }

    public CounterId responseBytes(int slot) {
        return responseByteIds.get(slot);
    }

    public CounterId errors(SessionError error, int slot) {
        return errorIds.get(error.ordinal()).get(slot);
    }

    public LatencyId latency(int slot) {
        return latency[slot];
    }

    /** Every error kind, in declaration order. */
    public static List<SessionError> errorKinds() {
        return List.of(ERRORS);
    }

    /** The {@code error} label of a kind: its name in lower case ({@code unsupported_request}). */
    public static String errorLabel(SessionError error) {
        return error.name().toLowerCase(Locale.ROOT);
    }
}
