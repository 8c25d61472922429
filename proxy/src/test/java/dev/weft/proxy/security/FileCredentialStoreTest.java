package dev.weft.proxy.security;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.ScramCredentialCallback;
import org.apache.kafka.common.security.scram.ScramExtensionsCallback;
import org.apache.kafka.common.security.scram.internals.ScramSaslClient;
import org.apache.kafka.common.security.scram.internals.ScramSaslServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The credential file and the store over it: credentials that kafka-clients' own SCRAM client and server
 * accept, PLAIN checks against them, one-line errors naming file and line, and reloads on change that
 * keep the old credentials when an edit breaks the file.
 */
class FileCredentialStoreTest {

    private static final String ALICE_PASSWORD = "alice-Pa55word-ünïcode";

    @TempDir
    Path dir;

    @Test
    void aStoredCredentialCompletesAScramExchangeBetweenKafkaClientsOwnClientAndServer() throws Exception {
        Path file = write(Map.of("alice", ALICE_PASSWORD), ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512);
        try (FileCredentialStore store = FileCredentialStore.open(file)) {
            for (ScramMechanism mechanism : List.of(ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512)) {
                assertEquals("alice", scramExchange(store, mechanism, "alice", ALICE_PASSWORD), mechanism.mechanismName());
                SaslException wrong = assertThrows(SaslException.class, () -> scramExchange(store, mechanism, "alice", "wrong"),
                        mechanism.mechanismName());
                assertEquals("Invalid client credentials", wrong.getMessage(), "the server refused the client's proof");
            }
        }
    }

    @Test
    void verifyPlainChecksTheStrongestCredentialAndSaysFalseForAnUnknownUser() throws Exception {
        Path file = write(Map.of("alice", ALICE_PASSWORD), ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512);
        ScramCredentialFile credentials = ScramCredentialFile.read(file);
        credentials.put(ScramCredentialFile.derive("bob", ScramMechanism.SCRAM_SHA_256, "bob-secret".toCharArray(), 4096));
        credentials.write();
        try (FileCredentialStore store = FileCredentialStore.open(file)) {
            assertTrue(store.verifyPlain("alice", ALICE_PASSWORD.toCharArray()));
            assertFalse(store.verifyPlain("alice", "alice-Pa55word".toCharArray()));
            assertFalse(store.verifyPlain("alice", new char[0]));
            assertTrue(store.verifyPlain("bob", "bob-secret".toCharArray()), "a user with SCRAM-SHA-256 only");
            assertFalse(store.verifyPlain("bob", ALICE_PASSWORD.toCharArray()));
            assertFalse(store.verifyPlain("carol", ALICE_PASSWORD.toCharArray()));
            assertNull(store.scram("bob", ScramMechanism.SCRAM_SHA_512));
            assertNull(store.scram("carol", ScramMechanism.SCRAM_SHA_256));
            assertNull(store.scram("alice", ScramMechanism.UNKNOWN));
        }
    }

