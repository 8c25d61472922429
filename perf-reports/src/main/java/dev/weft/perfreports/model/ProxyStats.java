package dev.weft.perfreports.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/** Resource use of a proxy target ({@code "proxy"} in JSON); any field may be null. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record ProxyStats(Double cpuSecondsPerGB, Long peakRssBytes) {}
