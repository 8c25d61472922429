package dev.weft.perfreports.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One run (weft-report/v1). {@code kind} is {@link #KIND_LOAD} or {@link #KIND_SOAK}; {@code config}
 * is free-form (nested maps, lists, strings, numbers, booleans).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record Report(
    String schema,
    String kind,
    String title,
    String createdAt,
    String gitCommit,
    String command,
    Machine machine,
    Map<String, String> versions,
    Map<String, Object> config,
    List<Result> results,
    List<TimelinePoint> timeline,
    List<Fault> faults,
    Integrity integrity) {

  public static final String SCHEMA = "weft-report/v1";
  public static final String KIND_LOAD = "load";
  public static final String KIND_SOAK = "soak";

  public Report {
    results = results == null ? List.of() : List.copyOf(results);
    timeline = timeline == null ? List.of() : List.copyOf(timeline);
    faults = faults == null ? List.of() : List.copyOf(faults);
  }

  /** Results of one scenario, in file order. */
  public List<Result> results(String scenario) {
    return results.stream().filter(r -> Objects.equals(r.scenario(), scenario)).toList();
  }

  /** The result of {@code target} in {@code scenario} (first match), or null. */
  public Result result(String scenario, String target) {
    for (Result r : results) {
      if (Objects.equals(r.scenario(), scenario) && Objects.equals(r.target(), target)) return r;
    }
    return null;
  }

  public static Builder builder(String kind) {
    return new Builder(kind);
  }

  /** Mutable builder; {@link #build()} makes the immutable record with schema weft-report/v1. */
  public static final class Builder {
    private final String kind;
    private String title;
    private String createdAt;
    private String gitCommit;
    private String command;
    private Machine machine;
    private Map<String, String> versions;
    private Map<String, Object> config;
    private final List<Result> results = new ArrayList<>();
    private final List<TimelinePoint> timeline = new ArrayList<>();
    private final List<Fault> faults = new ArrayList<>();
    private Integrity integrity;

    private Builder(String kind) {
      this.kind = Objects.requireNonNull(kind, "kind");
    }

    public Builder title(String v) { this.title = v; return this; }
    public Builder createdAt(String v) { this.createdAt = v; return this; }
    public Builder gitCommit(String v) { this.gitCommit = v; return this; }
    public Builder command(String v) { this.command = v; return this; }
    public Builder machine(Machine v) { this.machine = v; return this; }
    public Builder versions(Map<String, String> v) { this.versions = v == null ? null : new LinkedHashMap<>(v); return this; }
    public Builder version(String name, String v) {
      if (versions == null) versions = new LinkedHashMap<>();
      versions.put(name, v);
      return this;
    }
    public Builder config(Map<String, Object> v) { this.config = v == null ? null : new LinkedHashMap<>(v); return this; }
    public Builder config(String key, Object v) {
      if (config == null) config = new LinkedHashMap<>();
      config.put(key, v);
      return this;
    }
    public Builder result(Result r) { results.add(Objects.requireNonNull(r)); return this; }
    public Builder timeline(TimelinePoint p) { timeline.add(Objects.requireNonNull(p)); return this; }
    public Builder fault(Fault f) { faults.add(Objects.requireNonNull(f)); return this; }
    public Builder integrity(Integrity v) { this.integrity = v; return this; }

    public Report build() {
      return new Report(SCHEMA, kind, title, createdAt, gitCommit, command, machine, versions, config,
          results, timeline.isEmpty() ? null : timeline, faults.isEmpty() ? null : faults, integrity);
    }
  }
}
