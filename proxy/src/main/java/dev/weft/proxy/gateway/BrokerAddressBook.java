package dev.weft.proxy.gateway;

/** Where a gateway tells clients each virtual broker is. */
public interface BrokerAddressBook {

    /** The host clients are told to use for virtual node {@code virtualNodeId}. */
    String brokerHost(int virtualNodeId);

    /** The port of virtual node {@code virtualNodeId}, or -1 when the gateway has none for it. */
    int brokerPort(int virtualNodeId);

    /** The bootstrap host, where clients are sent for a node that has no address of its own. */
    String bootstrapHost();

    int bootstrapPort();

    /** For error messages: which config setting decides which nodes get an address. */
    String describeRange();
}
