package dev.weft.proxy.config;

/**
 * A start-up failure the operator fixes in the config or on the host (a port already taken, a virtual
 * cluster that cannot start): its message is one line naming the setting and the problem, which
 * {@code weft run} prints as it is, exiting 2, without a stack trace.
 */
public class StartupException extends RuntimeException {

    public StartupException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * The one line for a listener that could not bind: the setting, the address, what listens there for
     * Weft, the system's reason, and when the address is taken, what to do about it.
     *
     * @param configPath where the address is set ({@code admin.bind}, {@code virtualClusters.main.gateways[0].bind})
     * @param what what would have listened there ("admin endpoint", "bootstrap of virtual cluster 'main'")
     */
    public static String bindProblem(String configPath, Object address, String what, Throwable cause) {
        String reason = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        String line = configPath + ": cannot listen on " + address + " (" + what + "): " + reason;
        if (reason.contains("in use")) {
            line += " (another process listens there, perhaps a second Weft on this host: stop it or change "
                    + configPath + ")";
        }
        return line;
    }
}
