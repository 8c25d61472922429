package dev.weft.proxy.cli;

import dev.weft.proxy.security.CredentialFileException;
import dev.weft.proxy.security.ScramCredentialFile;
import java.io.Console;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.clients.admin.ScramMechanism;

/**
 * {@code weft credentials add|remove|list}: keeps the file of client credentials a SASL-terminating
 * gateway checks against ({@link ScramCredentialFile}). Passwords come from standard input (or a
 * no-echo prompt on a terminal), never from the command line, where {@code ps} and shell history would
 * show them. Exit 0 on success, 1 when the command fails, 2 for bad usage.
 */
public final class CredentialsCommand {

    static final String USAGE = "weft credentials add FILE USER [--mechanism SCRAM-SHA-256|SCRAM-SHA-512|both] [--iterations N]"
            + " | weft credentials remove FILE USER | weft credentials list FILE";

    private CredentialsCommand() {
    }

    /** For the {@code weft} command: prompts on the terminal when standard input is one. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        Console console = System.console();
        return run(args, System.in, console != null && console.isTerminal() ? console : null, out, err);
    }

    /** Reads the password (for {@code add}) from the first line of {@code in}; for tests and tools, never prompts. */
    public static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
        return run(args, in, null, out, err);
    }

    private static int run(String[] args, InputStream in, Console console, PrintStream out, PrintStream err) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("weft credentials: " + e.getMessage());
            err.println("usage: " + USAGE);
            return 2;
        }
        try {
            return switch (options.action) {
                case "add" -> add(options, in, console, out);
                case "remove" -> remove(options, out);
                default -> list(options, out);
            };
        } catch (CredentialFileException | Failure e) {
            err.println("weft credentials: " + e.getMessage());
            return 1;
        }
    }

    private static int add(Options options, InputStream in, Console console, PrintStream out) throws CredentialFileException {
        ScramCredentialFile file = ScramCredentialFile.readOrEmpty(options.file);
        char[] password = console != null ? prompt(console, options.user) : firstLine(in);
        try {
            if (password.length == 0) {
                throw new Failure("no password: give it as the first line of standard input");
            }
            for (ScramMechanism mechanism : options.mechanisms) {
                file.put(ScramCredentialFile.derive(options.user, mechanism, password, options.iterations));
            }
        } finally {
            Arrays.fill(password, '\0');
        }
        file.write();
        out.println(options.file + ": " + options.user + " " + names(options.mechanisms) + " iterations=" + options.iterations);
        return 0;
    }

    private static int remove(Options options, PrintStream out) throws CredentialFileException {
        ScramCredentialFile file = ScramCredentialFile.read(options.file);
        int removed = file.remove(options.user);
        if (removed == 0) {
            throw new Failure(options.file + ": no user '" + options.user + "'");
        }
        file.write();
        out.println(options.file + ": removed " + options.user + " (" + removed + " credential(s))");
        return 0;
    }

    private static int list(Options options, PrintStream out) throws CredentialFileException {
        for (ScramCredentialFile.Entry e : ScramCredentialFile.read(options.file).entries()) {
            out.println(e.user() + " " + e.mechanism().mechanismName() + " iterations=" + e.credential().iterations());
        }
        return 0;
    }

    private static char[] prompt(Console console, String user) {
        char[] first = console.readPassword("Password for %s: ", user);
        char[] second = console.readPassword("Again: ");
        try {
            if (first == null || second == null) {
                if (first != null) {
                    Arrays.fill(first, '\0');
                }
                throw new Failure("no password given");
            }
            if (!Arrays.equals(first, second)) {
                Arrays.fill(first, '\0');
                throw new Failure("the passwords do not match");
            }
            return first;
        } finally {
            if (second != null) {
                Arrays.fill(second, '\0');
            }
        }
    }

    /** The first line of {@code in}, without its line ending, as chars (no String that would linger). */
    private static char[] firstLine(InputStream in) {
        char[] buffer = new char[64];
        int length = 0;
        try {
            Reader reader = new InputStreamReader(in, StandardCharsets.UTF_8);
            for (int c; (c = reader.read()) != -1 && c != '\n'; ) {
                if (length == buffer.length) {
                    char[] bigger = Arrays.copyOf(buffer, buffer.length * 2);
                    Arrays.fill(buffer, '\0');
                    buffer = bigger;
                }
                buffer[length++] = (char) c;
            }
        } catch (IOException e) {
            throw new Failure("cannot read the password from standard input: " + e.getMessage());
        }
        if (length > 0 && buffer[length - 1] == '\r') {
            length--;
        }
        char[] password = Arrays.copyOf(buffer, length);
        Arrays.fill(buffer, '\0');
        return password;
    }

    private static String names(List<ScramMechanism> mechanisms) {
        return String.join(",", mechanisms.stream().map(ScramMechanism::mechanismName).toList());
    }

    /** A failure the user is told about in one line (exit 1). */
    private static final class Failure extends RuntimeException {
        Failure(String message) {
            super(message);
        }
    }

    /** The parsed command line; IllegalArgumentException for bad usage. */
    private record Options(String action, Path file, String user, List<ScramMechanism> mechanisms, int iterations) {

        static Options parse(String[] args) {
            if (args.length < 2) {
                throw new IllegalArgumentException("add, remove or list?");
            }
            String action = args[1];
            if (!List.of("add", "remove", "list").contains(action)) {
                throw new IllegalArgumentException("unknown action '" + action + "' (add, remove or list)");
            }
            List<String> words = new ArrayList<>();
            String mechanism = null;
            String iterations = null;
            for (int i = 2; i < args.length; i++) {
                String arg = args[i];
                String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
                if (name.equals("--mechanism") || name.equals("--iterations")) {
                    if (!action.equals("add")) {
                        throw new IllegalArgumentException(name + " is for add");
                    }
                    String value;
                    if (arg.contains("=")) {
                        value = arg.substring(arg.indexOf('=') + 1);
                    } else if (i + 1 < args.length) {
                        value = args[++i];
                    } else {
                        throw new IllegalArgumentException(name + " needs a value");
                    }
                    if (name.equals("--mechanism")) {
                        mechanism = value;
                    } else {
                        iterations = value;
                    }
                } else if (arg.startsWith("-")) {
                    throw new IllegalArgumentException("unknown option '" + arg + "'"
                            + (name.startsWith("--pass") ? " (the password is read from standard input)" : ""));
                } else {
                    words.add(arg);
                }
            }
            int expected = action.equals("list") ? 1 : 2;
            if (words.size() != expected) {
                throw new IllegalArgumentException(action + " takes " + (expected == 1 ? "FILE" : "FILE USER")
                        + (words.size() > expected ? " (the password is read from standard input)" : ""));
            }
            String user = expected == 2 ? words.get(1) : null;
            if (user != null) {
                String problem = ScramCredentialFile.userNameProblem(user);
                if (problem != null) {
                    throw new IllegalArgumentException(problem);
                }
            }
            return new Options(action, Path.of(words.get(0)), user, mechanisms(mechanism), iterations(iterations));
        }

        private static List<ScramMechanism> mechanisms(String value) {
            if (value == null || value.equals("both")) {
                return List.of(ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512);
            }
            ScramMechanism m = ScramMechanism.fromMechanismName(value);
            if (m == ScramMechanism.UNKNOWN) {
                throw new IllegalArgumentException("unknown mechanism '" + value + "' (SCRAM-SHA-256, SCRAM-SHA-512 or both)");
            }
            return List.of(m);
        }

        private static int iterations(String value) {
            if (value == null) {
                return ScramCredentialFile.DEFAULT_ITERATIONS;
            }
            int n;
            try {
                n = Integer.parseInt(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--iterations " + value + " is not a whole number");
            }
            if (n < ScramCredentialFile.MIN_ITERATIONS || n > ScramCredentialFile.MAX_ITERATIONS) {
                throw new IllegalArgumentException("--iterations " + n + " is outside " + ScramCredentialFile.MIN_ITERATIONS + ".."
                        + ScramCredentialFile.MAX_ITERATIONS + " (Kafka's limits)");
            }
            return n;
        }
    }
}
