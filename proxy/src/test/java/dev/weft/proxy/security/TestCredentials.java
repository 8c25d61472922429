package dev.weft.proxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.weft.proxy.cli.CredentialsCommand;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** Writes test users into a credential file the way an operator does: through {@code weft credentials add}. */
final class TestCredentials {

    private TestCredentials() {
    }

    /** Adds {@code user} with {@code password} (SCRAM-SHA-256 and -512, and PLAIN's check) to {@code file}. */
    static void add(Path file, String user, String password) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = CredentialsCommand.run(new String[] {"credentials", "add", file.toString(), user},
                new ByteArrayInputStream((password + "\n").getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(out, true, StandardCharsets.UTF_8));
        assertEquals(0, code, out.toString(StandardCharsets.UTF_8));
    }
}
