package dev.weft.perfreports.jmh;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads JMH's standard JSON result file ({@code -rf json}). */
public final class JmhJson {
  private JmhJson() {}

  private static final ObjectMapper MAPPER = new ObjectMapper();

  public static List<JmhResult> read(Path file) throws IOException {
    try {
      return fromTree(MAPPER.readTree(file.toFile()));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  /** True when the JSON is a JMH result array (first element has benchmark and primaryMetric). */
  public static boolean isJmh(JsonNode node) {
    return node != null && node.isArray() && !node.isEmpty()
        && node.get(0).has("benchmark") && node.get(0).has("primaryMetric");
  }

  public static List<JmhResult> fromTree(JsonNode node) {
    if (!isJmh(node)) throw new IllegalArgumentException("not a JMH JSON result array");
    List<JmhResult> out = new ArrayList<>();
    for (JsonNode b : node) {
      JsonNode pm = b.path("primaryMetric");
      if (!pm.path("score").isNumber()) {
        throw new IllegalArgumentException(b.path("benchmark").asText() + ": primaryMetric.score missing");
      }
      Map<String, String> params = new LinkedHashMap<>();
      b.path("params").properties().forEach(e -> params.put(e.getKey(), e.getValue().asText()));
      JsonNode alloc = b.path("secondaryMetrics").path("gc.alloc.rate.norm").path("score");
      JsonNode err = pm.path("scoreError");
      out.add(new JmhResult(b.path("benchmark").asText(), b.path("mode").asText(null), b.path("threads").asInt(1),
          params, pm.path("score").asDouble(), err.isNumber() ? err.asDouble() : null,
          pm.path("scoreUnit").asText(null), alloc.isNumber() ? alloc.asDouble() : null));
    }
    return out;
  }
}
