package dev.weft.proxy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.security.FileCredentialStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code weft credentials add|remove|list}: passwords from standard input only, never on the command
 * line or in the file; what is added is what the store checks against; errors are one line, exit 1, or 2
 * for bad usage.
 */
class CredentialsCommandTest {

    private static final String PASSWORD = "correct horse battery staple";

    @TempDir
    Path dir;

    @Test
    void addThenListThenTheStoreChecksThePasswordGivenOnStandardInput() throws Exception {
        Path file = dir.resolve("users");
        Result added = run(PASSWORD + "\n", "add", file.toString(), "alice");
        assertEquals(0, added.code, added.toString());
        assertEquals(file + ": alice SCRAM-SHA-256,SCRAM-SHA-512 iterations=8192\n", added.out);
        assertEquals("", added.err);

        Result listed = run("", "list", file.toString());
        assertEquals(0, listed.code, listed.toString());
        assertEquals("alice SCRAM-SHA-256 iterations=8192\nalice SCRAM-SHA-512 iterations=8192\n", listed.out);

        String text = Files.readString(file);
        assertFalse(text.contains(PASSWORD), text);
        assertFalse(text.contains("horse"), text);
        assertFalse((added.out + listed.out).contains(PASSWORD));
        try (FileCredentialStore store = FileCredentialStore.open(file)) {
            assertTrue(store.verifyPlain("alice", PASSWORD.toCharArray()));
            assertFalse(store.verifyPlain("alice", "correct horse".toCharArray()));
            assertNotNull(store.scram("alice", ScramMechanism.SCRAM_SHA_256));
            assertNotNull(store.scram("alice", ScramMechanism.SCRAM_SHA_512));
        }
    }

    @Test
    void addReplacesTheUsersCredentialForOneMechanism() throws Exception {
        Path file = dir.resolve("users");
        assertEquals(0, run("old\n", "add", file.toString(), "alice").code);
        Result replaced = run("new\r\n", "add", file.toString(), "alice", "--mechanism", "SCRAM-SHA-512", "--iterations=4096");
        assertEquals(0, replaced.code, replaced.toString());
        assertEquals(0, run("bob\n", "add", file.toString(), "bob", "--mechanism=SCRAM-SHA-256").code);
        assertEquals("alice SCRAM-SHA-256 iterations=8192\nalice SCRAM-SHA-512 iterations=4096\nbob SCRAM-SHA-256 iterations=8192\n",
                run("", "list", file.toString()).out);
        try (FileCredentialStore store = FileCredentialStore.open(file)) {
            assertTrue(store.verifyPlain("alice", "new".toCharArray()), "SCRAM-SHA-512 (the strongest) has the new password; CRLF cut");
            assertTrue(store.verifyPlain("bob", "bob".toCharArray()));
            assertNull(store.scram("bob", ScramMechanism.SCRAM_SHA_512));
        }
    }

    @Test
    void theFileIsOwnerOnlyAfterAdd() throws Exception {
        Path file = dir.resolve("users");
        assertEquals(0, run(PASSWORD + "\n", "add", file.toString(), "alice").code);
        if (Files.getFileStore(dir).supportsFileAttributeView("posix")) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        }
    }

    @Test
    void removeDropsEveryMechanismOfTheUserAndAMissingUserIsExit1() throws Exception {
        Path file = dir.resolve("users");
        assertEquals(0, run("a\n", "add", file.toString(), "alice").code);
        assertEquals(0, run("b\n", "add", file.toString(), "bob").code);
        Result removed = run("", "remove", file.toString(), "alice");
        assertEquals(0, removed.code, removed.toString());
        assertEquals(file + ": removed alice (2 credential(s))\n", removed.out);
        assertEquals("bob SCRAM-SHA-256 iterations=8192\nbob SCRAM-SHA-512 iterations=8192\n", run("", "list", file.toString()).out);

        Result missing = run("", "remove", file.toString(), "alice");
        assertEquals(1, missing.code, missing.toString());
        assertEquals("weft credentials: " + file + ": no user 'alice'", missing.onlyErrorLine());
    }

    @Test
    void thePasswordComesFromStandardInputNeverTheCommandLine() throws Exception {
        Path file = dir.resolve("users");
        Result option = run("", "add", file.toString(), "alice", "--password", PASSWORD);
        assertEquals(2, option.code, option.toString());
        assertEquals("weft credentials: unknown option '--password' (the password is read from standard input)", option.err.lines().findFirst().orElseThrow());
        Result extra = run("", "add", file.toString(), "alice", PASSWORD);
        assertEquals(2, extra.code, extra.toString());
        assertEquals("weft credentials: add takes FILE USER (the password is read from standard input)", extra.err.lines().findFirst().orElseThrow());

        Result none = run("", "add", file.toString(), "alice");
        assertEquals(1, none.code, none.toString());
        assertEquals("weft credentials: no password: give it as the first line of standard input", none.onlyErrorLine());
        assertFalse(Files.exists(file), "nothing written without a password");
    }

    @Test
    void badUsageIsExit2AndABadFileIsOneLineExit1() throws Exception {
        Path file = dir.resolve("users");
        assertEquals(2, runArgs("", new String[] {"credentials"}).code);
        assertEquals(2, run("", "rename", file.toString()).code);
        assertEquals(2, run("x\n", "add", file.toString(), "a b").code);
        assertEquals(2, run("x\n", "add", file.toString(), "alice", "--iterations", "1000").code);
        assertEquals(2, run("x\n", "add", file.toString(), "alice", "--mechanism", "SCRAM-SHA-1").code);
        assertEquals(2, run("", "list").code);

        Files.writeString(file, "# users\nalice PLAIN secret\n");
        Result list = run("", "list", file.toString());
        assertEquals(1, list.code, list.toString());
        assertEquals("weft credentials: " + file + ": line 2: unknown mechanism 'PLAIN' (one of SCRAM-SHA-256, SCRAM-SHA-512)",
                list.onlyErrorLine());
        Result add = run("x\n", "add", file.toString(), "bob");
        assertEquals(1, add.code, "a broken file is not overwritten");
        assertEquals("# users\nalice PLAIN secret\n", Files.readString(file));
        assertEquals(1, run("", "list", dir.resolve("missing").toString()).code);
    }

    @Test
    void weftDispatchesCredentials() throws Exception {
        Path file = dir.resolve("users");
        assertEquals(0, run(PASSWORD + "\n", "add", file.toString(), "alice").code);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = WeftMain.run(new String[] {"credentials", "list", file.toString()}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        assertEquals(0, code);
        assertEquals("alice SCRAM-SHA-256 iterations=8192\nalice SCRAM-SHA-512 iterations=8192\n", out.toString(StandardCharsets.UTF_8));
    }

    private static Result run(String stdin, String... words) {
        String[] args = new String[words.length + 1];
        args[0] = "credentials";
        System.arraycopy(words, 0, args, 1, words.length);
        return runArgs(stdin, args);
    }

    private static Result runArgs(String stdin, String[] args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = CredentialsCommand.run(args, new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private record Result(int code, String out, String err) {

        String onlyErrorLine() {
            List<String> lines = err.lines().toList();
            assertEquals(1, lines.size(), "one line on stderr, no stack trace: " + err);
            assertFalse(err.contains("Exception"), err);
            return lines.get(0);
        }
    }
}
