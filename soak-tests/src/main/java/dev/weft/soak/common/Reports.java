package dev.weft.soak.common;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Pieces of a {@code weft-report/v1} JSON document (perf-reports' {@code dev.weft.perfreports.model}):
 * header, machine, versions, latency summaries and base64-encoded compressed HdrHistograms
 * (microseconds, through the model's {@code Histograms}). Written as maps so that the soak run's extra
 * fields (fault recovery, redelivery counts, histogram log names) sit next to the schema's fields;
 * perf-reports' reader ignores unknown fields, and the tests read every report back with it.
 */
public final class Reports {

    public static final String SCHEMA = "weft-report/v1";
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Reports() {
    }

    /** schema, kind, title, createdAt, gitCommit, command, machine, versions. */
    public static Map<String, Object> header(String kind, String title, String command) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("schema", SCHEMA);
        r.put("kind", kind);
        r.put("title", title);
        r.put("createdAt", Instant.now().toString());
        r.put("gitCommit", gitCommit());
        r.put("command", command);
        r.put("machine", machine());
        Map<String, Object> versions = new LinkedHashMap<>();
        versions.put("weft", weftVersion());
        versions.put("kafka", org.apache.kafka.common.utils.internals.AppInfoParser.getVersion());
        r.put("versions", versions);
        return r;
    }

    public static Map<String, Object> machine() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cpus", Runtime.getRuntime().availableProcessors());
        long mem = -1;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            mem = os.getTotalMemorySize();
        }
        m.put("memoryBytes", mem);
        String kernel = System.getProperty("os.version");
        try {
            kernel = Files.readString(Path.of("/proc/sys/kernel/osrelease")).trim();
        } catch (IOException e) {
            // not Linux
        }
        m.put("kernel", kernel);
        m.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        return m;
    }

    /** {@code git rev-parse HEAD} (suffixed {@code -dirty} when the tree has changes), or "unknown". */
    public static String gitCommit() {
        try {
            String head = run("git", "rev-parse", "HEAD");
            if (head.isEmpty()) {
                return "unknown";
            }
            String status = run("git", "status", "--porcelain", "--untracked-files=no");
            return status.isEmpty() ? head : head + "-dirty";
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    private static String run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes()).trim();
        return p.waitFor() == 0 ? out : "";
    }

    private static String weftVersion() {
        String v = dev.weft.proxy.cli.WeftMain.class.getPackage().getImplementationVersion();
        return v != null ? v : "0.1.0-SNAPSHOT";
    }

    /** {p50, p99, p999, max, count} in microseconds. */
    public static Map<String, Object> latency(Histogram h) {
        Map<String, Object> l = new LinkedHashMap<>();
        boolean empty = h.getTotalCount() == 0;
        l.put("p50", empty ? 0 : h.getValueAtPercentile(50));
        l.put("p99", empty ? 0 : h.getValueAtPercentile(99));
        l.put("p999", empty ? 0 : h.getValueAtPercentile(99.9));
        l.put("max", empty ? 0 : h.getMaxValue());
        l.put("count", h.getTotalCount());
        return l;
    }

    /** Base64 of the histogram's compressed encoding (HdrHistogram's own format). */
    public static String encode(Histogram h) {
        return dev.weft.perfreports.model.Histograms.encode(h);
    }

    public static Histogram decode(String base64) {
        return dev.weft.perfreports.model.Histograms.decode(base64);
    }

    public static void write(Path file, Map<String, Object> report) throws IOException {
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        JSON.writeValue(file.toFile(), report);
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> read(Path file) throws IOException {
        return JSON.readValue(file.toFile(), Map.class);
    }

    /** A new histogram for microsecond latencies up to an hour, 3 significant digits. */
    public static Histogram micros() {
        return new Histogram(3_600_000_000L, 3);
    }
}
