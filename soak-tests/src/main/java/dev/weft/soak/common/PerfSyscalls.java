package dev.weft.soak.common;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Every system call of a process over a window, counted by {@code perf stat -x, -e raw_syscalls:sys_enter
 * -p PID} (/proc does not count them): {@link #start} runs perf and returns once it has its counter open
 * (a {@code perf_event} file descriptor), {@link #stop} sends SIGINT, on which perf prints the count. perf
 * counts the threads that exist when it attaches: threads started later are missed (a known small error).
 * When perf is not on the PATH, does not work here (probed once: {@code perf stat ... -- true}) or fails
 * for this window, the count is absent with the reason, never 0.
 */
public final class PerfSyscalls {

    /** A count, or (syscalls null) why there is none. */
    public record Count(Long syscalls, String absent) {
    }

    private static final String EVENT = "raw_syscalls:sys_enter";
    private static volatile String unavailable;
    private static volatile boolean probed;

    private final Process perf;
    private final String absent;

    private PerfSyscalls(Process perf, String absent) {
        this.perf = perf;
        this.absent = absent;
    }

    /** Starts counting the system calls of {@code pid}; never throws (a failure is the count's absent reason). */
    public static PerfSyscalls start(long pid) {
        String why = unavailable();
        if (why != null) {
            return new PerfSyscalls(null, why);
        }
        try {
            Process p = new ProcessBuilder(Procs.which("perf"), "stat", "-x,", "-e", EVENT, "-p", Long.toString(pid))
                    .redirectErrorStream(true).start();
            p.getOutputStream().close();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!attached(p.pid())) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    p.destroyForcibly();
                    return new PerfSyscalls(null, "perf stat did not attach to " + pid + ": " + lastLine(output(p)));
                }
                TimeUnit.MILLISECONDS.sleep(5);
            }
            return new PerfSyscalls(p, null);
        } catch (IOException e) {
            return new PerfSyscalls(null, "perf stat: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new PerfSyscalls(null, "interrupted");
        }
    }

    /** Stops counting: the system calls since {@link #start}, or why there is no count. */
    public Count stop() {
        if (perf == null) {
            return new Count(null, absent);
        }
        try {
            Procs.signal(perf.pid(), "INT");
            if (!perf.waitFor(10, TimeUnit.SECONDS)) {
                perf.destroyForcibly();
                return new Count(null, "perf stat did not stop on SIGINT");
            }
            return parse(output(perf));
        } catch (IOException | RuntimeException e) {
            perf.destroyForcibly();
            return new Count(null, "perf stat: " + e.getMessage());
        } catch (InterruptedException e) {
            perf.destroyForcibly();
            Thread.currentThread().interrupt();
            return new Count(null, "interrupted");
        }
    }

    /** The count in perf's CSV line {@code 12345,,raw_syscalls:sys_enter,...}, or why there is none. */
    static Count parse(String output) {
        for (String line : output.split("\n")) {
            String[] f = line.trim().split(",");
            if (f.length > 2 && f[2].equals(EVENT)) {
                try {
                    return new Count(Long.parseLong(f[0]), null);
                } catch (NumberFormatException e) {
                    return new Count(null, "perf stat counted " + f[0]); // <not counted>, <not supported>
                }
            }
        }
        return new Count(null, "perf stat printed no count: " + lastLine(output));
    }

    /** Null when perf works here, else why not (probed once). */
    public static String unavailable() {
        if (!probed) {
            synchronized (PerfSyscalls.class) {
                if (!probed) {
                    unavailable = probe();
                    probed = true;
                }
            }
        }
        return unavailable;
    }

    private static String probe() {
        String exe = Procs.which("perf");
        if (exe == null) {
            return "perf not on PATH";
        }
        try {
            Process p = new ProcessBuilder(exe, "stat", "-x,", "-e", EVENT, "--", "true").redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out = output(p);
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "perf stat -- true did not finish";
            }
            Count c = parse(out);
            return p.exitValue() != 0 ? "perf stat failed (exit " + p.exitValue() + "): " + lastLine(out)
                    : c.syscalls() == null ? c.absent() : null;
        } catch (IOException e) {
            return "perf stat: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    private static boolean attached(long perfPid) {
        try (var fds = Files.list(Path.of("/proc", Long.toString(perfPid), "fd"))) {
            return fds.anyMatch(fd -> {
                try {
                    return Files.readSymbolicLink(fd).toString().contains("perf_event");
                } catch (IOException e) {
                    return false; // closed meanwhile
                }
            });
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static String output(Process p) throws IOException {
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    private static String lastLine(String s) {
        String t = s.strip();
        return t.isEmpty() ? "(no output)" : t.substring(t.lastIndexOf('\n') + 1).strip();
    }
}
