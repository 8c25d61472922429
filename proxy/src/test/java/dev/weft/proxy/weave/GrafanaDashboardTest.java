package dev.weft.proxy.weave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.switching.CutoverOutcome;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.SwitchedProxy;
import dev.weft.proxy.testing.ScrapedMetrics;
import dev.weft.proxy.testing.ScrapedMetrics.Sample;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard ({@code deploy/grafana/weft-dashboard.json}) queries only what a running Weft
 * serves: a branch router over two real clusters (a holding branch and a redacting one, so the writer
 * metrics exist) carries produce and fetch traffic, and a switch over the same clusters is moved once;
 * then every metric a panel or variable queries is on the two instances' {@code /metrics}, with every
 * label the query groups or filters by. And every metric the README's
 * table documents has a panel, so the two stay in step.
 */
class GrafanaDashboardTest {

    private static final Path DASHBOARD = Path.of("..", "deploy", "grafana", "weft-dashboard.json");
    /** Documented, on no panel: per-process debugging counters of one client quirk (README, Metrics). */
    private static final Set<String> NOT_ON_THE_DASHBOARD = Set.of(
            "weft_requests_with_trailing_bytes_total", "weft_request_trailing_bytes_total");
    private static final Pattern METRIC = Pattern.compile("\\bweft_[a-z_]+");
    private static final Pattern GROUPING = Pattern.compile("\\bby \\(([^)]*)\\)");
    private static final Pattern MATCHER_LABEL = Pattern.compile("[{,]\\s*([a-z_]+)\\s*(?:=~|!~|!=|=)");
    private static final List<String> HISTOGRAM_SUFFIXES = List.of("_bucket", "_sum", "_count");

    private static WovenClusters clusters;
    /** A switch over the same two clusters, moved once, so that every weft_switch_* series exists. */
    private static WeftProxy switched;

    @BeforeAll
    static void start() {
        clusters = WovenClusters.start(2).topic(0, "orders", 2).topic(1, "shadow.orders", 2).topic(1, "red.orders", 2)
                .routeWithTargets("branch", List.of(
                        "name: prod, target: { cluster: c0 }",
                        "name: shadow, target: { cluster: c1 }, topics: { include: [orders] }, naming: { prefix: \"shadow.\" },"
                                + " transactional: hold",
                        "name: redacted, target: { cluster: c1 }, topics: { include: [orders] }, naming: { prefix: \"red.\" },"
                                + " transforms: [ { redact: { value-fields: [\"$.email\"], with: mask } } ]"));
        switched = SwitchedProxy.start(clusters.cluster(0).bootstrapServers(), clusters.cluster(1).bootstrapServers(), "",
                "    cutover: { drainTimeoutMs: 200 }");
    }

    @AfterAll
    static void stop() {
        if (switched != null) {
            switched.close();
        }
        if (clusters != null) {
            clusters.close();
        }
    }

