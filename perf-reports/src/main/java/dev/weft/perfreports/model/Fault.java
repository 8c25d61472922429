package dev.weft.perfreports.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/** A fault injected at {@code t} seconds since the start of the run, e.g. kind "broker-kill", detail "broker 1". */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record Fault(double t, String kind, String detail) {}
