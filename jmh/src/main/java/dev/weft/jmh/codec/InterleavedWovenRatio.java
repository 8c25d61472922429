package dev.weft.jmh.codec;

import io.netty.util.concurrent.FastThreadLocalThread;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.IntSupplier;

/**
 * The ratio of a {@link WovenPathBenchmark} operation renumbered (partition weaving) to the same operation
 * renamed (topic weaving), measured interleaved: rounds of {@code batch} calls of one, then {@code batch}
 * of the other (which goes first alternates), each round timed, and the answer is the median of the
 * per-round ratios. On a shared host whose speed drifts by 2× within a minute (seen here) two JMH runs one
 * after the other disagree by more than the 10 % being judged; two batches a few milliseconds apart see
 * the same machine, so their ratio holds. The JMH benchmark stays the source of absolute ns/op; this
 * answers only "how much slower is renumbering than renaming".
 *
 * <p>Run from the shaded jar, on a Netty event-loop thread as the JMH runs are:
 * {@code java -cp jmh/target-jmh/benchmarks.jar dev.weft.jmh.codec.InterleavedWovenRatio fetchRequest 1000x1024 ids 10}
 * (operation, shape, keys, segment; optional rounds, default 400, and batch, default so one batch takes ~1 ms).
 */
public final class InterleavedWovenRatio {

    private InterleavedWovenRatio() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: InterleavedWovenRatio <fetchRequest|fetchRequestSameUpstream|produceRequest|fetchResponse|produceResponse>"
                    + " <shape, e.g. 1000x1024> <ids|names> <segment: 5|10> [rounds] [batch]");
            System.exit(2);
        }
        Throwable[] failure = new Throwable[1];
        Thread loop = new FastThreadLocalThread(() -> {
            try {
                run(args);
            } catch (Throwable t) {
                failure[0] = t;
            }
        }, "interleaved-ratio");
        loop.start();
        loop.join();
        if (failure[0] != null) {
            throw new IllegalStateException(failure[0]);
        }
    }

    private static void run(String[] args) {
        WovenPathBenchmark bench = new WovenPathBenchmark();
        bench.shape = args[1];
        bench.keys = args[2];
        bench.segment = Integer.parseInt(args[3]);
        int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 400;
        bench.setUp();
        try {
            IntSupplier renamed;
            IntSupplier renumbered;
            switch (args[0]) {
                case "fetchRequest" -> { renamed = bench::fetchRequest; renumbered = bench::fetchRequestRenumbered; }
                // renaming a client request already cut into the weave's upstream topics: the same request upstream
                case "fetchRequestSameUpstream" -> { renamed = bench::fetchRequestRenamedCut; renumbered = bench::fetchRequestRenumbered; }
                case "produceRequest" -> { renamed = bench::produceRequest; renumbered = bench::produceRequestRenumbered; }
                case "fetchResponse" -> { renamed = bench::fetchResponse; renumbered = bench::fetchResponseRenumbered; }
                case "produceResponse" -> { renamed = bench::produceResponse; renumbered = bench::produceResponseRenumbered; }
                default -> throw new IllegalArgumentException("unknown operation " + args[0]);
            }
            long sink = 0;
            long warmEnd = System.nanoTime() + 5_000_000_000L;   // 5 s: both compiled by C2
            int calls = 0;
            while (System.nanoTime() < warmEnd) {
                sink += renamed.getAsInt() + renumbered.getAsInt();
                calls++;
            }
            int batch = args.length > 5 ? Integer.parseInt(args[5]) : Math.max(1, (int) (calls / 5_000L));
            double[] renamedNs = new double[rounds];
            double[] renumberedNs = new double[rounds];
            double[] ratio = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                boolean renamedFirst = (r & 1) == 0;
                long a = timed(renamedFirst ? renamed : renumbered, batch);
                long b = timed(renamedFirst ? renumbered : renamed, batch);
                sink += a ^ b;
                renamedNs[r] = (double) (renamedFirst ? a : b) / batch;
                renumberedNs[r] = (double) (renamedFirst ? b : a) / batch;
                ratio[r] = renumberedNs[r] / renamedNs[r];
            }
            System.out.printf(Locale.ROOT, "%s shape=%s keys=%s segment=%d rounds=%d batch=%d: renamed median %.0f ns/op,"
                            + " renumbered median %.0f ns/op, ratio median %.3f (quartiles %.3f-%.3f)%s%n",
                    args[0], bench.shape, bench.keys, bench.segment, rounds, batch, median(renamedNs), median(renumberedNs),
                    median(ratio), quantile(ratio, 0.25), quantile(ratio, 0.75), sink == 42 ? " " : "");
        } finally {
            bench.tearDown();
        }
    }

    private static long timed(IntSupplier op, int batch) {
        long sink = 0;
        long start = System.nanoTime();
        for (int i = 0; i < batch; i++) {
            sink += op.getAsInt();
        }
        long elapsed = System.nanoTime() - start;
        return sink == Long.MIN_VALUE ? elapsed + 1 : elapsed;   // keeps the results live
    }

    private static double median(double[] values) {
        return quantile(values, 0.5);
    }

    private static double quantile(double[] values, double q) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))];
    }
}
