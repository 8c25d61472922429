package dev.weft.proxy.security;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** Authentication outcomes of one virtual cluster's terminating gateways, by mechanism and outcome. */
public final class SaslCounters {

    private final ConcurrentHashMap<String, LongAdder[]> byMechanism = new ConcurrentHashMap<>();

    void count(String mechanism, SaslOutcome outcome) {
        byMechanism.computeIfAbsent(mechanism, m -> newAdders())[outcome.ordinal()].increment();
    }

    private static LongAdder[] newAdders() {
        LongAdder[] adders = new LongAdder[SaslOutcome.values().length];
        for (int i = 0; i < adders.length; i++) {
            adders[i] = new LongAdder();
        }
        return adders;
    }

    /** mechanism -> outcome -> count, for the metrics ("none" is the mechanism before a handshake chose one). */
    public Map<String, Map<SaslOutcome, Long>> snapshot() {
        Map<String, Map<SaslOutcome, Long>> out = new TreeMap<>();
        byMechanism.forEach((m, adders) -> {
            Map<SaslOutcome, Long> counts = new TreeMap<>();
            for (SaslOutcome o : SaslOutcome.values()) {
                counts.put(o, adders[o.ordinal()].sum());
            }
            out.put(m, counts);
        });
        return out;
    }
}
