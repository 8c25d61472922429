package dev.weft.soak.common;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * CPU time and peak resident set of another process, read from Linux /proc: {@code /proc/PID/stat}
 * fields 14 and 15 (utime, stime, in clock ticks; all threads of the process) and
 * {@code /proc/PID/status} {@code VmHWM} (peak RSS since the process started, kB).
 */
public final class ProcStat {

    private static final long CLK_TCK = clockTicks();

    private ProcStat() {
    }

    /** Clock ticks per second: {@code getconf CLK_TCK}, or 100 (the Linux default) if that fails. */
    public static long clockTicksPerSecond() {
        return CLK_TCK;
    }

    /** utime + stime of the whole process in seconds, or -1 when it cannot be read (process gone). */
    public static double cpuSeconds(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // comm (field 2) is in parentheses and may contain spaces: split after the last ')'.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" +");
            // f[0] is field 3 (state): utime is field 14 -> f[11], stime field 15 -> f[12].
            long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
            return ticks / (double) CLK_TCK;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** VmHWM (peak RSS) in bytes, or empty when it cannot be read. */
    public static OptionalLong peakRssBytes(long pid) {
        return statusKb(pid, "VmHWM:");
    }

    /** VmRSS (current RSS) in bytes, or empty when it cannot be read. */
    public static OptionalLong rssBytes(long pid) {
        return statusKb(pid, "VmRSS:");
    }

    private static OptionalLong statusKb(long pid, String key) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith(key)) {
                    String v = line.substring(key.length()).trim().split(" +")[0];
                    return OptionalLong.of(Long.parseLong(v) * 1024);
                }
            }
        } catch (IOException | RuntimeException e) {
            // process gone
        }
        return OptionalLong.empty();
    }

    private static long clockTicks() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            p.waitFor();
            long v = Long.parseLong(out);
            return v > 0 ? v : 100;
        } catch (IOException | RuntimeException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}
