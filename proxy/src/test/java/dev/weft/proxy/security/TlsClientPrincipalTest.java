package dev.weft.proxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import dev.weft.iocore.testing.LogCapture;
import dev.weft.proxy.config.TlsConfig;
import dev.weft.proxy.config.TlsConfig.ClientAuth;
import dev.weft.proxy.config.TlsConfig.KeyMaterial;
import dev.weft.proxy.config.TlsConfig.TrustMaterial;
import dev.weft.proxy.testing.TestPki;
import dev.weft.proxy.tls.TlsContexts;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client-certificate principal over real TLS handshakes (a Netty server built like a gateway's
 * pipeline: the production SslContext, then {@link TlsClientPrincipal}, then a recorder standing in for
 * the session), with certificates from {@link TestPki}.
 *
 * <p>TestPki writes subjects in the order given, so {@code issue("Alice,O=Weft")} is the certificate a
 * JDK or Kafka reads as {@code O=Weft,CN=Alice} (RFC 2253 prints the last RDN first).
 */
class TlsClientPrincipalTest {

    private static final String RULES = "RULE:^O=Weft,CN=([^,]+)$/$1/L";

    @TempDir
    static Path dir;

    private static TestPki pki;
    private static TestPki.Issued server;
    private static TestPki.Issued alice;
    private static TestPki.Issued mallory;
    private static EventLoopGroup group;

    @BeforeAll
    static void start() throws Exception {
        pki = new TestPki(dir);
        server = pki.issue("proxy");
        alice = pki.issue("Alice,O=Weft");
        mallory = pki.issue("Mallory,O=Elsewhere");
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    }

    @AfterAll
    static void stop() {
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** What the handler after the principal's saw on one connection. */
    record Seen(ClientPrincipal principal, String data, boolean principalHandlerLeft) {
    }

    @Test
    void aMappedCertificateSubjectBecomesTheConnectionsPrincipal() throws Exception {
        Seen seen = connect(ClientAuth.REQUIRED, RULES + ",DEFAULT", alice).take();
        assertEquals(new ClientPrincipal("alice", "SSL"), seen.principal());
        assertEquals("User:alice", seen.principal().toString());
        assertEquals("hello", seen.data());
        assertTrue(seen.principalHandlerLeft(), "the handler leaves the pipeline once the principal is set");
    }

    @Test
    void defaultIsTheWholeSubjectInRfc2253() throws Exception {
        Seen seen = connect(ClientAuth.REQUIRED, "DEFAULT", alice).take();
        assertEquals("User:O=Weft,CN=Alice", seen.principal().toString());
        assertEquals("SSL", seen.principal().mechanism());
    }

    @Test
    void optionalClientAuthWithoutACertificateSetsNoPrincipal() throws Exception {
        Seen seen = connect(ClientAuth.OPTIONAL, RULES, null).take();
        assertNull(seen.principal());
        assertEquals("hello", seen.data(), "served: Kafka would call it ANONYMOUS");
    }

    @Test
    void aSubjectNoRuleMapsIsClosedAndNothingItSentGoesFurther() throws Exception {
        try (LogCapture log = LogCapture.of(TlsClientPrincipal.class)) {
            Connection c = open(ClientAuth.REQUIRED, RULES, mallory);
            assertTrue(c.client.closeFuture().await(10, TimeUnit.SECONDS), "the proxy closes the connection");
            assertNull(c.seen.poll(500, TimeUnit.MILLISECONDS), "nothing reached the session");
            assertTrue(log.messages(Level.WARN).stream().anyMatch(m -> m.contains("/127.0.0.1:" + c.localPort)
                    && m.contains("'O=Elsewhere,CN=Mallory'") && m.contains("closing")), log.messages(Level.WARN).toString());
        }
    }

    private static BlockingQueue<Seen> connect(ClientAuth auth, String rules, TestPki.Issued clientCertificate) throws Exception {
        Connection c = open(auth, rules, clientCertificate);
        c.client.closeFuture().addListener(f -> c.server.close());
        return c.seen;
    }

    private record Connection(Channel server, Channel client, int localPort, BlockingQueue<Seen> seen) {
    }

    /** A one-connection server with the gateway's handlers, and a client that sends "hello" once its handshake is done. */
    private static Connection open(ClientAuth auth, String rules, TestPki.Issued clientCertificate) throws Exception {
        TlsConfig tls = new TlsConfig(new KeyMaterial(server.certificatePem(), server.keyPem(), null, null, null),
                new TrustMaterial(pki.caPem(), null, null), auth, false, rules);
        SslContext serverContext = TlsContexts.server(tls, "test");
        Supplier<io.netty.channel.ChannelHandler> principals = TlsClientPrincipal.forGateway(tls, "test gateway");
        BlockingQueue<Seen> seen = new LinkedBlockingQueue<>();
        Channel listener = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(serverContext.newHandler(ch.alloc()), principals.get(), new Recorder(seen));
                    }
                }).bind("127.0.0.1", 0).sync().channel();
        SslContextBuilder cb = SslContextBuilder.forClient().trustManager(pki.caPem().toFile());
        if (clientCertificate != null) {
            cb.keyManager(clientCertificate.certificatePem().toFile(), clientCertificate.keyPem().toFile());
        }
        SslContext clientContext = cb.build();
        int port = ((InetSocketAddress) listener.localAddress()).getPort();
        Channel client = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        SslHandler ssl = clientContext.newHandler(ch.alloc(), "localhost", port);
                        ssl.handshakeFuture().addListener(f -> {
                            if (f.isSuccess()) {
                                ch.writeAndFlush(Unpooled.copiedBuffer("hello", StandardCharsets.US_ASCII));
                            }
                        });
                        ch.pipeline().addLast(ssl);
                    }
                }).connect("127.0.0.1", port).sync().channel();
        client.closeFuture().addListener(f -> listener.close());
        return new Connection(listener, client, ((InetSocketAddress) client.localAddress()).getPort(), seen);
    }

    /** Stands in for the session: records the principal and the first bytes, then closes. */
    private static final class Recorder extends ChannelInboundHandlerAdapter {
        private final BlockingQueue<Seen> seen;

        Recorder(BlockingQueue<Seen> seen) {
            this.seen = seen;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf data = (ByteBuf) msg;
            try {
                seen.add(new Seen(ClientPrincipal.of(ctx.channel()), data.toString(StandardCharsets.US_ASCII),
                        ctx.pipeline().get(TlsClientPrincipal.class) == null));
            } finally {
                data.release();
            }
            ctx.close();
        }
    }
}
