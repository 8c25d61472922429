package dev.weft.iocore.transport;

import java.util.Locale;

/**
 * What the configuration asks for: {@code auto} picks the best available transport, anything else
 * forces one and is an error when that one is unavailable.
 */
public enum TransportPreference {

    /** io_uring, else epoll, else NIO. */
    AUTO("auto", null),
    /** io_uring or fail. */
    IO_URING("io_uring", Transport.IO_URING),
    /** epoll or fail. */
    EPOLL("epoll", Transport.EPOLL),
    /** NIO (always available). */
    NIO("nio", Transport.NIO);

    private final String configName;
    private final Transport forced;

    TransportPreference(String configName, Transport forced) {
        this.configName = configName;
        this.forced = forced;
    }

    /** The configuration spelling: {@code auto}, {@code io_uring}, {@code epoll} or {@code nio}. */
    public String configName() {
        return configName;
    }

    /** The transport this preference forces, or {@code null} for {@link #AUTO}. */
    public Transport forced() {
        return forced;
    }

    /** The preference that forces {@code transport}. */
    public static TransportPreference forcing(Transport transport) {
        return switch (transport) {
            case IO_URING -> IO_URING;
            case EPOLL -> EPOLL;
            case NIO -> NIO;
        };
    }

    /**
     * Parses a configuration value, case-insensitively; {@code io-uring} and {@code iouring} are
     * accepted for {@code io_uring}.
     *
     * @throws IllegalArgumentException naming the value and the accepted ones
     */
    public static TransportPreference parse(String value) {
        if (value != null) {
            String normalized = value.trim().toLowerCase(Locale.ROOT).replace('-', '_');
            if (normalized.equals("iouring")) {
                normalized = "io_uring";
            }
            for (TransportPreference preference : values()) {
                if (preference.configName.equals(normalized)) {
                    return preference;
                }
            }
        }
        throw new IllegalArgumentException(
                "transport: '" + value + "' is not one of auto, io_uring, epoll, nio");
    }

    @Override
    public String toString() {
        return configName;
    }
}
