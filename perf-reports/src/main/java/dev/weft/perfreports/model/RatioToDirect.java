package dev.weft.perfreports.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A result's ratios to the {@code direct} target of the same scenario in the same run, as the writer
 * computed them. The compare tool recomputes them from the results when {@code direct} is present.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record RatioToDirect(Double recordsPerSec, Double p99) {}
