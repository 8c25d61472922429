package dev.weft.proxy.gateway;

/** Where a gateway tells clients each virtual broker is: the advertised host and one port per node id. */
public interface BrokerAddressBook {

    /** The host clients are told to connect to. */
    String advertisedHost();

    /** The bootstrap port of the gateway. */
    int bootstrapPort();

    /** The port of virtual node {@code virtualNodeId}, or -1 when the gateway has none for it. */
    int brokerPort(int virtualNodeId);

    /** For error messages: which config setting defines the node ports. */
    String describeRange();
}