    @Test
    void theFileHoldsSaltedKeysOnlyOneReadableLinePerUserAndMechanismOwnerOnly() throws Exception {
        Path file = write(Map.of("alice", ALICE_PASSWORD), ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512);
        String text = Files.readString(file);
        assertFalse(text.contains(ALICE_PASSWORD), text);
        assertFalse(text.contains("alice-Pa55word"), text);
        List<String> lines = text.lines().filter(l -> !l.startsWith("#")).toList();
        assertEquals(2, lines.size(), text);
        assertTrue(lines.get(0).matches("alice SCRAM-SHA-256 iterations=8192 salt=\\S+ storedKey=\\S+ serverKey=\\S+"), lines.get(0));
        assertTrue(lines.get(1).matches("alice SCRAM-SHA-512 iterations=8192 salt=\\S+ storedKey=\\S+ serverKey=\\S+"), lines.get(1));
        if (Files.getFileStore(dir).supportsFileAttributeView("posix")) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        }
        try (var stream = Files.list(dir)) {
            assertEquals(List.of(file), stream.toList(), "no temporary file left behind");
        }
    }

    @Test
    void aRewriteKeepsCommentsAndReplacesAUsersLineInPlace() throws Exception {
        Path file = dir.resolve("users");
        Files.writeString(file, "# team A\n" + line("alice", ScramMechanism.SCRAM_SHA_512, "one") + "\n\n# team B\n"
                + line("bob", ScramMechanism.SCRAM_SHA_512, "two") + "\n");
        ScramCredentialFile credentials = ScramCredentialFile.read(file);
        ScramCredentialFile.Entry replaced = ScramCredentialFile.derive("alice", ScramMechanism.SCRAM_SHA_512, "three".toCharArray(), 4096);
        credentials.put(replaced);
        credentials.write();
        List<String> lines = Files.readAllLines(file);
        assertEquals(List.of("# team A", ScramCredentialFile.format(replaced), "", "# team B"), lines.subList(0, 4));
        assertTrue(lines.get(4).startsWith("bob SCRAM-SHA-512 "), lines.get(4));
        ScramCredential read = ScramCredentialFile.read(file).entries().get(0).credential();
        assertArrayEquals(replaced.credential().storedKey(), read.storedKey());
        assertArrayEquals(replaced.credential().serverKey(), read.serverKey());
        assertArrayEquals(replaced.credential().salt(), read.salt());
    }

    @Test
    void aBadLineIsOneLineNamingTheFileTheLineAndTheProblem() throws Exception {
        String alice = line("alice", ScramMechanism.SCRAM_SHA_512, "one");
        String fields = alice.substring(alice.indexOf(" iterations="));
        assertProblem("# users\n\nbob SCRAM-SHA-1" + fields,
                "line 3: unknown mechanism 'SCRAM-SHA-1' (one of SCRAM-SHA-256, SCRAM-SHA-512)");
        assertProblem("bob SCRAM-SHA-256" + fields, "line 1: storedKey is 64 bytes, a SCRAM-SHA-256 key is 32");
        assertProblem(alice.replace(" iterations=8192", " iterations=1000"), "line 1: iterations=1000 is outside 4096..16384 (Kafka's limits)");
        assertProblem(alice.replace(" iterations=8192", ""), "line 1: missing iterations= (each line has iterations, salt, storedKey, serverKey)");
        assertProblem(alice.replace("salt=", "salt=%%"), "line 1: salt is not base64");
        assertProblem(alice + " colour=red", "line 1: unknown field 'colour' (the fields are iterations, salt, storedKey, serverKey)");
        assertProblem(alice.replace(" salt=", " salt= "), "line 1: word 5 is not NAME=VALUE (the fields are iterations, salt, storedKey, serverKey)");
        assertProblem("alice", "line 1: expected 'USER MECHANISM iterations=N salt=BASE64 storedKey=BASE64 serverKey=BASE64'");
        assertProblem(alice + "\n" + alice, "line 2: a second SCRAM-SHA-512 credential for 'alice' (the first is on line 1)");
        Path missing = dir.resolve("missing");
        assertEquals(missing + ": cannot read: no such file",
                assertThrows(CredentialFileException.class, () -> FileCredentialStore.open(missing)).getMessage());
    }

    @Test
    void userNamesWithWhitespaceAreRefused() {
        assertEquals("the user name 'a b' contains whitespace", ScramCredentialFile.userNameProblem("a b"));
        assertEquals("the user name is empty", ScramCredentialFile.userNameProblem(""));
        assertNull(ScramCredentialFile.userNameProblem("CN=alice,O=example"));
        ScramCredentialFile credentials = assertDoesNotThrowRead(dir.resolve("users"));
        assertThrows(IllegalArgumentException.class,
                () -> credentials.put(ScramCredentialFile.derive("a\tb", ScramMechanism.SCRAM_SHA_512, "x".toCharArray(), 4096)));
    }

    @Test
    void aChangedFileIsReloadedAndABrokenEditKeepsTheOldCredentials() throws Exception {
        Path file = write(Map.of("alice", ALICE_PASSWORD), ScramMechanism.SCRAM_SHA_512);
        ListAppender<ILoggingEvent> log = capture();
        try (FileCredentialStore store = FileCredentialStore.open(file, Duration.ofMillis(20))) {
            ScramCredentialFile credentials = ScramCredentialFile.read(file);
            credentials.put(ScramCredentialFile.derive("bob", ScramMechanism.SCRAM_SHA_512, "bob-secret".toCharArray(), 4096));
            credentials.write();
            await(() -> store.scram("bob", ScramMechanism.SCRAM_SHA_512) != null, "bob, added, is loaded");
            assertTrue(store.verifyPlain("bob", "bob-secret".toCharArray()));

            credentials.remove("alice");
            credentials.write();
            await(() -> store.scram("alice", ScramMechanism.SCRAM_SHA_512) == null, "alice, removed, is gone");
            assertFalse(store.verifyPlain("alice", ALICE_PASSWORD.toCharArray()));

            // an editor's broken change, in place: the store keeps bob and says which line is wrong, once
            Files.writeString(file, "bob SCRAM-SHA-1 iterations=4096\n", StandardOpenOption.APPEND);
            int lineNumber = Files.readAllLines(file).size();
            await(() -> !errors(log).isEmpty(), "the broken edit is logged");
            assertEquals(List.of(file + ": line " + lineNumber + ": unknown mechanism 'SCRAM-SHA-1' (one of SCRAM-SHA-256, SCRAM-SHA-512);"
                    + " keeping the credentials loaded before (1 user(s))"), errors(log));
            assertTrue(store.verifyPlain("bob", "bob-secret".toCharArray()));
            assertNotNull(store.scram("bob", ScramMechanism.SCRAM_SHA_512));
            assertFalse(store.reload(), "an explicit reload of the broken file keeps the old credentials too");

            credentials.put(ScramCredentialFile.derive("alice", ScramMechanism.SCRAM_SHA_256, "back".toCharArray(), 4096));
            credentials.write();
            await(() -> store.verifyPlain("alice", "back".toCharArray()), "the fixed file is loaded");
            assertTrue(store.verifyPlain("bob", "bob-secret".toCharArray()));
            assertEquals(2, errors(log).size(), "the explicit reload logged its own line, the watcher no more");
        } finally {
            release(log);
        }
    }

    @Test
    void closeStopsWatching() throws Exception {
        Path file = write(Map.of("alice", ALICE_PASSWORD), ScramMechanism.SCRAM_SHA_512);
        FileCredentialStore store = FileCredentialStore.open(file, Duration.ofMillis(10));
        store.close();
        ScramCredentialFile credentials = ScramCredentialFile.read(file);
        credentials.remove("alice");
        credentials.write();
        Thread.sleep(100); // ten poll intervals: a running watcher would have dropped alice
        assertTrue(store.verifyPlain("alice", ALICE_PASSWORD.toCharArray()));
        assertTrue(store.reload());
        assertFalse(store.verifyPlain("alice", ALICE_PASSWORD.toCharArray()));
    }

    /** Runs kafka-clients' SCRAM client against kafka-clients' SCRAM server answering from {@code store}; returns the authorized id. */
    private static String scramExchange(CredentialStore store, ScramMechanism mechanism, String user, String password) throws Exception {
        var internal = org.apache.kafka.common.security.scram.internals.ScramMechanism.forMechanismName(mechanism.mechanismName());
        SaslClient client = new ScramSaslClient(internal, callbacks -> {
            for (Callback c : callbacks) {
                if (c instanceof NameCallback n) {
                    n.setName(user);
                } else if (c instanceof PasswordCallback p) {
                    p.setPassword(password.toCharArray());
                } else if (!(c instanceof ScramExtensionsCallback)) {
                    throw new UnsupportedCallbackException(c);
                }
            }
        });
        SaslServer server = new ScramSaslServer(internal, Map.of(), callbacks -> {
            String name = null;
            for (Callback c : callbacks) {
                if (c instanceof NameCallback n) {
                    name = n.getDefaultName();
                } else if (c instanceof ScramCredentialCallback credential) {
                    credential.scramCredential(store.scram(name, mechanism));
                } else {
                    throw new UnsupportedCallbackException(c);
                }
            }
        });
        byte[] clientFirst = client.evaluateChallenge(new byte[0]);
        byte[] serverFirst = server.evaluateResponse(clientFirst);
        byte[] clientFinal = client.evaluateChallenge(serverFirst);
        byte[] serverFinal = server.evaluateResponse(clientFinal);
        client.evaluateChallenge(serverFinal); // the client checks the server's signature: the server had the real keys
        if (!client.isComplete() || !server.isComplete()) {
            throw new SaslException("incomplete exchange");
        }
        return server.getAuthorizationID();
    }

    private Path write(Map<String, String> passwords, ScramMechanism... mechanisms) throws CredentialFileException {
        Path file = dir.resolve("users");
        ScramCredentialFile credentials = ScramCredentialFile.readOrEmpty(file);
        passwords.forEach((user, password) -> {
            for (ScramMechanism m : mechanisms) {
                credentials.put(ScramCredentialFile.derive(user, m, password.toCharArray(), ScramCredentialFile.DEFAULT_ITERATIONS));
            }
        });
        credentials.write();
        return file;
    }

    private static String line(String user, ScramMechanism mechanism, String password) {
        return ScramCredentialFile.format(ScramCredentialFile.derive(user, mechanism, password.toCharArray(), 8192));
    }

    private void assertProblem(String text, String problem) throws Exception {
        Path file = dir.resolve("bad");
        Files.writeString(file, text + "\n");
        CredentialFileException e = assertThrows(CredentialFileException.class, () -> ScramCredentialFile.read(file));
        assertEquals(file + ": " + problem, e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
    }

    private static ScramCredentialFile assertDoesNotThrowRead(Path file) {
        try {
            return ScramCredentialFile.readOrEmpty(file);
        } catch (CredentialFileException e) {
            throw new AssertionError(e);
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 10 s: " + what);
            }
            Thread.sleep(10);
        }
    }

    private static ListAppender<ILoggingEvent> capture() {
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        ((Logger) LoggerFactory.getLogger(FileCredentialStore.class)).addAppender(appender);
        return appender;
    }

    private static void release(ListAppender<ILoggingEvent> appender) {
        ((Logger) LoggerFactory.getLogger(FileCredentialStore.class)).detachAppender(appender);
    }

    private static List<String> errors(ListAppender<ILoggingEvent> log) {
        synchronized (log) { // the appender adds under its own lock
            return log.list.stream().filter(e -> e.getLevel() == Level.ERROR).map(ILoggingEvent::getFormattedMessage).toList();
        }
    }
}
