package dev.weft.proxy.switching;

/** The phases of a cutover, in order (README "Connection switching"). */
public enum CutoverPhase {
    /** Produce refused retriably; client connections drained so nothing is in flight. */
    FENCE("fence"),
    /** Waiting until MirrorMaker 2 copied everything the old cluster held. */
    CATCH_UP("catch_up"),
    /** Consumer-group offsets translated from MM2's checkpoints, committed on the target. */
    TRANSLATE("translate"),
    /** The switch points at the target; client connections drained again so clients learn it. */
    REPOINT("repoint");

    private final String label;

    CutoverPhase(String label) {
        this.label = label;
    }

    /** The metric label and the word in log lines. */
    public String label() {
        return label;
    }
}
