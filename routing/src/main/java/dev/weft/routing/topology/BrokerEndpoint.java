package dev.weft.routing.topology;

import java.util.Objects;

/**
 * Where one real broker of an upstream cluster listens, and in which rack it lives.
 *
 * @param nodeId the broker's node id in its own cluster
 * @param host the host name or address the broker advertises
 * @param port the port the broker advertises
 * @param rack the broker's {@code broker.rack}, or null when it has none
 */
public record BrokerEndpoint(int nodeId, String host, int port, String rack) {
    public BrokerEndpoint {
        Objects.requireNonNull(host, "host");
        if (port <= 0 || port > 65535) {
            throw new IllegalArgumentException("broker " + nodeId + " advertises invalid port " + port);
        }
    }

    public String hostPort() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
