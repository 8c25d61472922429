package dev.weft.proxy.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A password or other secret from the config. Written as {@code env:NAME} (an environment variable),
 * {@code file:/path} (the file's first line) or a literal. Its {@link #toString()} never shows the
 * value, so a secret cannot reach a log line through a config record.
 */
public final class Secret {

    private final String reference;

    private Secret(String reference) {
        this.reference = reference;
    }

    public static Secret of(String reference) {
        return reference == null ? null : new Secret(reference);
    }

    /**
     * The secret's value.
     *
     * @throws IllegalArgumentException naming the variable or file (never the value) when it cannot be read
     */
    public char[] reveal() {
        if (reference.startsWith("env:")) {
            String name = reference.substring(4);
            String value = System.getenv(name);
            if (value == null) {
                throw new IllegalArgumentException("environment variable " + name + " is not set");
            }
            return value.toCharArray();
        }
        if (reference.startsWith("file:")) {
            Path file = Path.of(reference.substring(5));
            try {
                String text = Files.readString(file);
                int newline = text.indexOf('\n');
                return (newline >= 0 ? text.substring(0, newline) : text).strip().toCharArray();
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read secret file " + file + ": " + e.getMessage());
            }
        }
        return reference.toCharArray();
    }

    /** Where the secret comes from, without its value: "env:NAME", "file:/path" or "(inline)". */
    public String source() {
        return reference.startsWith("env:") || reference.startsWith("file:") ? reference : "(inline)";
    }

    @Override
    public String toString() {
        return "Secret[" + source() + "]";
    }
}
