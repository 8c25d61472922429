package dev.weft.proxy.config;

import java.util.Locale;

/** Parses sizes written as {@code 1048576}, {@code 64KiB}, {@code 100MiB}, {@code 1GiB} (also KB/MB/GB as powers of 1024). */
public final class ByteSize {
    private ByteSize() {
    }

    public static long parse(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT).replace(" ", "");
        long unit = 1;
        String[][] units = {{"gib", "1073741824"}, {"gb", "1073741824"}, {"g", "1073741824"},
            {"mib", "1048576"}, {"mb", "1048576"}, {"m", "1048576"},
            {"kib", "1024"}, {"kb", "1024"}, {"k", "1024"}, {"b", "1"}};
        for (String[] u : units) {
            if (s.endsWith(u[0])) {
                unit = Long.parseLong(u[1]);
                s = s.substring(0, s.length() - u[0].length());
                break;
            }
        }
        if (s.isEmpty()) {
            throw new IllegalArgumentException("no number in size " + text);
        }
        return Math.multiplyExact(Long.parseLong(s), unit);
    }
}
