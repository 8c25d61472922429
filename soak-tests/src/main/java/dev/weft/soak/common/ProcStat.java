package dev.weft.soak.common;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * CPU time, peak resident set and other counters of another process, read from Linux /proc:
 * {@code /proc/PID/stat} fields 14 and 15 (utime, stime, in clock ticks; all threads of the process),
 * {@code /proc/PID/status} {@code VmHWM} (peak RSS since the process started, kB), the context switches
 * of its threads ({@code /proc/PID/task/TID/status}) and its read/write system calls ({@code /proc/PID/io}).
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

    /**
     * {@code voluntary_ctxt_switches + nonvoluntary_ctxt_switches} summed over the threads alive now, or -1
     * when the process is gone. /proc/PID/status has the main thread's only; a thread that exits between
     * two readings takes its switches with it (a known small undercount of a difference).
     */
    public static long contextSwitches(long pid) {
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
            long sum = 0;
            for (Path t : threads) {
                long v = field(t.resolve("status"), "voluntary_ctxt_switches:");
                long n = field(t.resolve("status"), "nonvoluntary_ctxt_switches:");
                sum += Math.max(0, v) + Math.max(0, n); // -1: the thread exited meanwhile
            }
            return sum;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * A counter of {@code /proc/PID/io} ({@code syscr}: read-family system calls, {@code syscw}: write-family;
     * all threads, exited ones included), or -1 when it cannot be read. io_uring operations are not counted.
     */
    public static long io(long pid, String key) {
        return field(Path.of("/proc", Long.toString(pid), "io"), key + ":");
    }

    /** True while /proc has the process. */
    public static boolean exists(long pid) {
        return pid > 0 && Files.isDirectory(Path.of("/proc", Long.toString(pid)));
    }

    private static OptionalLong statusKb(long pid, String key) {
        long kb = field(Path.of("/proc", Long.toString(pid), "status"), key);
        return kb < 0 ? OptionalLong.empty() : OptionalLong.of(kb * 1024);
    }

    /** The first number after {@code key} on the line starting with it ("VmHWM:   1234 kB"), or -1. */
    private static long field(Path file, String key) {
        try {
            for (String line : Files.readAllLines(file)) {
                if (line.startsWith(key)) {
                    return Long.parseLong(line.substring(key.length()).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // process or thread gone
        }
        return -1;
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
