package dev.weft.proxy.reload;

import java.util.List;

/**
 * What a config reload did: applied (perhaps with lines about settings that wait for a restart, or a
 * gateway that could not be bound) or refused, with every reason, while the old config keeps serving.
 *
 * @param applied whether the new config is in force
 * @param lines what was done or why not, one line each (config errors name file, path and problem)
 */
public record ReloadOutcome(boolean applied, List<String> lines) {

    public static ReloadOutcome refused(List<String> why) {
        return new ReloadOutcome(false, List.copyOf(why));
    }

    public static ReloadOutcome applied(List<String> lines) {
        return new ReloadOutcome(true, List.copyOf(lines));
    }

    /** The text the admin endpoint and the log give. */
    public String describe() {
        return (applied ? "config reload applied" : "config reload refused; the running config keeps serving")
                + (lines.isEmpty() ? "" : ": " + String.join("; ", lines));
    }
}
