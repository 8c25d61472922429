package dev.weft.proxy.testing;

import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * What a broker-kill test found, record by record: {@code status[i] == 1} when record {@code i} was
 * acknowledged, {@code direct[i]} / {@code viaProxy[i]} how often it was read from the cluster and
 * through the proxy. Acknowledged records must be there once; unacknowledged ones may be or not.
 */
public record AckTally(int missingDirect, int missingProxy, int duplicates, int unackedPresent) {

    public static AckTally of(AtomicIntegerArray status, int[] direct, int[] viaProxy) {
        int missingDirect = 0;
        int missingProxy = 0;
        int duplicates = 0;
        int unackedPresent = 0;
        for (int i = 0; i < status.length(); i++) {
            if (status.get(i) == 1) {
                missingDirect += direct[i] == 0 ? 1 : 0;
                missingProxy += viaProxy[i] == 0 ? 1 : 0;
            } else if (direct[i] > 0) {
                unackedPresent++;
            }
            duplicates += Math.max(0, direct[i] - 1) + Math.max(0, viaProxy[i] - 1);
        }
        return new AckTally(missingDirect, missingProxy, duplicates, unackedPresent);
    }
}
