package dev.weft.proxy.config;

/** A {@code host:port} pair as written in the config ({@code [::1]:9092} for IPv6). */
public record HostPort(String host, int port) {

    /** Parses {@code host:port}; the port may be 0 (any free port) only when {@code allowZero}. */
    public static HostPort parse(String text, boolean allowZero) {
        String s = text.trim();
        int colon = s.lastIndexOf(':');
        if (colon <= 0 || colon == s.length() - 1) {
            throw new IllegalArgumentException("\"" + text + "\" is not host:port");
        }
        String host = s.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(s.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("\"" + text + "\" is not host:port (port is not a number)");
        }
        if (port < (allowZero ? 0 : 1) || port > 65535) {
            throw new IllegalArgumentException("port " + port + " in \"" + text + "\" is out of range ("
                    + (allowZero ? 0 : 1) + " to 65535)");
        }
        return new HostPort(host, port);
    }

    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
