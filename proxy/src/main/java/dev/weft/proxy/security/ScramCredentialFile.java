package dev.weft.proxy.security;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.common.security.scram.ScramCredential;

/**
 * The operator's file of client credentials: salted SCRAM keys, never passwords. One line per user and
 * mechanism, readable and greppable:
 * <pre>
 *   # comments and blank lines are kept when the file is rewritten
 *   alice SCRAM-SHA-512 iterations=8192 salt=BASE64 storedKey=BASE64 serverKey=BASE64
 * </pre>
 * Reading a bad line fails with one line naming the file, the line number and the problem. Writing
 * replaces the file atomically (a temporary file in the same directory, then a rename), owner-only
 * (rw-------) where the file system has POSIX permissions, so a reader never sees half a file.
 */
public final class ScramCredentialFile {

    /** Kafka's own floor (RFC 7677 asks for at least 4096). */
    public static final int MIN_ITERATIONS = 4096;
    /** Kafka's ceiling: brokers refuse credentials with more. */
    public static final int MAX_ITERATIONS = 16384;
    public static final int DEFAULT_ITERATIONS = 8192;

    /** One credential line. */
    public record Entry(String user, ScramMechanism mechanism, ScramCredential credential) {
    }

    /** A fresh credential (random salt) for {@code password}, derived as a broker would with kafka-clients' ScramFormatter. */
    public static Entry derive(String user, ScramMechanism mechanism, char[] password, int iterations) {
        return new Entry(user, mechanism, ScramPasswords.derive(mechanism, password, iterations));
    }

    /** A line as read: its text, kept as is, and its credential (null for a comment or a blank line). */
    private record Line(String text, Entry entry) {
    }

    private static final String HEADER = """
            # Weft client credentials (salted SCRAM keys, no passwords): one line per user and mechanism,
            # written by 'weft credentials add|remove'. A running Weft reloads this file when it changes.
            """;
    private static final String FIELDS = "iterations, salt, storedKey, serverKey";
    private static final FileAttribute<?> OWNER_ONLY = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private final Path path;
    private final List<Line> lines;

    private ScramCredentialFile(Path path, List<Line> lines) {
        this.path = path;
        this.lines = lines;
    }

    /** Reads and checks the whole file; a missing file is an error. */
    public static ScramCredentialFile read(Path path) throws CredentialFileException {
        List<String> texts;
        try {
            texts = Files.readAllLines(path, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new CredentialFileException(path + ": cannot read: " + reason(e), e);
        }
        List<Line> lines = new ArrayList<>(texts.size());
        Map<String, Integer> firstLine = new HashMap<>();
        for (int i = 0; i < texts.size(); i++) {
            String text = texts.get(i);
            String trimmed = text.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                lines.add(new Line(text, null));
                continue;
            }
            int number = i + 1;
            try {
                Entry entry = parse(trimmed);
                Integer earlier = firstLine.putIfAbsent(entry.user() + " " + entry.mechanism(), number);
                if (earlier != null) {
                    throw new IllegalArgumentException("a second " + entry.mechanism().mechanismName() + " credential for '"
                            + entry.user() + "' (the first is on line " + earlier + ")");
                }
                lines.add(new Line(text, entry));
            } catch (IllegalArgumentException e) {
                throw new CredentialFileException(path + ": line " + number + ": " + e.getMessage());
            }
        }
        return new ScramCredentialFile(path, lines);
    }

    /** Reads the file, or when there is none yet, an empty one that {@link #write()} creates. */
    public static ScramCredentialFile readOrEmpty(Path path) throws CredentialFileException {
        if (Files.notExists(path)) {
            List<Line> lines = new ArrayList<>();
            HEADER.lines().forEach(text -> lines.add(new Line(text, null)));
            return new ScramCredentialFile(path, lines);
        }
        return read(path);
    }

    public Path path() {
        return path;
    }

    /** The credentials in file order. */
    public List<Entry> entries() {
        return lines.stream().map(Line::entry).filter(e -> e != null).toList();
    }

    /** Sets the user's credential for the entry's mechanism: replaces its line in place, or appends one. */
    public void put(Entry entry) {
        String problem = userNameProblem(entry.user());
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        Line line = new Line(format(entry), entry);
        for (int i = 0; i < lines.size(); i++) {
            Entry e = lines.get(i).entry();
            if (e != null && e.user().equals(entry.user()) && e.mechanism() == entry.mechanism()) {
                lines.set(i, line);
                return;
            }
        }
        lines.add(line);
    }

    /** Drops every credential of the user; returns how many there were. */
    public int remove(String user) {
        int before = lines.size();
        lines.removeIf(l -> l.entry() != null && l.entry().user().equals(user));
        return before - lines.size();
    }

