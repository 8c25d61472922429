package dev.weft.soak.common;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a process used over one phase of a measurement: CPU seconds, context switches of its threads,
 * read/write-family system calls ({@link ProcStat}) and every system call ({@link PerfSyscalls}), read at
 * {@link #start} and {@link #stop}. {@link Usage#toMap} gives them per unit of record bytes moved.
 */
public final class ProcMeter {

    private final long pid;
    private final PerfSyscalls perf;
    private final double cpu0;
    private final long switches0;
    private final long syscr0;
    private final long syscw0;

    private ProcMeter(long pid) {
        this.pid = pid;
        this.perf = PerfSyscalls.start(pid); // first: it returns once perf has attached
        this.cpu0 = ProcStat.cpuSeconds(pid);
        this.switches0 = ProcStat.contextSwitches(pid);
        this.syscr0 = ProcStat.io(pid, "syscr");
        this.syscw0 = ProcStat.io(pid, "syscw");
        if (cpu0 < 0 || switches0 < 0 || syscr0 < 0 || syscw0 < 0) {
            perf.stop();
            requireAlive(true);
        }
    }

    public static ProcMeter start(long pid) {
        return new ProcMeter(pid);
    }

    /** The use since {@link #start}, over a phase that moved {@code bytes} record bytes through the process. */
    public Usage stop(long bytes) {
        PerfSyscalls.Count syscalls = perf.stop();
        double cpu = ProcStat.cpuSeconds(pid);
        long switches = ProcStat.contextSwitches(pid);
        long syscr = ProcStat.io(pid, "syscr");
        long syscw = ProcStat.io(pid, "syscw");
        requireAlive(cpu < 0 || switches < 0 || syscr < 0 || syscw < 0);
        // Threads that exited meanwhile take their switches with them: never below 0.
        return new Usage(cpu - cpu0, Math.max(0, switches - switches0), syscr - syscr0, syscw - syscw0,
                syscalls.syscalls(), syscalls.absent(), bytes);
    }

    private void requireAlive(boolean unreadable) {
        if (unreadable) {
            throw new IllegalStateException("cannot read /proc/" + pid + " (stat, task/*/status, io): the proxy process " + pid + " is gone");
        }
    }

    /**
     * Use over one phase (or a sum of phases): {@code syscalls} null when perf did not count, with
     * {@code syscallsAbsent} saying why.
     */
    public record Usage(double cpuSeconds, long contextSwitches, long syscr, long syscw, Long syscalls,
                        String syscallsAbsent, long bytes) {

        /** Nothing used, nothing moved: the start of a sum. */
        public static final Usage NONE = new Usage(0, 0, 0, 0, 0L, null, 0);

        /** The sum; syscalls stay absent if either part's are (the first reason is kept). */
        public Usage plus(Usage o) {
            return new Usage(cpuSeconds + o.cpuSeconds, contextSwitches + o.contextSwitches, syscr + o.syscr, syscw + o.syscw,
                    syscalls == null || o.syscalls == null ? null : syscalls + o.syscalls,
                    syscallsAbsent != null ? syscallsAbsent : o.syscallsAbsent, bytes + o.bytes);
        }

        /** CPU seconds per 10^9 record bytes, or null when nothing moved. */
        public Double cpuSecondsPerGB() {
            return per(cpuSeconds, 1e9);
        }

        /**
         * {@code phase}, the raw counts and each per unit (CPU per 10^9 bytes, the counts per 10^6 bytes); when
         * perf did not count, {@code syscallsAbsent} instead of {@code syscalls} / {@code syscallsPerMB}.
         */
        public Map<String, Object> toMap(String phase) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("phase", phase);
            m.put("bytes", bytes);
            m.put("cpuSeconds", sig(cpuSeconds));
            m.put("cpuSecondsPerGB", cpuSecondsPerGB());
            if (syscalls != null) {
                m.put("syscalls", syscalls);
                m.put("syscallsPerMB", per(syscalls, 1e6));
            } else {
                m.put("syscallsAbsent", syscallsAbsent);
            }
            m.put("contextSwitches", contextSwitches);
            m.put("contextSwitchesPerMB", per(contextSwitches, 1e6));
            m.put("syscr", syscr);
            m.put("syscrPerMB", per(syscr, 1e6));
            m.put("syscw", syscw);
            m.put("syscwPerMB", per(syscw, 1e6));
            return m;
        }

        /** {@code amount} per {@code unit} record bytes, 4 significant digits; null when nothing moved. */
        private Double per(double amount, double unit) {
            return bytes <= 0 ? null : sig(amount / (bytes / unit));
        }

        private static double sig(double v) {
            return Double.isFinite(v) ? new BigDecimal(v).round(new MathContext(4)).doubleValue() : v;
        }
    }
}
