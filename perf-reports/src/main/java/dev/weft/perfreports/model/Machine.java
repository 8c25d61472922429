package dev.weft.perfreports.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/** The machine a run was measured on; any field may be null. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record Machine(Integer cpus, Long memoryBytes, String kernel, String jdk, String os) {

  /** This JVM's machine: available processors, physical memory when known, os.version, java.version, os.name. */
  public static Machine current() {
    Long mem = null;
    if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      mem = os.getTotalMemorySize();
    }
    return new Machine(Runtime.getRuntime().availableProcessors(), mem,
        System.getProperty("os.version"), System.getProperty("java.version"), System.getProperty("os.name"));
  }
}
