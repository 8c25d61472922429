package dev.weft.iocore.affinity;

import java.util.BitSet;

/**
 * The kernel's "cpu list" text format ({@code 0-3,8,10-11}), as in {@code /proc/self/status}
 * {@code Cpus_allowed_list}, {@code taskset -c} and cpuset files; also how Weft's configuration names CPUs.
 */
public final class CpuList {

    private CpuList() {
    }

    /**
     * Parses {@code 0-3,8,10-11} (whitespace around items allowed; an empty string is the empty set).
     *
     * @throws IllegalArgumentException naming the bad item
     */
    public static BitSet parse(String list) {
        BitSet cpus = new BitSet();
        String trimmed = list.trim();
        if (trimmed.isEmpty()) {
            return cpus;
        }
        for (String rawItem : trimmed.split(",")) {
            String item = rawItem.trim();
            int dash = item.indexOf('-');
            try {
                if (dash < 0) {
                    cpus.set(nonNegative(Integer.parseInt(item), item));
                } else {
                    int from = nonNegative(Integer.parseInt(item.substring(0, dash).trim()), item);
                    int to = nonNegative(Integer.parseInt(item.substring(dash + 1).trim()), item);
                    if (to < from) {
                        throw new IllegalArgumentException("cpu range '" + item + "' ends before it starts");
                    }
                    cpus.set(from, to + 1);
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + item + "' in cpu list '" + list
                        + "' is not a cpu number or range like 0-3", e);
            }
        }
        return cpus;
    }

    /** Formats {@code cpus} the kernel's way, with ranges: {0,1,2,3,8} becomes {@code 0-3,8}. */
    public static String format(BitSet cpus) {
        StringBuilder out = new StringBuilder();
        int start = cpus.nextSetBit(0);
        while (start >= 0) {
            int end = cpus.nextClearBit(start) - 1;
            if (!out.isEmpty()) {
                out.append(',');
            }
            out.append(start);
            if (end > start) {
                out.append('-').append(end);
            }
            start = cpus.nextSetBit(end + 1);
        }
        return out.toString();
    }

    private static int nonNegative(int cpu, String item) {
        if (cpu < 0) {
            throw new IllegalArgumentException("cpu '" + item + "' is negative");
        }
        return cpu;
    }
}
