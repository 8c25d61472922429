package dev.weft.perfreports.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads and writes weft-report/v1 JSON. Unknown fields are ignored; absent fields read as null. */
public final class ReportJson {
  private ReportJson() {}

  static final ObjectMapper MAPPER = new ObjectMapper()
      .enable(SerializationFeature.INDENT_OUTPUT)
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

  public static Report read(Path file) throws IOException {
    try {
      return parse(Files.readString(file));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  /** Parses a report; IllegalArgumentException when it is not weft-report/v1 or lacks kind/results. */
  public static Report parse(String json) {
    JsonNode node;
    try {
      node = MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
    }
    return fromTree(node);
  }

  static Report fromTree(JsonNode node) {
    if (node == null || !node.isObject()) throw new IllegalArgumentException("a report is a JSON object");
    String schema = node.path("schema").asText(null);
    if (!Report.SCHEMA.equals(schema)) {
      throw new IllegalArgumentException("schema is " + schema + ", expected " + Report.SCHEMA);
    }
    if (!node.path("kind").isTextual()) throw new IllegalArgumentException("no kind");
    if (!node.path("results").isArray()) throw new IllegalArgumentException("no results array");
    try {
      return MAPPER.treeToValue(node, Report.class);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("bad report: " + e.getOriginalMessage(), e);
    }
  }

  /** True when the JSON text is a weft-report/v1 object (looks only at {@code schema}). */
  public static boolean isReport(JsonNode node) {
    return node != null && node.isObject() && Report.SCHEMA.equals(node.path("schema").asText(null));
  }

  public static String toJson(Report report) {
    try {
      return MAPPER.writeValueAsString(report) + "\n";
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes the report (pretty-printed), creating parent directories. */
  public static void write(Report report, Path file) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) Files.createDirectories(parent);
    Files.writeString(file, toJson(report));
  }
}
