package dev.weft.perfreports.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * What the proxy process used in the phase of the slices a result measures ({@code "proxy.phase"}), summed
 * over the measured slices: {@code phase} names it (the load tool: {@code "produce"}, the producer with its
 * concurrent consumer, for the produce and e2e results; {@code "consume"}, the catch-up read). Per GB / per
 * MB = per 10^9 / 10^6 record bytes the proxy moved in that phase, in either direction ({@code bytes}).
 * {@code syscallsPerMB} counts every system call (perf's {@code raw_syscalls:sys_enter}); it is null when
 * perf could not count, and {@code syscallsAbsent} says why. {@code syscrPerMB} / {@code syscwPerMB} are
 * the read- and write-family calls of {@code /proc/PID/io} (io_uring operations are not in them). Any
 * field may be null.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record PhaseStats(
    String phase,
    Long bytes,
    Double cpuSecondsPerGB,
    Double syscallsPerMB,
    String syscallsAbsent,
    Double contextSwitchesPerMB,
    Double syscrPerMB,
    Double syscwPerMB) {}
