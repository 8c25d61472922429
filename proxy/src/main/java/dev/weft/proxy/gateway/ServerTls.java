package dev.weft.proxy.gateway;

import dev.weft.proxy.config.TlsConfig;
import dev.weft.proxy.tls.TlsContexts;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.handler.ssl.SniHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.DomainWildcardMappingBuilder;
import io.netty.util.Mapping;

/**
 * A gateway's TLS server side: the certificate (and trusted client CAs) every new handshake uses. A
 * reload reads the files again ({@link #prepareReload}, which fails without touching anything) and puts
 * the new context in force for handshakes that start afterwards; connections already up keep theirs.
 */
final class ServerTls {

    private final TlsConfig config;
    private final String configPath;
    private volatile SslContext context;
    /** The same context for every server name (the name only routes, SniRouter). */
    private volatile Mapping<String, SslContext> byServerName;

    private ServerTls(TlsConfig config, String configPath) {
        this.config = config;
        this.configPath = configPath;
        install(TlsContexts.server(config, configPath));
    }

    /** The TLS of a gateway's {@code tls} settings, or null when it serves plaintext. */
    static ServerTls of(TlsConfig config, String configPath) {
        return config == null ? null : new ServerTls(config, configPath);
    }

    private void install(SslContext next) {
        byServerName = new DomainWildcardMappingBuilder<>(next).build();
        context = next;
    }

    /** The handler for a new plaintext-SNI-less connection's handshake. */
    ChannelHandler newHandler(ByteBufAllocator alloc) {
        return context.newHandler(alloc);
    }

    /** The handler that reads the client's server name, then handshakes with the current certificate. */
    ChannelHandler newSniHandler() {
        return new SniHandler(byServerName);
    }

    /**
     * Reads the certificate, key and trust files again.
     *
     * @return what puts them in force for new handshakes
     * @throws dev.weft.proxy.tls.TlsSetupException naming the file and the setting when they cannot be used
     */
    Runnable prepareReload() {
        SslContext next = TlsContexts.server(config, configPath);
        return () -> install(next);
    }
}
