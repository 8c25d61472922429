package dev.weft.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Measures how long {@link KafkaCluster#start()} and {@link KafkaCluster#close()} take for 1- and
 * 3-broker clusters, in-JVM and forked (and 3 brokers with one dedicated controller in-JVM); prints a
 * Markdown table. Not a test: run it by hand (see
 * {@code testkit/README.md}) with the number of runs per case as the only argument (default 5).
 *
 * <p>The first in-JVM start of a JVM loads and compiles Kafka's classes; it is reported on its own as
 * "cold" and left out of the medians. Every forked start runs fresh JVMs, so every forked run is cold.
 */
public final class StartTimeProbe {

    private record Case(String name, int brokers, int dedicatedControllers, boolean forked) {
    }

    private StartTimeProbe() {
    }

    public static void main(String[] args) {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        List<Case> cases = List.of(
            new Case("in-JVM, 1 broker", 1, 0, false),
            new Case("in-JVM, 3 brokers", 3, 0, false),
            new Case("in-JVM, 3 brokers + 1 dedicated controller", 3, 1, false),
            new Case("forked, 1 broker", 1, 0, true),
            new Case("forked, 3 brokers", 3, 0, true));
        System.out.printf(Locale.ROOT, "Runs per case: %d; JVM %s, %d CPUs, max heap %d MiB; load average before: %s%n%n",
            runs, Runtime.version(), Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20,
            loadAverage());
        System.out.println("| cluster | median start (ms) | min-max start (ms) | median close (ms) |");
        System.out.println("|---|---:|---:|---:|");
        boolean cold = true;
        for (Case c : cases) {
            if (cold && !c.forked()) {
                long[] first = measure(c);
                System.out.printf(Locale.ROOT, "| %s, cold (first in the JVM) | %d | | %d |%n", c.name(), first[0], first[1]);
                cold = false;
            }
            List<Long> starts = new ArrayList<>();
            List<Long> closes = new ArrayList<>();
            for (int i = 0; i < runs; i++) {
                long[] times = measure(c);
                starts.add(times[0]);
                closes.add(times[1]);
            }
            System.out.printf(Locale.ROOT, "| %s | %d | %d-%d | %d |%n", c.name(), median(starts),
                starts.stream().mapToLong(Long::longValue).min().orElseThrow(),
                starts.stream().mapToLong(Long::longValue).max().orElseThrow(), median(closes));
        }
        System.out.printf(Locale.ROOT, "%nLoad average after: %s%n", loadAverage());
    }

    /** The 1, 5 and 15 minute load averages, where Linux tells them: other work on the machine skews timings. */
    private static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /** Returns {start ms, close ms}. */
    private static long[] measure(Case c) {
        KafkaCluster cluster = KafkaCluster.builder()
            .brokers(c.brokers())
            .dedicatedControllers(c.dedicatedControllers())
            .forked(c.forked())
            .build();
        long t0 = System.nanoTime();
        cluster.start();
        long t1 = System.nanoTime();
        cluster.close();
        long t2 = System.nanoTime();
        return new long[] {(t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000};
    }

    private static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
