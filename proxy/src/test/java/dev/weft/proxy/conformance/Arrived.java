package dev.weft.proxy.conformance;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A record as a client under test (or an oracle) received it.
 *
 * @param member who received it (a group member's name, or "" for a single consumer)
 */
public record Arrived(String member, int partition, long offset, String key, byte[] value) {

    public static Arrived of(String member, ConsumerRecord<byte[], byte[]> record) {
        return new Arrived(member, record.partition(), record.offset(),
                record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8),
                record.value() == null ? new byte[0] : record.value());
    }

    /**
     * Parses the lines a client script printed: {@code partition<TAB>offset<TAB>key<TAB>value}, the value
     * in base64 or as it is. Lines that do not start with a digit (log lines) are ignored.
     */
    public static List<Arrived> parseTsv(String member, String output, boolean base64) {
        List<Arrived> result = new ArrayList<>();
        Base64.Decoder decoder = Base64.getDecoder();
        for (String line : output.split("\n", -1)) {
            if (line.isEmpty() || !Character.isDigit(line.charAt(0))) {
                continue;
            }
            String[] f = line.split("\t", -1);
            if (f.length != 4) {
                throw new AssertionError("malformed output line (want partition, offset, key, value): '" + line + "'");
            }
            byte[] value = base64 ? decoder.decode(f[3]) : f[3].getBytes(StandardCharsets.UTF_8);
            result.add(new Arrived(member, Integer.parseInt(f[0]), Long.parseLong(f[1]), f[2], value));
        }
        return result;
    }

    /**
     * Parses the lines a client script consuming several topics printed:
     * {@code topic<TAB>partition<TAB>offset<TAB>key<TAB>value}, the value in base64 or as it is; lines
     * without four tabs (log lines) are ignored.
     *
     * @return what arrived, by topic, each in arrival order
     */
    public static Map<String, List<Arrived>> parseTopicTsv(String member, String output, boolean base64) {
        Map<String, StringBuilder> byTopic = new TreeMap<>();
        for (String line : output.split("\n", -1)) {
            String[] f = line.split("\t", 2);
            if (f.length == 2 && !f[0].isEmpty() && f[1].chars().filter(c -> c == '\t').count() == 3) {
                byTopic.computeIfAbsent(f[0], t -> new StringBuilder()).append(f[1]).append('\n');
            }
        }
        Map<String, List<Arrived>> result = new TreeMap<>();
        byTopic.forEach((topic, lines) -> result.put(topic, parseTsv(member, lines.toString(), base64)));
        return result;
    }
}
