package dev.weft.proxy.fleet;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * One record of a switch in the fleet state: where it points and whether it is fenced, in a cutover
 * epoch, written by one replica. Keyed by the switch's name; the value is one readable line
 * ({@code epoch=3 active=west fenced=false by=weft-1}) so an operator can read the topic with any tool.
 *
 * <p>The epoch's first record names its owner: later records of that epoch count only when the owner wrote
 * them, so two replicas starting a cutover at once cannot both proceed (the second sees it lost and stops).
 */
public record SwitchRecord(String switchName, long epoch, String active, boolean fenced, String by) {

    public byte[] key() {
        return switchName.getBytes(StandardCharsets.UTF_8);
    }

    public byte[] value() {
        return ("epoch=" + epoch + " active=" + active + " fenced=" + fenced + " by=" + by).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * @throws IllegalArgumentException naming what is wrong, for a record no Weft wrote
     */
    public static SwitchRecord parse(byte[] key, byte[] value) {
        if (key == null || value == null) {
            throw new IllegalArgumentException("a switch record needs a key and a value");
        }
        Map<String, String> fields = new HashMap<>();
        for (String part : new String(value, StandardCharsets.UTF_8).trim().split("\\s+")) {
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("'" + part + "' is not key=value");
            }
            fields.put(part.substring(0, eq), part.substring(eq + 1));
        }
        for (String f : new String[] {"epoch", "active", "fenced", "by"}) {
            if (!fields.containsKey(f)) {
                throw new IllegalArgumentException("no '" + f + "' in " + fields.keySet());
            }
        }
        return new SwitchRecord(new String(key, StandardCharsets.UTF_8), Long.parseLong(fields.get("epoch")), fields.get("active"),
                Boolean.parseBoolean(fields.get("fenced")), fields.get("by"));
    }
}
