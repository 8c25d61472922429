package dev.weft.proxy.security;

import dev.weft.protocol.cold.ColdCodec;
import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.protocol.header.RequestHeaderView;
import dev.weft.routing.plan.Refusals;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SASL termination on one client connection, between the framing and the session: the proxy, not a
 * broker, checks who the client is. Before that only ApiVersions reaches the session (a client asks
 * it first to learn the SASL versions); SaslHandshake and SaslAuthenticate are answered here with
 * kafka-clients' own PLAIN, SCRAM and OAUTHBEARER servers ({@link SaslServers}); anything else before authenticating
 * gets ILLEGAL_SASL_STATE and the connection is closed, so nothing unauthenticated is ever forwarded.
 * After it, frames pass through untouched, except a re-authentication (KIP-368: SaslHandshake and
 * SaslAuthenticate again, same principal and mechanism), answered here too; a connection used after its
 * session lifetime without re-authenticating is closed. For OAUTHBEARER that lifetime is at most the
 * token's remaining one, as a broker gives it.
 *
 * <p>Every failure is answered the way the client's library expects (UNSUPPORTED_SASL_MECHANISM,
 * SASL_AUTHENTICATION_FAILED, ILLEGAL_SASL_STATE), logged once naming the peer, the user it claimed and
 * the mechanism, counted by outcome, and the connection is closed after the answer. Failed attempts
 * are limited per peer address ({@link FailedAuthentications}).
 *
 * <p>Kafka clients send nothing else while they authenticate, so answering here keeps the connection's
 * answers in request order. Not sharable: one per connection, on its event loop.
 */
