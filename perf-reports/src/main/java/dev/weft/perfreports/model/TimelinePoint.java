package dev.weft.perfreports.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/** One sample of a run's timeline: {@code t} seconds since the start of the run. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record TimelinePoint(double t, String target, Double recordsPerSec, Double p99Micros) {}
