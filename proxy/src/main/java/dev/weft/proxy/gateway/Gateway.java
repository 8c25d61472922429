package dev.weft.proxy.gateway;

import dev.weft.iocore.EventLoops;
import dev.weft.iocore.buffer.BufferPolicy;
import dev.weft.proxy.config.WeftConfig.GatewayConfig;
import dev.weft.proxy.session.SessionSettings;
import dev.weft.proxy.session.SessionTarget;
import java.util.function.IntFunction;

/**
 * Where clients reach a virtual cluster: listening sockets, and the addresses of virtual brokers as
 * responses advertise them. Two kinds (DESIGN §4): {@link PortPerBrokerGateway} and {@link SniGateway}.
 */
public interface Gateway extends BrokerAddressBook, AutoCloseable {

    /** Creates the gateway its config asks for (nothing is bound yet). */
    static Gateway create(String virtualCluster, GatewayConfig config, String configPath) {
        return switch (config.nodes()) {
            case PORT_PER_BROKER -> new PortPerBrokerGateway(virtualCluster, config, configPath);
            case SNI -> new SniGateway(virtualCluster, config, configPath);
        };
    }

    /**
     * Starts listening.
     *
     * @param bootstrapTarget where bootstrap connections go
     * @param brokerTarget where connections for virtual node {@code n} go
     * @throws GatewayBindException naming the address and the config path
     */
    void bind(EventLoops loops, BufferPolicy buffers, SessionSettings sessions,
            SessionTarget bootstrapTarget, IntFunction<SessionTarget> brokerTarget);

    GatewayConfig config();

    /**
     * Reads the gateway's certificate files again (a config reload); nothing changes until the returned
     * action runs, after which new TLS handshakes use them and open connections keep their own.
     *
     * @throws dev.weft.proxy.tls.TlsSetupException naming the file and setting that cannot be used
     */
    Runnable prepareTlsReload();

    /** The bootstrap address clients are given. */
    default String bootstrapAddress() {
        return bootstrapHost() + ":" + bootstrapPort();
    }

    /** Stops accepting; open connections stay until their sessions end. */
    @Override
    void close();
}
