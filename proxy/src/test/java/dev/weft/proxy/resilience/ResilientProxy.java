package dev.weft.proxy.resilience;

import dev.weft.proxy.server.WeftProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The bootstrap address of a proxy's virtual cluster "main" and its admin endpoint's counters (the
 * proxies themselves come from {@link dev.weft.proxy.testing.VirtualClusterFixture}, one per kind).
 */
final class ResilientProxy {

    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private ResilientProxy() {
    }

    static String bootstrap(WeftProxy proxy) {
        return proxy.bootstrapAddresses("main").get(0);
    }

    static InetSocketAddress bootstrapAddress(WeftProxy proxy) {
        return KafkaWire.address(bootstrap(proxy));
    }

    /** Sum of every sample of {@code metric} whose labels include {@code labels}, read from /metrics now. */
    static double metric(WeftProxy proxy, String metric, Map<String, String> labels) {
        double sum = 0;
        for (Sample s : scrape(proxy)) {
            if (s.name().equals(metric) && s.labels().entrySet().containsAll(labels.entrySet())) {
                sum += s.value();
            }
        }
        return sum;
    }

    /** Sums of {@code metric} per value of {@code label}, read from /metrics now. */
    static Map<String, Double> byLabel(WeftProxy proxy, String metric, String label) {
        Map<String, Double> out = new TreeMap<>();
        for (Sample s : scrape(proxy)) {
            if (s.name().equals(metric) && s.labels().containsKey(label)) {
                out.merge(s.labels().get(label), s.value(), Double::sum);
            }
        }
        return out;
    }

    record Sample(String name, Map<String, String> labels, double value) {
    }

    static List<Sample> scrape(WeftProxy proxy) {
        InetSocketAddress admin = proxy.adminAddress().orElseThrow();
        String text;
        try {
            text = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.getPort() + "/metrics"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.lastIndexOf(' ');
            String name = brace >= 0 ? line.substring(0, brace) : line.substring(0, space);
            Map<String, String> labels = new HashMap<>();
            if (brace >= 0) {
                Matcher m = LABEL.matcher(line.substring(brace + 1, line.lastIndexOf('}')));
                while (m.find()) {
                    labels.put(m.group(1), m.group(2));
                }
            }
            samples.add(new Sample(name, labels, Double.parseDouble(line.substring(space + 1))));
        }
        return samples;
    }

    static long count(WeftProxy proxy, String metric) {
        return (long) metric(proxy, metric, Map.of());
    }
}
