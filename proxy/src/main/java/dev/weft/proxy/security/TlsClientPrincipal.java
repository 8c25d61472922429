package dev.weft.proxy.security;

import dev.weft.proxy.config.TlsConfig;
import dev.weft.proxy.config.TlsConfig.ClientAuth;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.function.Supplier;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.apache.kafka.common.security.ssl.SslPrincipalMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Names a TLS client by its certificate, as a Kafka SSL listener does: when the handshake completes
 * and the client presented a certificate, the leaf's subject (RFC 2253, what Kafka's
 * {@code DefaultKafkaPrincipalBuilder} reads) goes through the gateway's {@code principalMappingRules}
 * (Kafka's {@code ssl.principal.mapping.rules}, run by kafka-clients' own {@link SslPrincipalMapper}) and
 * the result becomes the connection's {@link ClientPrincipal} (mechanism {@value #MECHANISM}).
 *
 * <p>A client without a certificate (possible with {@code clientAuth: optional}) gets no principal:
 * Kafka would call it ANONYMOUS. A subject no rule maps is refused: the connection is closed with a
 * WARN naming the peer and the subject, and nothing it sent goes further. A virtual cluster that also
 * terminates SASL replaces this principal with the SASL one when the client authenticates, as a
 * Kafka SASL_SSL listener names its clients by SASL.
 *
 * <p>Sits right after the {@link SslHandler}, one per connection, and leaves the pipeline once the
 * principal is decided.
 */
public final class TlsClientPrincipal extends ChannelInboundHandlerAdapter {

    /** The {@link ClientPrincipal#mechanism()} of a principal taken from a client certificate. */
    public static final String MECHANISM = "SSL";

    private static final Logger LOG = LoggerFactory.getLogger(TlsClientPrincipal.class);

    private final SslPrincipalMapper mapper;
    private final String rules;
    private final String gateway;
    private boolean decided;
    private boolean refused;

    private TlsClientPrincipal(SslPrincipalMapper mapper, String rules, String gateway) {
        this.mapper = mapper;
        this.rules = rules;
        this.gateway = gateway;
    }

    /**
     * The handlers of a gateway's connections, or null when the gateway asks for no client certificates
     * (no TLS, or {@code clientAuth: none}).
     *
     * @param tls the gateway's TLS settings, or null
     * @param gateway the gateway, for log lines ({@code gateway 'g' of virtual cluster 'main'})
     */
    public static Supplier<ChannelHandler> forGateway(TlsConfig tls, String gateway) {
        if (tls == null || tls.clientAuth() == ClientAuth.NONE) {
            return null;
        }
        String rules = tls.principalMappingRules() == null ? TlsConfig.DEFAULT_PRINCIPAL_MAPPING_RULES : tls.principalMappingRules();
        SslPrincipalMapper mapper = SslPrincipalMapper.fromRules(rules); // checked when the config was read; immutable, shared
        return () -> new TlsClientPrincipal(mapper, rules, gateway);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent handshake && handshake.isSuccess() && !decided) {
            if (!decide(ctx)) {
                return; // refused: the session never hears of this connection's handshake
            }
            ctx.fireUserEventTriggered(evt);
            ctx.pipeline().remove(this);
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!decided && !decide(ctx)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (refused) {
            ReferenceCountUtil.release(msg); // bytes that were already decrypted when the connection was refused
            return;
        }
        ctx.fireChannelRead(msg);
        if (ctx.pipeline().context(this) != null) {
            ctx.pipeline().remove(this);
        }
    }

    /** Sets the principal from the peer's certificate, if any; false when the connection is refused. */
    private boolean decide(ChannelHandlerContext ctx) {
        decided = true;
        X509Certificate leaf = peerCertificate(ctx);
        if (leaf == null) {
            return true; // no certificate (clientAuth: optional): no principal
        }
        String subject = leaf.getSubjectX500Principal().getName(); // RFC 2253, as Kafka
        String name;
        try {
            name = mapper.getName(subject);
        } catch (IOException | RuntimeException e) {
            name = null;
        }
        if (name == null || name.isEmpty()) {
            refused = true;
            LOG.warn("{} ({}): no principal mapping rule maps the client certificate subject '{}' (rules: {}); closing",
                    ctx.channel().remoteAddress(), gateway, subject, rules);
            ctx.close();
            return false;
        }
        ClientPrincipal principal = new ClientPrincipal(name, MECHANISM);
        ClientPrincipal.establish(ctx, principal);
        LOG.debug("{} ({}): client certificate '{}' is {}", ctx.channel().remoteAddress(), gateway, subject, principal);
        return true;
    }

    private static X509Certificate peerCertificate(ChannelHandlerContext ctx) {
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        if (ssl == null) {
            return null;
        }
        try {
            Certificate[] chain = ssl.engine().getSession().getPeerCertificates();
            return chain.length > 0 && chain[0] instanceof X509Certificate x509 ? x509 : null;
        } catch (SSLPeerUnverifiedException e) {
            return null;
        }
    }
}
