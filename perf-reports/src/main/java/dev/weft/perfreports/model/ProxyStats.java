package dev.weft.perfreports.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * Resource use of a proxy target ({@code "proxy"} in JSON); any field may be null. {@code cpuSecondsPerGB}
 * is over whole slices (every phase, all record bytes moved); {@code phase} is the cost of the phase this
 * result measures (absent in reports written before it existed).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record ProxyStats(Double cpuSecondsPerGB, Long peakRssBytes, PhaseStats phase) {

  public ProxyStats(Double cpuSecondsPerGB, Long peakRssBytes) {
    this(cpuSecondsPerGB, peakRssBytes, null);
  }
}
