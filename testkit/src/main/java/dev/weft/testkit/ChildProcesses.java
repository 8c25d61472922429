package dev.weft.testkit;

import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The child JVMs testkit starts (forked Kafka nodes, MirrorMaker 2): every one alive is known here, and a
 * shutdown hook kills whatever is left when this JVM exits, so a test run never leaves one behind.
 */
public final class ChildProcesses {

    private static final Logger LOG = LoggerFactory.getLogger(ChildProcesses.class);
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "weft-testkit-child-reaper"));
    }

    private ChildProcesses() {
    }

    /** Kills {@code child} when this JVM exits, unless {@link #reap} forgot it first. */
    public static void track(Process child) {
        LIVE.add(child);
    }

    /**
     * Forgets an exited child: closes its standard input and waits up to {@code grace} for the thread that
     * relays its output (it ends at end of stream).
     *
     * @param what the child, for log lines
     */
    public static void reap(Process child, Thread outputPump, Duration grace, String what) {
        LIVE.remove(child);
        try {
            child.getOutputStream().close();
        } catch (IOException e) {
            LOG.debug("{}: closing stdin failed", what, e);
        }
        if (outputPump != null) {
            try {
                if (!outputPump.join(grace)) {
                    LOG.warn("{}: output pump did not finish", what);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
