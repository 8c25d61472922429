package dev.weft.proxy.switching;

import java.time.Duration;
import java.util.Map;

/**
 * How a cutover ended.
 *
 * @param switched true when the switch points at the target now
 * @param message one line for the operator (the admin answer's last line and the log)
 * @param phases how long each phase that ran took
 */
public record CutoverOutcome(boolean switched, String message, Map<CutoverPhase, Duration> phases) {

    public CutoverOutcome {
        phases = Map.copyOf(phases);
    }
}
