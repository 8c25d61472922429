package dev.weft.proxy.admin;

import java.util.List;

/**
 * Whether the proxy should receive traffic, and if not, why: every reason is one plain-text line an
 * operator can act on ({@code cluster 'east': brokers not discovered yet (bootstrap 10.0.0.1:9092)}).
 *
 * @param reasons why the proxy is not ready; empty when it is
 */
public record Readiness(List<String> reasons) {

    private static final Readiness READY = new Readiness(List.of());

    public Readiness {
        reasons = List.copyOf(reasons);
    }

    public static Readiness ready() {
        return READY;
    }

    public static Readiness notReady(List<String> reasons) {
        if (reasons.isEmpty()) {
            throw new IllegalArgumentException("not ready needs a reason");
        }
        return new Readiness(reasons);
    }

    public boolean isReady() {
        return reasons.isEmpty();
    }
}
