package dev.weft.iocore.affinity;

import java.util.Arrays;
import java.util.BitSet;
import java.util.Locale;

/**
 * Whether and where event loop threads are pinned. Off by default: pinning pays off on a dedicated
 * host and hurts when the proxy shares CPUs with other busy processes.
 *
 * <p>Configuration spellings ({@link #parse}): {@code off}, {@code on} (one loop per CPU this process
 * may use, in CPU order) or a cpu list such as {@code 2-5,8}. Loop {@code i} is pinned to the
 * {@code i}-th CPU of the list, wrapping when there are more loops than CPUs.
 */
public sealed interface CpuPinning {

    /** No pinning: the kernel schedules loop threads freely. */
    record Off() implements CpuPinning {
    }

    /** Pin to the CPUs the starting thread is allowed to run on ({@code sched_getaffinity}), in order. */
    record AllowedCpus() implements CpuPinning {
    }

    /**
     * Pin to these CPUs in order.
     *
     * @param cpus non-empty, each >= 0; loop {@code i} gets {@code cpus[i % cpus.length]}
     */
    record Cpus(int[] cpus) implements CpuPinning {
        public Cpus {
            if (cpus.length == 0) {
                throw new IllegalArgumentException("cpu pinning list must not be empty");
            }
            cpus = cpus.clone();
            for (int cpu : cpus) {
                if (cpu < 0) {
                    throw new IllegalArgumentException("cpu must be >= 0, was " + cpu);
                }
            }
        }

        @Override
        public int[] cpus() {
            return cpus.clone();
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Cpus that && Arrays.equals(cpus, that.cpus);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(cpus);
        }

        @Override
        public String toString() {
            BitSet set = new BitSet();
            for (int cpu : cpus) {
                set.set(cpu);
            }
            return "Cpus[" + CpuList.format(set) + "]";
        }
    }

    /** Pinning off. */
    static CpuPinning off() {
        return new Off();
    }

    /** One loop per CPU this process may use. */
    static CpuPinning allowedCpus() {
        return new AllowedCpus();
    }

    /** Pin to {@code cpus}, lowest first. */
    static CpuPinning cpus(BitSet cpus) {
        return new Cpus(cpus.stream().toArray());
    }

    /**
     * Parses {@code off}, {@code on} or a cpu list such as {@code 0-3,8}.
     *
     * @throws IllegalArgumentException naming the value
     */
    static CpuPinning parse(String value) {
        String normalized = value.trim().toLowerCase(Locale.ROOT);
        return switch (normalized) {
            case "off", "false", "none" -> off();
            case "on", "true", "auto" -> allowedCpus();
            default -> {
                BitSet cpus;
                try {
                    cpus = CpuList.parse(normalized);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("cpuPinning: '" + value
                            + "' is not 'off', 'on' or a cpu list like 0-3,8 (" + e.getMessage() + ")", e);
                }
                if (cpus.isEmpty()) {
                    throw new IllegalArgumentException("cpuPinning: '" + value + "' names no cpu");
                }
                yield cpus(cpus);
            }
        };
    }
}