    @Test
    void everyQueriedMetricAndLabelIsServedAndEveryDocumentedMetricHasAPanel() throws Exception {
        int records = 20;
        try (KafkaProducer<String, String> producer = WeaveClients.producer(clusters.bootstrap(), Map.of())) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>("orders", "k" + i, "{\"email\":\"u" + i + "@example.com\"}")).get();
            }
        }
        assertEquals(records, WeaveClients.readAll(clusters.bootstrap(), "orders", records).size(), "read back through Weft");
        Poll.until(Duration.ofSeconds(30), "the redacting branch's acknowledgements on /metrics",
                () -> ScrapedMetrics.of(clusters.proxy()).sum("weft_branch_records_total",
                        Map.of("branch", "redacted", "stage", "acked")) == records,
                () -> ScrapedMetrics.of(clusters.proxy()).linesOf("weft_branch_records_total"));
        CutoverOutcome moved = switched.switches().get("alias").switchTo("west", true, line -> { }).get(60, TimeUnit.SECONDS);
        assertTrue(moved.switched(), moved.message());
        // a reload of the config it runs (nothing changes) gives the reload panels their timestamp series
        dev.weft.proxy.reload.ReloadOutcome reload = clusters.proxy().reload(clusters.proxy().config());
        assertTrue(reload.applied(), reload.describe());
        ScrapedMetrics branching = ScrapedMetrics.of(clusters.proxy());
        ScrapedMetrics switching = ScrapedMetrics.of(switched);
        List<Sample> both = new ArrayList<>(branching.samples());
        both.addAll(switching.samples());
        ScrapedMetrics served = new ScrapedMetrics(branching.text() + switching.text(), both);

        List<String> queries = queries(new ObjectMapper().readTree(Files.readString(DASHBOARD)));
        assertTrue(queries.size() >= 20, "the dashboard's queries: " + queries);
        Set<String> queried = new TreeSet<>();
        List<String> problems = new ArrayList<>();
        for (String query : queries) {
            List<String> metrics = find(METRIC, query);
            assertFalse(metrics.isEmpty(), "a query without a Weft metric: " + query);
            metrics.forEach(m -> queried.add(family(m)));
            Set<String> labelsServed = new TreeSet<>();
            for (String metric : metrics) {
                List<Sample> samples = samplesOf(served, metric);
                if (samples.isEmpty()) {
                    problems.add(metric + " is not on /metrics (" + query + ")");
                }
                samples.forEach(s -> labelsServed.addAll(s.labels().keySet()));
            }
            List<String> labels = new ArrayList<>(find(MATCHER_LABEL, query));
            for (String grouping : find(GROUPING, query)) {
                for (String label : grouping.split(",")) {
                    labels.add(label.trim());
                }
            }
            for (String label : labels) {
                if (!labelsServed.contains(label)) {
                    problems.add("label '" + label + "' is on no sample of " + metrics + " (" + query + ")");
                }
            }
        }
        assertEquals(List.of(), problems, "what the dashboard asks of /metrics");

        Set<String> documented = documentedMetrics();
        assertTrue(documented.size() >= 20, "the README's metrics table: " + documented);
        Set<String> missing = new TreeSet<>(documented);
        missing.removeAll(queried);
        missing.removeAll(NOT_ON_THE_DASHBOARD);
        assertEquals(Set.of(), missing, "documented metrics without a panel");
    }

    /** Every PromQL expression of the dashboard: panel targets and query variables. */
    private static List<String> queries(JsonNode dashboard) {
        List<String> out = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                out.add(target.path("expr").asText());
            }
        }
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if (variable.path("type").asText().equals("query")) {
                out.add(variable.path("query").path("query").asText());
            }
        }
        return out;
    }

    /** The samples of a metric family as exposed: a histogram's as its bucket, sum and count lines. */
    private static List<Sample> samplesOf(ScrapedMetrics served, String metric) {
        List<Sample> out = new ArrayList<>();
        for (Sample s : served.samples()) {
            if (s.name().equals(metric) || HISTOGRAM_SUFFIXES.stream().anyMatch(x -> s.name().equals(family(metric) + x))) {
                out.add(s);
            }
        }
        return out;
    }

    /** A histogram series' family name ({@code x_bucket} → {@code x}); any other name as it is. */
    private static String family(String metric) {
        for (String suffix : HISTOGRAM_SUFFIXES) {
            if (metric.endsWith(suffix)) {
                return metric.substring(0, metric.length() - suffix.length());
            }
        }
        return metric;
    }

    /** The metric names of the README's Metrics table (its first column). */
    private static Set<String> documentedMetrics() throws Exception {
        Set<String> out = new TreeSet<>();
        Pattern row = Pattern.compile("^\\| `(weft_[a-z_]+)` \\|");
        for (String line : Files.readAllLines(Path.of("..", "README.md"))) {
            Matcher m = row.matcher(line);
            if (m.find()) {
                out.add(m.group(1));
            }
        }
        return out;
    }

    private static List<String> find(Pattern pattern, String text) {
        List<String> out = new ArrayList<>();
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            out.add(m.groupCount() > 0 ? m.group(1) : m.group());
        }
        return out;
    }
}
