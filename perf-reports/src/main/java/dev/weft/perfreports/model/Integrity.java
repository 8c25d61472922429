package dev.weft.perfreports.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/** End-to-end record accounting of a run; any field may be null. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record Integrity(Long acknowledged, Long consumed, Long lost, Long duplicates) {}