public final class SaslTermination extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(SaslTermination.class);
    private static final int PREFIX = KafkaFrameDecoder.SIZE_PREFIX_BYTES;
    /** Kafka's {@code sasl.server.max.receive.size} default: no bigger frame before authenticating. */
    static final int MAX_UNAUTHENTICATED_FRAME_BYTES = 512 * 1024;
    private static final short SASL_HANDSHAKE = ApiKeys.SASL_HANDSHAKE.id;
    private static final short SASL_AUTHENTICATE = ApiKeys.SASL_AUTHENTICATE.id;
    private static final short API_VERSIONS = ApiKeys.API_VERSIONS.id;
    /** kafka-clients' {@code SaslInternalConfigs.CREDENTIAL_LIFETIME_MS_SASL_NEGOTIATED_PROPERTY_KEY}. */
    static final String CREDENTIAL_LIFETIME_MS = "CREDENTIAL.LIFETIME.MS";

    private enum State {
        /** Nothing yet, or only ApiVersions. */
        START,
        /** A handshake chose the mechanism; SaslAuthenticate rounds follow. */
        HANDSHAKEN,
        AUTHENTICATED,
        /** An answer that ends the connection is on its way: nothing more is read. */
        CLOSING
    }

    private final SaslTerminationSettings settings;
    private final String describe;
    private final RequestHeaderView header = new RequestHeaderView();
    private State state = State.START;
    private boolean reauthenticating;
    private String mechanism = "none";
    private String claimedUser;
    private SaslServer server;
    private ClientPrincipal principal;
    /** The token OAUTHBEARER refused with its error challenge, until the client answers it: why, for the log and counters. */
    private OAuthBearerValidation.TokenRefused refusedToken;
    private long expiresAtNanos;
    /** The session lifetime told to the client at its last authentication (0: none). */
    private long lifetimeToldMs;
    /** A PLAIN password is being checked off the event loop; the client sends nothing meanwhile. */
    private boolean verifying;

    /** What the SASL server made of a token: the next challenge (null: none), or why it refused. */
    private record Evaluated(byte[] challenge, Exception failure) {
    }

    /** @param describe the connection's target, for log lines ("bootstrap of 'main'") */
    public SaslTermination(SaslTerminationSettings settings, String describe) {
        this.settings = settings;
        this.describe = describe;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        if (state == State.CLOSING) {
            frame.release();
            return;
        }
        if (verifying) {
            frame.release();
            close(ctx, SaslOutcome.ILLEGAL_STATE, "a request while its SaslAuthenticate was being checked");
            return;
        }
        if (frame.readableBytes() < PREFIX + RequestHeaderView.FIXED_LENGTH) {
            if (state == State.AUTHENTICATED) {
                ctx.fireChannelRead(frame); // the session names what is malformed
            } else {
                frame.release();
                close(ctx, SaslOutcome.ILLEGAL_STATE, "a frame too short to be a Kafka request before authenticating");
            }
            return;
        }
        RequestHeaderView h = header.wrap(frame, frame.readerIndex() + PREFIX);
        short apiKey = h.apiKey();
        if (apiKey == SASL_HANDSHAKE || apiKey == SASL_AUTHENTICATE) {
            if (state != State.AUTHENTICATED && frame.readableBytes() > MAX_UNAUTHENTICATED_FRAME_BYTES) {
                int size = frame.readableBytes();
                frame.release();
                close(ctx, SaslOutcome.ILLEGAL_STATE, "a " + size + "-byte SASL frame (at most " + MAX_UNAUTHENTICATED_FRAME_BYTES
                        + " before authenticating)");
                return;
            }
            answerSasl(ctx, frame, apiKey, h.apiVersion(), h.correlationId());
            return;
        }
        if (state == State.AUTHENTICATED) {
            if (expiresAtNanos != 0 && settings.clock().getAsLong() - expiresAtNanos > 0) {
                frame.release();
                close(ctx, SaslOutcome.EXPIRED, "the authentication of " + principal + " expired (sessionLifetimeMs "
                        + lifetimeToldMs + ") without a re-authentication");
                return;
            }
            ctx.fireChannelRead(frame);
            return;
        }
        if (apiKey == API_VERSIONS && state == State.START) {
            ctx.fireChannelRead(frame);
            return;
        }
        refuseBeforeAuthentication(ctx, frame, apiKey, h.apiVersion(), h.correlationId());
    }

    private void answerSasl(ChannelHandlerContext ctx, ByteBuf frame, short apiKey, short version, int correlationId) {
        ApiMessage request;
        try {
            request = readBody(frame, apiKey, version);
        } catch (RuntimeException e) {
            close(ctx, SaslOutcome.ILLEGAL_STATE, "an unreadable " + ApiKeys.forId(apiKey).name + " v" + version + " request: "
                    + e.getMessage());
            return;
        } finally {
            frame.release();
        }
        if (apiKey == SASL_HANDSHAKE) {
            handshake(ctx, (SaslHandshakeRequestData) request, version, correlationId);
        } else {
            authenticate(ctx, (SaslAuthenticateRequestData) request, version, correlationId);
        }
    }

    private void handshake(ChannelHandlerContext ctx, SaslHandshakeRequestData request, short version, int correlationId) {
        String asked = request.mechanism() == null ? "" : request.mechanism().toUpperCase(Locale.ROOT);
        SaslHandshakeResponseData answer = new SaslHandshakeResponseData().setMechanisms(settings.mechanisms());
        if (state == State.HANDSHAKEN || reauthenticating) {
            answer.setErrorCode(Errors.ILLEGAL_SASL_STATE.code());
            respondAndClose(ctx, correlationId, version, answer, SaslOutcome.ILLEGAL_STATE, "a second SaslHandshake before SaslAuthenticate");
            return;
        }
        if (version == 0) {
            // v0 is followed by raw SASL tokens outside Kafka requests (Kafka 0.10 clients): not served.
            answer.setErrorCode(Errors.UNSUPPORTED_VERSION.code());
            respondAndClose(ctx, correlationId, version, answer, SaslOutcome.ILLEGAL_STATE,
                    "SaslHandshake v0 (raw SASL tokens of Kafka 0.10 clients); clients since Kafka 1.0 use v1");
            return;
        }
        if (!settings.mechanisms().contains(asked)) {
            mechanism = asked.isEmpty() ? "none" : asked;
            answer.setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code());
            respondAndClose(ctx, correlationId, version, answer, SaslOutcome.UNSUPPORTED_MECHANISM, "mechanism '" + request.mechanism()
                    + "' is not enabled (enabled: " + String.join(", ", settings.mechanisms()) + ")");
            return;
        }
        if (state == State.AUTHENTICATED && !asked.equals(principal.mechanism())) {
            answer.setErrorCode(Errors.ILLEGAL_SASL_STATE.code());
            respondAndClose(ctx, correlationId, version, answer, SaslOutcome.ILLEGAL_STATE, "a re-authentication of " + principal
                    + " with " + asked + " (it authenticated with " + principal.mechanism() + "; KIP-368 keeps the mechanism)");
            return;
        }
        mechanism = asked;
        server = settings.servers().newServer(asked);
        if (state == State.AUTHENTICATED) {
            reauthenticating = true;
        } else {
            state = State.HANDSHAKEN;
        }
        respond(ctx, correlationId, version, answer.setErrorCode(Errors.NONE.code()));
    }

    private void authenticate(ChannelHandlerContext ctx, SaslAuthenticateRequestData request, short version, int correlationId) {
        SaslAuthenticateResponseData answer = new SaslAuthenticateResponseData();
        if (server == null) {
            answer.setErrorCode(Errors.ILLEGAL_SASL_STATE.code()).setErrorMessage("SaslAuthenticate before SaslHandshake");
            respondAndClose(ctx, correlationId, version, answer, SaslOutcome.ILLEGAL_STATE, "SaslAuthenticate before SaslHandshake");
            return;
        }
        InetAddress peer = peerAddress(ctx);
        long blockedNanos = peer == null ? 0 : settings.failures().blockedForNanos(peer);
        if (blockedNanos > 0) {
            long seconds = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(blockedNanos));
            answer.setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code()).setErrorMessage("too many failed authentications from "
                    + peer.getHostAddress() + ": retry in " + seconds + " s");
            respondAndClose(ctx, correlationId, version, answer, SaslOutcome.RATE_LIMITED, settings.failures().limit()
                    + " failed authentications from this address; refused for " + seconds + " s more without checking");
            return;
        }
        byte[] token = request.authBytes();
        if (claimedUser == null || reauthenticating) {
            claimedUser = claimedUser(token);
        }
        SaslServer evaluating = server;
        if (!mechanism.equals("PLAIN")) {
            evaluated(ctx, evaluate(evaluating, token), peer, version, correlationId); // SCRAM: a few HMACs, here
            return;
        }
        verifying = true;
        try {
            settings.passwordChecks().execute(() -> {
                Evaluated result = evaluate(evaluating, token);
                ctx.executor().execute(() -> {
                    verifying = false;
                    if (state == State.CLOSING || !ctx.channel().isActive()) {
                        disposeServer();
                        return;
                    }
                    evaluated(ctx, result, peer, version, correlationId);
                });
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            verifying = false;
            close(ctx, SaslOutcome.RATE_LIMITED, "no room to check a password now (over 1024 waiting, or the proxy is stopping)");
        }
    }

    private static Evaluated evaluate(SaslServer server, byte[] token) {
        try {
            return new Evaluated(server.evaluateResponse(token), null);
        } catch (SaslException | RuntimeException e) { // SaslAuthenticationException: wrong credentials
            return new Evaluated(null, e);
        }
    }

    private void evaluated(ChannelHandlerContext ctx, Evaluated result, InetAddress peer, short version, int correlationId) {
        SaslAuthenticateResponseData answer = new SaslAuthenticateResponseData();
        if (result.failure() != null) {
            if (peer != null && refusedToken == null) { // a refused token was counted with its error challenge
                settings.failures().failed(peer);
            }
            refusedToken = null;
            disposeServer();
            answer.setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code()).setErrorMessage(
                    "Authentication failed during authentication due to invalid credentials with SASL mechanism " + mechanism);
            // OAUTHBEARER: why kafka-clients' validator refused the token (expired, issuer, audience, signature)
            SaslOutcome outcome = result.failure() instanceof OAuthBearerValidation.TokenRefused refused ? refused.outcome()
                    : SaslOutcome.BAD_CREDENTIALS;
            respondAndClose(ctx, correlationId, version, answer, outcome, result.failure().getMessage());
            return;
        }
        byte[] challenge = result.challenge();
        answer.setAuthBytes(challenge == null ? new byte[0] : challenge);
        if (!server.isComplete()) {
            // OAUTHBEARER answers a refused token with its error challenge: the failure counts now, and is
            // named by its reason even when the client ignores the challenge (kafkajs 2.2 sends its next request)
            refusedToken = OAuthBearerValidation.refusalOf(server);
            if (refusedToken != null && peer != null) {
                settings.failures().failed(peer);
            }
            respond(ctx, correlationId, version, answer);
            return;
        }
        String user = server.getAuthorizationID();
        Long credentialExpiresAtMs = credentialExpiry(server);
        disposeServer();
        if (reauthenticating && !user.equals(principal.user())) {
            answer.setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code()).setAuthBytes(new byte[0])
                    .setErrorMessage("re-authentication must keep the connection's principal " + principal);
            respondAndClose(ctx, correlationId, version, answer, SaslOutcome.PRINCIPAL_CHANGED, "a re-authentication as User:" + user
                    + " on a connection of " + principal);
            return;
        }
        boolean first = !reauthenticating;
        principal = new ClientPrincipal(user, mechanism);
        if (first) {
            ClientPrincipal.establish(ctx, principal);
        } else {
            ctx.channel().attr(ClientPrincipal.KEY).set(principal);
        }
        long lifetimeMs = sessionLifetimeMs(credentialExpiresAtMs);
        lifetimeToldMs = lifetimeMs;
        expiresAtNanos = lifetimeMs > 0 ? settings.clock().getAsLong() + TimeUnit.MILLISECONDS.toNanos(lifetimeMs) : 0;
        if (lifetimeMs > 0 && expiresAtNanos == 0) {
            expiresAtNanos = 1; // 0 means "never"
        }
        LOG.debug("{}: {} {} with {} from {}", describe, reauthenticating ? "re-authenticated" : "authenticated", principal, mechanism,
                peer == null ? "?" : peer.getHostAddress());
        state = State.AUTHENTICATED;
        reauthenticating = false;
        settings.counters().count(mechanism, SaslOutcome.SUCCESS);
        if (version >= 1) {
            answer.setSessionLifetimeMs(lifetimeMs);
        }
        respond(ctx, correlationId, version, answer.setErrorCode(Errors.NONE.code()));
    }

    /**
     * KIP-368 as a broker computes it: {@code reauthenticateMs}, or, for a credential that expires (an
     * OAUTHBEARER token's {@code exp}), the smaller of that and the credential's remaining lifetime; 0
     * for none. A token already past its {@code exp} (accepted within the clock skew) gets 1 ms: the
     * client re-authenticates at once, or its next request closes the connection.
     */
    private long sessionLifetimeMs(Long credentialExpiresAtMs) {
        long configured = settings.sessionLifetimeMs();
        if (credentialExpiresAtMs == null) {
            return configured;
        }
        long remaining = Math.max(1, credentialExpiresAtMs - System.currentTimeMillis()); // exp is wall time
        return configured > 0 ? Math.min(configured, remaining) : remaining;
    }

    /** The negotiated {@code CREDENTIAL.LIFETIME.MS} (kafka-clients' OAUTHBEARER server: the token's exp, epoch ms), or null. */
    private static Long credentialExpiry(SaslServer server) {
        try {
            return server.getNegotiatedProperty(CREDENTIAL_LIFETIME_MS) instanceof Long ms ? ms : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Any request but ApiVersions before authenticating: its own error answer with ILLEGAL_SASL_STATE, then the close. */
    private void refuseBeforeAuthentication(ChannelHandlerContext ctx, ByteBuf frame, short apiKey, short version, int correlationId) {
        String what = (ApiKeys.hasId(apiKey) ? ApiKeys.forId(apiKey).name : "API key " + apiKey) + " v" + version + " before authenticating";
        ApiMessage answer = null;
        try {
            if (frame.readableBytes() <= MAX_UNAUTHENTICATED_FRAME_BYTES) {
                answer = Refusals.errorResponse(readBody(frame, apiKey, version), version, Errors.ILLEGAL_SASL_STATE,
                        "authenticate first (SASL is required on this listener)");
            }
        } catch (RuntimeException e) {
            answer = null; // unreadable or unknown: closed without an answer, as a broker does
        } finally {
            frame.release();
        }
        SaslOutcome outcome = SaslOutcome.ILLEGAL_STATE;
        if (refusedToken != null) {
            outcome = refusedToken.outcome();
            what = refusedToken.getMessage() + "; the client sent " + what + " instead of answering the error challenge";
        }
        if (answer == null) {
            close(ctx, outcome, what);
        } else {
            respondAndClose(ctx, correlationId, version, answer, outcome, what);
        }
    }

    private static ApiMessage readBody(ByteBuf frame, short apiKey, short version) {
        int headerStart = frame.readerIndex() + PREFIX;
        ByteBuf view = frame.slice(headerStart, frame.writerIndex() - headerStart);
        ColdCodec.readRequestHeader(view);
        int headerLength = new RequestHeaderView().wrap(frame, headerStart).headerLength();
        return ColdCodec.readRequestBody(apiKey, version, view.slice(headerLength, view.readableBytes() - headerLength));
    }

    private static void respond(ChannelHandlerContext ctx, int correlationId, short version, ApiMessage body) {
        ctx.writeAndFlush(ColdCodec.writeResponse(ctx.alloc(), correlationId, version, body), ctx.voidPromise());
    }

    private void respondAndClose(ChannelHandlerContext ctx, int correlationId, short version, ApiMessage body, SaslOutcome outcome,
            String why) {
        record(ctx, outcome, why);
        state = State.CLOSING;
        ctx.writeAndFlush(ColdCodec.writeResponse(ctx.alloc(), correlationId, version, body)).addListener(ChannelFutureListener.CLOSE);
    }

    private void close(ChannelHandlerContext ctx, SaslOutcome outcome, String why) {
        record(ctx, outcome, why);
        state = State.CLOSING;
        ctx.close();
    }

    private void record(ChannelHandlerContext ctx, SaslOutcome outcome, String why) {
        settings.counters().count(mechanism, outcome);
        InetAddress peer = peerAddress(ctx);
        LOG.warn("{}: SASL refused ({}) for {} from {}{}: {}; closing", describe, outcome.label(),
                principal != null ? principal : claimedUser != null ? "user '" + claimedUser + "'" : "a client",
                peer == null ? "?" : peer.getHostAddress(), mechanism.equals("none") ? "" : " with " + mechanism, why);
    }

    private static InetAddress peerAddress(ChannelHandlerContext ctx) {
        return ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
    }

    /**
     * The user a first SASL token names, for log lines only (never a password): PLAIN's
     * {@code authzid NUL authcid NUL password}, SCRAM's client-first {@code n,,n=USER,r=...}.
     */
    private String claimedUser(byte[] token) {
        if (token == null) {
            return null;
        }
        String text = new String(token, StandardCharsets.UTF_8);
        if (mechanism.equals("PLAIN")) {
            String[] parts = text.split("\u0000", -1);
            return parts.length == 3 ? clip(parts[1]) : null;
        }
        int n = text.indexOf(",n=");
        if (n < 0) {
            return null;
        }
        int end = text.indexOf(',', n + 3);
        return clip(text.substring(n + 3, end < 0 ? text.length() : end).replace("=2C", ",").replace("=3D", "="));
    }

    private static String clip(String s) {
        return s.length() > 64 ? s.substring(0, 64) + "..." : s;
    }

    private void disposeServer() {
        if (server != null) {
            try {
                server.dispose();
            } catch (SaslException e) {
                // nothing held
            }
            server = null;
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        disposeServer();
        ctx.fireChannelInactive();
    }
}
