package dev.weft.proxy.config;

import java.util.Locale;

/** How enum constants are spelled in the YAML file: {@code PORT_PER_BROKER} is {@code port-per-broker}. */
public final class ConfigNames {
    private ConfigNames() {
    }

    public static String of(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