    /** Writes the file atomically, owner-only where permissions are POSIX. A symbolic link is followed, not replaced. */
    public void write() throws CredentialFileException {
        Path tmp = null;
        try {
            Path target = Files.isSymbolicLink(path) ? path.toRealPath() : path.toAbsolutePath();
            Path dir = target.getParent();
            if (!Files.isDirectory(dir)) {
                throw new CredentialFileException(path + ": cannot write: no directory " + dir);
            }
            String prefix = "." + target.getFileName() + ".";
            boolean posix = Files.getFileStore(dir).supportsFileAttributeView("posix");
            tmp = posix ? Files.createTempFile(dir, prefix, ".tmp", OWNER_ONLY) : Files.createTempFile(dir, prefix, ".tmp");
            StringBuilder text = new StringBuilder();
            lines.forEach(l -> text.append(l.text()).append('\n'));
            try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ByteBuffer bytes = StandardCharsets.UTF_8.encode(text.toString());
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
                channel.force(true); // on disk before the rename makes it the file
            }
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
            tmp = null;
        } catch (IOException e) {
            throw new CredentialFileException(path + ": cannot write: " + reason(e), e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // the write already failed; that failure is the one to report
                }
            }
        }
    }

    /** Why a user name cannot be in the file, or null when it can. */
    public static String userNameProblem(String user) {
        if (user.isEmpty()) {
            return "the user name is empty";
        }
        if (user.codePoints().anyMatch(c -> Character.isWhitespace(c) || Character.isSpaceChar(c))) {
            return "the user name '" + user + "' contains whitespace";
        }
        if (user.codePoints().anyMatch(Character::isISOControl)) {
            return "the user name contains a control character";
        }
        if (user.startsWith("#")) {
            return "the user name '" + user + "' starts with '#' (the file would read it as a comment)";
        }
        return null;
    }

    static String format(Entry e) {
        Base64.Encoder base64 = Base64.getEncoder();
        ScramCredential c = e.credential();
        return e.user() + " " + e.mechanism().mechanismName() + " iterations=" + c.iterations() + " salt=" + base64.encodeToString(c.salt())
                + " storedKey=" + base64.encodeToString(c.storedKey()) + " serverKey=" + base64.encodeToString(c.serverKey());
    }

    /** One credential line (stripped, not a comment); IllegalArgumentException says what is wrong, without echoing keys. */
    private static Entry parse(String line) {
        String[] words = line.split("\\s+");
        if (words.length < 2) {
            throw new IllegalArgumentException("expected 'USER MECHANISM iterations=N salt=BASE64 storedKey=BASE64 serverKey=BASE64'");
        }
        String user = words[0];
        String problem = userNameProblem(user);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        ScramMechanism mechanism = ScramMechanism.fromMechanismName(words[1]);
        if (mechanism == ScramMechanism.UNKNOWN) {
            throw new IllegalArgumentException("unknown mechanism '" + words[1] + "' (one of SCRAM-SHA-256, SCRAM-SHA-512)");
        }
        Map<String, String> fields = new LinkedHashMap<>();
        for (int i = 2; i < words.length; i++) {
            int eq = words[i].indexOf('=');
            String name = eq < 0 ? words[i] : words[i].substring(0, eq);
            if (!List.of("iterations", "salt", "storedKey", "serverKey").contains(name)) {
                // a name is echoed only when it looks like one, never a stray piece of a key
                String what = eq > 0 && name.matches("[A-Za-z]{1,20}") ? "unknown field '" + name + "'"
                        : "word " + (i + 1) + " is not NAME=VALUE";
                throw new IllegalArgumentException(what + " (the fields are " + FIELDS + ")");
            }
            if (eq < 0) {
                throw new IllegalArgumentException(name + " has no value (" + name + "=...)");
            }
            if (fields.put(name, words[i].substring(eq + 1)) != null) {
                throw new IllegalArgumentException(name + " is given twice");
            }
        }
        for (String name : List.of("iterations", "salt", "storedKey", "serverKey")) {
            if (!fields.containsKey(name)) {
                throw new IllegalArgumentException("missing " + name + "= (each line has " + FIELDS + ")");
            }
        }
        int iterations = iterations(fields.get("iterations"));
        byte[] salt = base64("salt", fields.get("salt"));
        if (salt.length == 0) {
            throw new IllegalArgumentException("salt is empty");
        }
        byte[] storedKey = key("storedKey", fields.get("storedKey"), mechanism);
        byte[] serverKey = key("serverKey", fields.get("serverKey"), mechanism);
        return new Entry(user, mechanism, new ScramCredential(salt, storedKey, serverKey, iterations));
    }

    private static int iterations(String value) {
        int n;
        try {
            n = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("iterations=" + value + " is not a whole number");
        }
        if (n < MIN_ITERATIONS || n > MAX_ITERATIONS) {
            throw new IllegalArgumentException("iterations=" + n + " is outside " + MIN_ITERATIONS + ".."
                    + MAX_ITERATIONS + " (Kafka's limits)");
        }
        return n;
    }

    private static byte[] key(String name, String value, ScramMechanism mechanism) {
        byte[] key = base64(name, value);
        int expected = ScramPasswords.keyLength(mechanism);
        if (key.length != expected) {
            throw new IllegalArgumentException(name + " is " + key.length + " bytes, a " + mechanism.mechanismName()
                    + " key is " + expected);
        }
        return key;
    }

    private static byte[] base64(String name, String value) {
        try {
            return Base64.getDecoder().decode(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + " is not base64");
        }
    }

    /** The system's reason for an I/O failure, in words for the operator. */
    static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof MalformedInputException) {
            return "not UTF-8 text";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
