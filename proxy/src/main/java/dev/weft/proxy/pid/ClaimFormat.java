package dev.weft.proxy.pid;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The records of the producer-id state topic, readable with kcat
 * ({@code kcat -C -t __weft_producer_ids -f '%o %k %s %h\n'}).
 *
 * <ul>
 *   <li>key: UTF-8 {@code v1:<virtualPid>:<cluster>}, e.g. {@code v1:4007:west}: format version 1,
 *       the virtual producer id (the id the home cluster allocated) in decimal, the upstream cluster's
 *       name from the config (the rest of the key, so it may itself contain ':');</li>
 *   <li>value: UTF-8 decimal upstream producer id allocated by that cluster, e.g. {@code 12};
 *       a null value (tombstone) forgets the key: the next claim after it wins;</li>
 *   <li>headers (informational, never read back for decisions): {@code weft-replica} the writing
 *       replica's id, {@code weft-kind} {@code claim} (a fresh allocation), {@code confirm} (the
 *       decided winner re-appended by a claimer, so that compaction, which keeps the last record per
 *       key, keeps the first) or {@code repair} (the winner re-appended by a tailer that saw the last
 *       record for a key disagree with the first for too long).</li>
 * </ul>
 *
 * Keys of another version are skipped (written by a newer Weft), never misread.
 */
final class ClaimFormat {

    static final String VERSION = "v1";
    static final String REPLICA_HEADER = "weft-replica";
    static final String KIND_HEADER = "weft-kind";

    enum Kind {
        CLAIM, CONFIRM, REPAIR;

        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private ClaimFormat() {
    }

    static byte[] key(ClaimKey key) {
        return (VERSION + ":" + key.virtualPid() + ":" + key.cluster()).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] value(long upstreamPid) {
        return Long.toString(upstreamPid).getBytes(StandardCharsets.UTF_8);
    }

    /** The key, or null when it is not a v1 key (see {@link #describe}). */
    static ClaimKey parseKey(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        String s = new String(bytes, StandardCharsets.UTF_8);
        int first = s.indexOf(':');
        int second = first < 0 ? -1 : s.indexOf(':', first + 1);
        if (second < 0 || !s.substring(0, first).equals(VERSION) || second == s.length() - 1) {
            return null;
        }
        try {
            long pid = Long.parseLong(s, first + 1, second, 10);
            return pid < 0 ? null : new ClaimKey(pid, s.substring(second + 1));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The upstream producer id, or -1 when the value is not a non-negative decimal number. */
    static long parseValue(byte[] bytes) {
        try {
            long v = Long.parseLong(new String(bytes, StandardCharsets.UTF_8));
            return v < 0 ? -1 : v;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Why a key was skipped, for the log. */
    static String describe(byte[] key) {
        if (key == null) {
            return "a record without a key";
        }
        String s = new String(key, StandardCharsets.UTF_8);
        String shown = s.length() > 80 ? s.substring(0, 80) + "..." : s;
        return s.startsWith("v") && s.indexOf(':') > 1 && !s.startsWith(VERSION + ":")
                ? "key '" + shown + "' of another format version (written by a newer Weft?)"
                : "malformed key '" + shown + "' (expected " + VERSION + ":<virtualPid>:<cluster>)";
    }

    static void headers(Headers headers, String replicaId, Kind kind) {
        headers.add(REPLICA_HEADER, replicaId.getBytes(StandardCharsets.UTF_8));
        headers.add(KIND_HEADER, kind.label().getBytes(StandardCharsets.UTF_8));
    }

    static String header(Headers headers, String name) {
        Header h = headers.lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
