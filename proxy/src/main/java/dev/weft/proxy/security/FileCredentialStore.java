package dev.weft.proxy.security;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link CredentialStore} over a {@link ScramCredentialFile}, reloaded when the file changes.
 *
 * <p>The credentials are an immutable map behind a volatile reference, swapped whole on reload, so
 * lookups on event loops never lock or wait. A reload that finds the file invalid keeps the credentials
 * it had and logs one ERROR line naming the file and the line. Changes are noticed by polling the file's
 * modification time, size and identity (inode): unlike a WatchService this sees editors and tools that
 * replace the file by a rename, and files on mounts that send no events.
 */
public final class FileCredentialStore implements CredentialStore, AutoCloseable {

    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);

    private static final Logger LOG = LoggerFactory.getLogger(FileCredentialStore.class);
    /** What an unknown user's password is checked against, so a wrong user costs what a wrong password costs. */
    private static final ScramCredential DUMMY = ScramPasswords.derive(ScramMechanism.SCRAM_SHA_512,
            "not a password anyone has".toCharArray(), ScramCredentialFile.DEFAULT_ITERATIONS);

    /** A user's credentials, either possibly null. */
    private record UserCredentials(ScramCredential sha256, ScramCredential sha512) {
    }

    /** What the file looked like when last read: any change to these means read it again. */
    private record FileStamp(FileTime modified, long size, Object identity) {
    }

    private final Path file;
    private final ScheduledExecutorService ownExecutor;
    private final ScheduledFuture<?> watcher;
    private volatile Map<String, UserCredentials> users;
    /** Written and read only by reloads (synchronized). */
    private FileStamp lastSeen;

    private FileCredentialStore(Path file, Duration pollInterval, ScheduledExecutorService executor, boolean ownsExecutor)
            throws CredentialFileException {
        this.file = file;
        this.ownExecutor = ownsExecutor ? executor : null;
        FileStamp stamp = stamp();
        this.users = load(ScramCredentialFile.read(file));
        this.lastSeen = stamp;
        long millis = Math.max(1, pollInterval.toMillis());
        this.watcher = executor.scheduleWithFixedDelay(this::reloadIfChanged, millis, millis, TimeUnit.MILLISECONDS);
    }

    /** Reads {@code file} (it must exist and be valid) and watches it every second on a daemon thread of its own. */
    public static FileCredentialStore open(Path file) throws CredentialFileException {
        return open(file, DEFAULT_POLL_INTERVAL);
    }

    /** As {@link #open(Path)}, checking the file every {@code pollInterval}. */
    public static FileCredentialStore open(Path file, Duration pollInterval) throws CredentialFileException {
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "weft-credentials-watch");
            t.setDaemon(true);
            return t;
        });
        try {
            return new FileCredentialStore(file, pollInterval, executor, true);
        } catch (CredentialFileException | RuntimeException e) {
            executor.shutdownNow();
            throw e;
        }
    }

    /** As {@link #open(Path, Duration)}, polling on {@code executor}, which {@link #close()} leaves running. */
    public static FileCredentialStore open(Path file, Duration pollInterval, ScheduledExecutorService executor)
            throws CredentialFileException {
        return new FileCredentialStore(file, pollInterval, Objects.requireNonNull(executor), false);
    }

    public Path file() {
        return file;
    }

    @Override
    public ScramCredential scram(String user, ScramMechanism mechanism) {
        UserCredentials c = users.get(user);
        if (c == null) {
            return null;
        }
        return switch (mechanism) {
            case SCRAM_SHA_256 -> c.sha256();
            case SCRAM_SHA_512 -> c.sha512();
            default -> null;
        };
    }

    /** Checks against SCRAM-SHA-512 when the user has it, else SCRAM-SHA-256. Costs one PBKDF2 derivation (milliseconds). */
    @Override
    public boolean verifyPlain(String user, char[] password) {
        if (password.length == 0) {
            return false; // says nothing about the user, so no need to spend the time
        }
        UserCredentials c = user == null ? null : users.get(user);
        ScramMechanism mechanism = ScramMechanism.SCRAM_SHA_512;
        ScramCredential credential = c == null ? null : c.sha512();
        if (credential == null && c != null && c.sha256() != null) {
            mechanism = ScramMechanism.SCRAM_SHA_256;
            credential = c.sha256();
        }
        if (credential == null) {
            ScramPasswords.matches(ScramMechanism.SCRAM_SHA_512, DUMMY, password); // the same work, result ignored
            return false;
        }
        return ScramPasswords.matches(mechanism, credential, password);
    }

    /**
     * Reads the file again and uses it when it is valid. When it is not (or cannot be read), keeps the
     * credentials it had, logs one ERROR line naming the file and the problem, and returns false.
     */
    public synchronized boolean reload() {
        FileStamp stamp = null;
        try {
            stamp = stamp();
            users = load(ScramCredentialFile.read(file));
            return true;
        } catch (CredentialFileException e) {
            LOG.error("{}; keeping the credentials loaded before ({} user(s))", e.getMessage(), users.size());
            return false;
        } finally {
            // a file seen broken is not retried until it changes again: one ERROR line per bad edit
            lastSeen = stamp;
        }
    }

    /** Stops watching the file. Lookups keep answering from the credentials last loaded. */
    @Override
    public void close() {
        watcher.cancel(false);
        if (ownExecutor != null) {
            ownExecutor.shutdownNow();
        }
    }

    private synchronized void reloadIfChanged() {
        try {
            FileStamp now = stamp();
            if (!Objects.equals(now, lastSeen)) {
                reload();
            }
        } catch (CredentialFileException e) {
            if (lastSeen != null) { // the file went away: say so once, until it is back
                LOG.error("{}; keeping the credentials loaded before ({} user(s))", e.getMessage(), users.size());
                lastSeen = null;
            }
        } catch (RuntimeException e) {
            // a failure here must not end the schedule (a throwing task is never run again)
            LOG.error("{}: checking for changes failed: {}", file, e.toString());
        }
    }

    private FileStamp stamp() throws CredentialFileException {
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            return new FileStamp(a.lastModifiedTime(), a.size(), a.fileKey());
        } catch (IOException e) {
            throw new CredentialFileException(file + ": cannot read: " + ScramCredentialFile.reason(e), e);
        }
    }

    private Map<String, UserCredentials> load(ScramCredentialFile credentials) {
        Map<String, UserCredentials> loaded = new HashMap<>();
        int count = 0;
        for (ScramCredentialFile.Entry e : credentials.entries()) {
            UserCredentials had = loaded.getOrDefault(e.user(), new UserCredentials(null, null));
            loaded.put(e.user(), e.mechanism() == ScramMechanism.SCRAM_SHA_512
                    ? new UserCredentials(had.sha256(), e.credential())
                    : new UserCredentials(e.credential(), had.sha512()));
            count++;
        }
        LOG.info("{}: loaded {} credential(s) for {} user(s)", file, count, loaded.size());
        return Map.copyOf(loaded);
    }
}
