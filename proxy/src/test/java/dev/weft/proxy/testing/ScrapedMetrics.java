package dev.weft.proxy.testing;

import dev.weft.proxy.server.WeftProxy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One scrape of a Weft instance's admin endpoint ({@code /metrics}, Prometheus text), parsed into
 * samples. The counters the collapsed and branch tests look at:
 * <ul>
 *   <li>{@code weft_upstream_requests_total{virtual_cluster, cluster, broker, api}}: sub-requests the
 *       proxy sent to each real broker (issue 9), what proves a split;</li>
 *   <li>{@code weft_requests_total{virtual_cluster, api}}: client requests, by API;</li>
 *   <li>{@code weft_connections_opened_total{virtual_cluster}}: client connections accepted.</li>
 * </ul>
 */
public record ScrapedMetrics(String text, List<Sample> samples) {

    public static final String UPSTREAM_REQUESTS = "weft_upstream_requests_total";
    public static final String REQUESTS = "weft_requests_total";
    public static final String CONNECTIONS_OPENED = "weft_connections_opened_total";

    private static final Pattern LINE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})?\\s+(\\S+)(?:\\s+\\S+)?$",
            Pattern.MULTILINE);
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    public record Sample(String name, Map<String, String> labels, double value) {
    }

    public static ScrapedMetrics of(WeftProxy proxy) {
        InetSocketAddress admin = proxy.adminAddress().orElseThrow(() -> new AssertionError("the admin endpoint is off"));
        String text;
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://" + (admin.getAddress().isAnyLocalAddress() ? "127.0.0.1" : admin.getHostString())
                    + ":" + admin.getPort() + "/metrics"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new AssertionError("/metrics answered " + r.statusCode() + ": " + r.body());
            }
            text = r.body();
        } catch (IOException e) {
            throw new AssertionError("cannot scrape /metrics at " + admin + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        List<Sample> samples = new ArrayList<>();
        Matcher m = LINE.matcher(text);
        while (m.find()) { // comment lines (# HELP, # TYPE) do not match
            Map<String, String> labels = new TreeMap<>();
            if (m.group(2) != null) {
                Matcher l = LABEL.matcher(m.group(2));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
            }
            double value;
            try {
                value = Double.parseDouble(m.group(3));
            } catch (NumberFormatException e) {
                continue;
            }
            samples.add(new Sample(m.group(1), Map.copyOf(labels), value));
        }
        return new ScrapedMetrics(text, List.copyOf(samples));
    }

    /** The sum of samples of {@code name} whose labels include every entry of {@code match}. */
    public double sum(String name, Map<String, String> match) {
        double total = 0;
        for (Sample s : samples) {
            if (s.name().equals(name) && s.labels().entrySet().containsAll(match.entrySet())) {
                total += s.value();
            }
        }
        return total;
    }

    /**
     * Sub-requests of {@code api} sent to each real broker of {@code cluster} for virtual cluster "main", by
     * broker id (requests to "any" broker, a bootstrap connection, are left out).
     */
    public Map<Integer, Double> upstreamRequestsByBroker(String cluster, String api) {
        Map<Integer, Double> out = new TreeMap<>();
        for (Sample s : samples) {
            Map<String, String> l = s.labels();
            String broker = l.get("broker");
            if (s.name().equals(UPSTREAM_REQUESTS) && "main".equals(l.get("virtual_cluster")) && cluster.equals(l.get("cluster"))
                    && api.equals(l.get("api")) && broker != null && broker.matches("-?\\d+")) {
                out.merge(Integer.parseInt(broker), s.value(), Double::sum);
            }
        }
        return out;
    }

    /** Client requests of {@code api} to virtual cluster "main". */
    public double clientRequests(String api) {
        return sum(REQUESTS, Map.of("virtual_cluster", "main", "api", api));
    }

    public double connectionsOpened() {
        return sum(CONNECTIONS_OPENED, Map.of("virtual_cluster", "main"));
    }

    /** The lines of the scrape that mention {@code name} (for messages). */
    public String linesOf(String name) {
        StringBuilder b = new StringBuilder();
        text.lines().filter(l -> l.startsWith(name)).forEach(l -> b.append("\n  ").append(l));
        return b.isEmpty() ? " (no " + name + " series at all)" : b.toString();
    }

    /**
     * Per broker of {@code brokers}: how many more sub-requests of {@code api} {@code after} counted than
     * this scrape did.
     */
    public Map<Integer, Double> growth(ScrapedMetrics after, String cluster, String api, List<Integer> brokers) {
        Map<Integer, Double> before = upstreamRequestsByBroker(cluster, api);
        Map<Integer, Double> now = after.upstreamRequestsByBroker(cluster, api);
        Map<Integer, Double> out = new TreeMap<>();
        for (int b : brokers) {
            out.put(b, now.getOrDefault(b, 0.0) - before.getOrDefault(b, 0.0));
        }
        return out;
    }
}
