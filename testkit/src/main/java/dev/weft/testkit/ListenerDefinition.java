package dev.weft.testkit;

import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * A client-facing broker listener: its name (as in {@code listeners}), its security protocol, and
 * optionally the {@code host:port} each broker advertises for it instead of its bound address.
 *
 * @param advertised the advertised {@code host:port} of each broker, or null to advertise the bound address
 */
record ListenerDefinition(String name, SecurityProtocol protocol, KafkaCluster.AdvertisedAddress advertised) {

    String advertisedAddress(int nodeId, String host, int boundPort) {
        if (advertised == null) {
            return host + ":" + boundPort;
        }
        String address = advertised.hostPort(nodeId, boundPort);
        if (address == null || address.lastIndexOf(':') <= 0) {
            throw new IllegalArgumentException("advertised address of listener " + name + " for node " + nodeId
                + " must be host:port, got " + address);
        }
        return address;
    }
}
