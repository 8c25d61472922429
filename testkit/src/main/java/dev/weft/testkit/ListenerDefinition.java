package dev.weft.testkit;

import org.apache.kafka.common.security.auth.SecurityProtocol;

import java.util.function.IntFunction;

/**
 * A client-facing broker listener: its name (as in {@code listeners}), its security protocol, and
 * optionally the {@code host:port} each broker advertises for it instead of its bound address.
 *
 * @param advertised node id to advertised {@code host:port}, or null to advertise the bound address
 */
record ListenerDefinition(String name, SecurityProtocol protocol, IntFunction<String> advertised) {

    String advertisedAddress(int nodeId, String host, int boundPort) {
        if (advertised == null) {
            return host + ":" + boundPort;
        }
        String address = advertised.apply(nodeId);
        if (address == null || address.lastIndexOf(':') <= 0) {
            throw new IllegalArgumentException("advertised address of listener " + name + " for node " + nodeId
                + " must be host:port, got " + address);
        }
        return address;
    }
}
