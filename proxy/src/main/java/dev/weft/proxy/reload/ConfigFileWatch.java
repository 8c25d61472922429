package dev.weft.proxy.reload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code weft run --watch}: reloads when the config file's content changed and then held still for one
 * look. It compares the bytes (a digest), not modification times or file-system events, because what
 * changes under a Kubernetes ConfigMap mount is a symlink two levels up (the kubelet swaps {@code ..data})
 * and an editor may write a file in several steps or replace it by rename; a file that is briefly missing
 * is waited for. A changed file is reloaded once, whether the reload applies or is refused: a broken
 * file is not retried until it changes again.
 */
public final class ConfigFileWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ConfigFileWatch.class);

    private final Path file;
    private final Runnable reload;
    private byte[] loaded;
    private byte[] pending;
    private String unreadable;
    private ScheduledExecutorService timer;

    /**
     * @param file the config file, as loaded at start
     * @param reload what a change does (the proxy's reload, which logs and counts its outcome)
     */
    public ConfigFileWatch(Path file, Runnable reload) {
        this.file = file;
        this.reload = reload;
        this.loaded = digest(file);
    }

    /** Looks every {@code every} on a daemon thread of its own until closed. */
    public static ConfigFileWatch start(Path file, Duration every, Runnable reload) {
        ConfigFileWatch watch = new ConfigFileWatch(file, reload);
        watch.timer = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon().name("weft-config-watch").unstarted(r));
        long millis = every.toMillis();
        watch.timer.scheduleWithFixedDelay(watch::look, millis, millis, TimeUnit.MILLISECONDS);
        LOG.info("watching {} for changes (every {} ms)", file, millis);
        return watch;
    }

    /** One look at the file; true when it reloaded. */
    public synchronized boolean look() {
        byte[] now = digest(file);
        if (now == null || Arrays.equals(now, loaded)) {
            pending = null;
            return false;
        }
        if (!Arrays.equals(now, pending)) {
            pending = now; // changed: reload once it stays so for one look (a write in progress, a swap)
            return false;
        }
        loaded = now;
        pending = null;
        LOG.info("{} changed: reloading", file);
        try {
            reload.run();
        } catch (RuntimeException e) {
            LOG.error("reloading {} after it changed failed: {}", file, e.toString(), e);
        }
        return true;
    }

    private byte[] digest(Path f) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(f));
            unreadable = null;
            return d;
        } catch (IOException e) {
            String why = e.getClass().getSimpleName() + ": " + e.getMessage();
            if (!why.equals(unreadable)) {
                LOG.warn("cannot read {} to watch it ({}); the running config stays, looking again", f, why);
                unreadable = why;
            }
            return null;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }
}
