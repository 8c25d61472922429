package dev.weft.proxy.upstream;

import dev.weft.iocore.time.AtMostEvery;
import dev.weft.protocol.cold.ColdCodec;
import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.protocol.header.ResponseHeaderView;
import dev.weft.proxy.config.WeftConfig;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GenericFutureListener;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.SaslExtensions;
import org.apache.kafka.common.security.oauthbearer.internals.OAuthBearerClientInitialResponse;
import org.apache.kafka.common.security.scram.ScramExtensionsCallback;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramSaslClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Authenticates a connection Weft opens itself to a broker with the cluster's credentials
 * ({@code clusters.NAME.sasl}), before the link uses it: SaslHandshake v1 for the mechanism, then
 * SaslAuthenticate v2 rounds (PLAIN: one message; SCRAM-SHA-256/512: kafka-clients' own
 * {@link ScramSaslClient}; OAUTHBEARER: the RFC 7628 initial client response with the static bearer
 * token, {@link OAuthBearerClientInitialResponse}; on the broker's error challenge the handler answers
 * {@code \x01}, as RFC 7628 asks, and fails with the broker's error and challenge), with the handler's own
 * correlation ids. Sits after the
 * {@link KafkaFrameDecoder} (frames arrive with their size prefix) and before the link's handler.
 *
 * <p>Until the broker accepted the credentials, every frame the link writes is held here, in order,
 * and {@code channelActive} and reads do not go on; on success the held frames go out in order and the
 * handler leaves the pipeline. On failure (an error code, a mechanism the listener does not enable, a
 * SCRAM exception, the connection closing, no answer within the timeout) the held frames are released,
 * one WARN line names the broker, user (or the bearer token's secret) and mechanism (at most one per cluster every 10 s; DEBUG
 * otherwise), and a {@link UpstreamSaslException} carrying that reason goes to the link, which fails
 * with it and closes the channel. The password (or bearer token) is read from its
 * {@link dev.weft.proxy.config.Secret} when the connection is up (a rotated {@code file:} secret is used by
 * the next connection) and dropped once authentication ended; it is never logged.
 *
 * <p><b>Re-authentication (KIP-368).</b> When the broker's SaslAuthenticate answer gives the session a
 * lifetime ({@code connections.max.reauth.ms}, or an OAUTHBEARER token's expiry), a broker closes the
 * connection at the first request after it ends. So the handler schedules a new one of itself at 85–95%
 * of the lifetime (spread, so a pool's links do not all pause at once), which joins the pipeline at the
 * same place: it holds the link's new frames, lets the answers owed for what was sent before it pass
 * (as many as the link waited for when it joined: a broker answers in order), then runs the same
 * exchange with the secret read again (a rotated {@code file:} password or token is used), lets the
 * held frames go and schedules the next. A failed re-authentication fails the link as a failed first
 * one does.
 *
 * <p>Not sharable: one per connection, on its event loop.
 */
public final class UpstreamSaslHandshake extends ChannelDuplexHandler {

    /** Why a link's SASL authentication failed; its message is the operator's explanation. */
    public static final class UpstreamSaslException extends java.io.IOException {
        private static final long serialVersionUID = 1L;

        UpstreamSaslException(String message) {
            super(message);
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(UpstreamSaslHandshake.class);
    private static final int PREFIX = KafkaFrameDecoder.SIZE_PREFIX_BYTES;
    private static final short HANDSHAKE = ApiKeys.SASL_HANDSHAKE.id;
    private static final short AUTHENTICATE = ApiKeys.SASL_AUTHENTICATE.id;
    private static final short HANDSHAKE_VERSION = 1;
    private static final short AUTHENTICATE_VERSION = 2;
    /** The handler's correlation ids: the link's own start at 0 and are only sent after authenticating. */
    private static final int FIRST_CORRELATION_ID = 0x5A5A0000;
    private static final String CLIENT_ID = "weft";
    /** RFC 7628 §3.2.3: the client's answer to the server's error challenge. */
    private static final byte[] OAUTHBEARER_ERROR_ACK = {0x01};

    private enum State { WAITING, HANDSHAKE, AUTHENTICATE, DONE, FAILED }

    private final String name;
    private final String address;
    private final WeftConfig.SaslCredentials credentials;
    private final long timeoutMillis;
    private final AtMostEvery warnings;
    /** How many answers the link waits for; a re-authentication starts once those that were owed came. */
    private final IntSupplier answersAwaited;
    /** Re-authenticating: answers to frames sent before this handler joined, still to come. */
    private int answersOwed;
    /** Whether this one re-authenticates an authenticated connection rather than the first exchange. */
    private final boolean reauthentication;
    private final ArrayDeque<Object> held = new ArrayDeque<>(4);
    private final ArrayDeque<ChannelPromise> heldPromises = new ArrayDeque<>(4);
    private final ResponseHeaderView responseHeader = new ResponseHeaderView();
    private State state = State.WAITING;
    private int correlationId = FIRST_CORRELATION_ID;
    private char[] password;
    private SaslClient scram;
    /** OAUTHBEARER: the bearer token while authenticating, and the broker's error challenge once it sent one. */
    private String bearer;
    private String bearerChallenge;
    private ScheduledFuture<?> timeout;

    /**
     * @param name the link's name for log lines ("cluster 'east' broker 1")
     * @param address the broker's address ("127.0.0.1:9092")
     * @param timeoutMillis how long the whole authentication may take once connected
     * @param warnings lets a failure be logged at WARN (null: always)
     * @param answersAwaited how many answers the link waits for (a re-authentication lets those come first)
     */
    public UpstreamSaslHandshake(String name, String address, WeftConfig.SaslCredentials credentials, long timeoutMillis,
            AtMostEvery warnings, IntSupplier answersAwaited) {
        this(name, address, credentials, timeoutMillis, warnings, answersAwaited, false);
    }

    private UpstreamSaslHandshake(String name, String address, WeftConfig.SaslCredentials credentials, long timeoutMillis,
            AtMostEvery warnings, IntSupplier answersAwaited, boolean reauthentication) {
        this.name = name;
        this.address = address;
        this.credentials = credentials;
        this.timeoutMillis = timeoutMillis;
        this.warnings = warnings;
        this.answersAwaited = answersAwaited;
        this.reauthentication = reauthentication;
    }

    /** Whether this handler re-authenticates a connection that was authenticated before. */
    public boolean reauthenticating() {
        return reauthentication;
    }

    /** True once the broker accepted the credentials. */
    public boolean authenticated() {
        return state == State.DONE;
    }

    /** How many frames of the link wait for authentication (for tests). */
    public int heldFrames() {
        return held.size();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (state != State.WAITING || reauthentication) {
            return;
        }
        begin(ctx);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (reauthentication && ctx.channel().isActive()) {
            // what the link sent before is already past this handler; its frames from now on are held
            answersOwed = answersAwaited.getAsInt();
            if (answersOwed == 0) {
                begin(ctx);
            }
        }
    }

    private void begin(ChannelHandlerContext ctx) {
        timeout = ctx.executor().schedule(() -> fail(ctx, "the broker did not finish it within " + timeoutMillis + " ms"),
                timeoutMillis, TimeUnit.MILLISECONDS);
        if (oauth()) {
            try {
                char[] chars = credentials.token().reveal();
                bearer = new String(chars);
                Arrays.fill(chars, '\0');
            } catch (IllegalArgumentException e) {
                fail(ctx, "the bearer token (" + credentials.token().source() + ") cannot be read: " + e.getMessage());
                return;
            }
            if (bearer.isBlank()) {
                fail(ctx, "the bearer token (" + credentials.token().source() + ") is empty");
                return;
            }
        } else {
            try {
                password = credentials.password().reveal();
            } catch (IllegalArgumentException e) {
                fail(ctx, "the password (" + credentials.password().source() + ") cannot be read: " + e.getMessage());
                return;
            }
        }
        if (credentials.mechanism() == WeftConfig.SaslMechanism.SCRAM_SHA_256
                || credentials.mechanism() == WeftConfig.SaslMechanism.SCRAM_SHA_512) {
            try {
                scram = new ScramSaslClient(ScramMechanism.forMechanismName(credentials.mechanism().kafkaName), this::callbacks);
            } catch (java.security.NoSuchAlgorithmException e) {
                fail(ctx, "this JVM has no " + e.getMessage());
                return;
            }
        }
        state = State.HANDSHAKE;
        send(ctx, HANDSHAKE, HANDSHAKE_VERSION, new SaslHandshakeRequestData().setMechanism(credentials.mechanism().kafkaName));
    }

    private boolean oauth() {
        return credentials.mechanism() == WeftConfig.SaslMechanism.OAUTHBEARER;
    }

    private void callbacks(Callback[] callbacks) throws UnsupportedCallbackException {
        for (Callback c : callbacks) {
            if (c instanceof NameCallback n) {
                n.setName(credentials.username());
            } else if (c instanceof PasswordCallback p) {
                p.setPassword(password); // copied by the callback
            } else if (!(c instanceof ScramExtensionsCallback)) { // no extensions
                throw new UnsupportedCallbackException(c);
            }
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (state == State.DONE) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (reauthentication && state == State.WAITING) {
            ctx.fireChannelRead(msg); // an answer to a request sent before the re-authentication began
            if (--answersOwed <= 0 && ctx.channel().isActive()) {
                begin(ctx);
            }
            return;
        }
        ByteBuf frame = (ByteBuf) msg;
        try {
            if (state == State.HANDSHAKE || state == State.AUTHENTICATE) {
                onAnswer(ctx, frame);
            }
        } catch (RuntimeException | SaslException e) {
            fail(ctx, e.getMessage() != null ? e.getMessage() : e.toString());
        } finally {
            frame.release();
        }
    }

    private void onAnswer(ChannelHandlerContext ctx, ByteBuf frame) throws SaslException {
        short apiKey = state == State.HANDSHAKE ? HANDSHAKE : AUTHENTICATE;
        short version = state == State.HANDSHAKE ? HANDSHAKE_VERSION : AUTHENTICATE_VERSION;
        int bodyOffset = frame.readerIndex() + PREFIX;
        responseHeader.wrap(frame, bodyOffset);
        int id = responseHeader.correlationId();
        if (id != correlationId - 1) {
            fail(ctx, "the broker answered correlation id " + id + " but " + (correlationId - 1) + " was expected");
            return;
        }
        int bodyStart = bodyOffset + responseHeader.headerLength(apiKey, version);
        ApiMessage body = ColdCodec.readResponseBody(apiKey, version, frame.slice(bodyStart, frame.writerIndex() - bodyStart));
        if (body instanceof SaslHandshakeResponseData handshake) {
            Errors error = Errors.forCode(handshake.errorCode());
            if (error != Errors.NONE) {
                fail(ctx, error.name() + (error == Errors.UNSUPPORTED_SASL_MECHANISM
                        ? ": the listener enables " + handshake.mechanisms()
                        : ": " + error.message() + (error == Errors.ILLEGAL_SASL_STATE ? " (is " + address + " a SASL listener?)" : "")));
                return;
            }
            state = State.AUTHENTICATE;
            if (oauth()) {
                byte[] message = new OAuthBearerClientInitialResponse(bearer, SaslExtensions.empty()).toBytes();
                authenticate(ctx, message);
                Arrays.fill(message, (byte) 0);
            } else if (scram == null) {
                byte[] message = plainMessage();
                authenticate(ctx, message);
                Arrays.fill(message, (byte) 0);
            } else {
                authenticate(ctx, scram.evaluateChallenge(new byte[0]));
            }
            return;
        }
        SaslAuthenticateResponseData answer = (SaslAuthenticateResponseData) body;
        Errors error = Errors.forCode(answer.errorCode());
        if (error != Errors.NONE) {
            String message = answer.errorMessage() != null ? answer.errorMessage() : error.message();
            if (message.equals(bearerChallenge)) { // a broker may repeat its challenge as the error message
                bearerChallenge = null;
            }
            fail(ctx, error.name() + ": " + message + bearerHint());
            return;
        }
        if (oauth()) {
            byte[] challenge = answer.authBytes();
            if (bearerChallenge != null) { // the broker must end with an error after the challenge
                fail(ctx, "the broker refused the bearer token" + bearerHint());
            } else if (challenge != null && challenge.length > 0) { // RFC 7628 error challenge: acknowledge it
                bearerChallenge = new String(challenge, StandardCharsets.UTF_8);
                authenticate(ctx, OAUTHBEARER_ERROR_ACK.clone());
            } else {
                succeed(ctx, answer.sessionLifetimeMs());
            }
            return;
        }
        if (scram == null) {
            succeed(ctx, answer.sessionLifetimeMs());
            return;
        }
        byte[] next = scram.evaluateChallenge(answer.authBytes());
        if (scram.isComplete()) {
            succeed(ctx, answer.sessionLifetimeMs());
        } else if (next == null) {
            fail(ctx, "the SCRAM exchange stopped before it completed");
        } else {
            authenticate(ctx, next);
        }
    }

    /** What the broker's error challenge and the token's own expiry say, for a refused bearer token. */
    private String bearerHint() {
        if (!oauth()) {
            return "";
        }
        StringBuilder hint = new StringBuilder();
        if (bearerChallenge != null) {
            hint.append(" (the broker's challenge: ").append(bearerChallenge).append(')');
        }
        if (bearer != null) {
            java.util.OptionalLong expires = StaticBearerTokenLogin.expiresAtMs(bearer);
            if (expires.isPresent() && expires.getAsLong() <= System.currentTimeMillis()) {
                hint.append("; the token expired at ").append(java.time.Instant.ofEpochMilli(expires.getAsLong()));
            }
        }
        return hint.toString();
    }

    /** PLAIN's one message: {@code \0username\0password}, UTF-8. */
    private byte[] plainMessage() {
        char[] chars = new char[2 + credentials.username().length() + password.length];
        chars[0] = 0;
        credentials.username().getChars(0, credentials.username().length(), chars, 1);
        chars[1 + credentials.username().length()] = 0;
        System.arraycopy(password, 0, chars, 2 + credentials.username().length(), password.length);
        try {
            ByteBuffer encoded = StandardCharsets.UTF_8.newEncoder().encode(CharBuffer.wrap(chars));
            byte[] bytes = new byte[encoded.remaining()];
            encoded.get(bytes);
            if (encoded.hasArray()) {
                Arrays.fill(encoded.array(), (byte) 0);
            }
            return bytes;
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("the user name or password is not valid UTF-16 text", e);
        } finally {
            Arrays.fill(chars, '\0');
        }
    }

    private void authenticate(ChannelHandlerContext ctx, byte[] token) {
        send(ctx, AUTHENTICATE, AUTHENTICATE_VERSION, new SaslAuthenticateRequestData().setAuthBytes(token));
    }

    private void send(ChannelHandlerContext ctx, short apiKey, short version, ApiMessage body) {
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey(apiKey).setRequestApiVersion(version)
                .setCorrelationId(correlationId++).setClientId(CLIENT_ID);
        ByteBuf frame = ColdCodec.writeRequest(ctx.alloc(), header, body);
        ctx.writeAndFlush(frame).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                fail(ctx, "cannot send " + ApiKeys.forId(apiKey).name + ": " + f.cause());
            }
        });
    }

    private void succeed(ChannelHandlerContext ctx, long sessionLifetimeMs) {
        state = State.DONE;
        ended();
        LOG.debug("{} ({}): {} {} with {}{}", name, address, reauthentication ? "re-authenticated" : "authenticated",
                credentials.describe(), credentials.mechanism().kafkaName,
                sessionLifetimeMs > 0 ? " (session lifetime " + sessionLifetimeMs + " ms)" : "");
        if (sessionLifetimeMs > 0) {
            scheduleReauthentication(ctx.channel(), sessionLifetimeMs);
        }
        boolean any = !held.isEmpty();
        Object msg;
        while ((msg = held.poll()) != null) {
            ctx.write(msg, heldPromises.poll());
        }
        if (any) {
            ctx.flush();
        }
        if (!reauthentication) {
            ctx.fireChannelActive();
        }
        ctx.pipeline().remove(this);
    }

    /**
     * A new handler of this connection's credentials re-authenticates it at 85–95% of the session's
     * lifetime, after the frame decoder where this one sits; cancelled when the connection closes.
     */
    private void scheduleReauthentication(Channel channel, long sessionLifetimeMs) {
        long delay = Math.max(1, (long) (sessionLifetimeMs * (0.85 + 0.10 * ThreadLocalRandom.current().nextDouble())));
        new Reauthentication(channel).schedule(delay);
    }

    /** The next re-authentication of a connection: cancelled if it closes first, so a closed link is not kept. */
    private final class Reauthentication implements Runnable, GenericFutureListener<Future<? super Void>> {
        private final Channel channel;
        private ScheduledFuture<?> due;

        Reauthentication(Channel channel) {
            this.channel = channel;
        }

        void schedule(long delayMillis) {
            due = channel.eventLoop().schedule(this, delayMillis, TimeUnit.MILLISECONDS);
            channel.closeFuture().addListener(this);
        }

        @Override
        public void run() {
            channel.closeFuture().removeListener(this);
            ChannelHandlerContext decoder = channel.pipeline().context(KafkaFrameDecoder.class);
            if (channel.isActive() && decoder != null && channel.pipeline().get(UpstreamSaslHandshake.class) == null) {
                channel.pipeline().addAfter(decoder.name(), "weft-sasl-reauthentication",
                        new UpstreamSaslHandshake(name, address, credentials, timeoutMillis, warnings, answersAwaited, true));
            }
        }

        @Override
        public void operationComplete(Future<? super Void> closed) {
            due.cancel(false);
        }
    }

    /** Ends authentication: the reason goes to the link, which fails with it and closes the channel. */
    private void fail(ChannelHandlerContext ctx, String why) {
        if (state == State.DONE || state == State.FAILED) {
            return;
        }
        state = State.FAILED;
        ended();
        UpstreamSaslException failure = new UpstreamSaslException("SASL " + (reauthentication ? "re-authentication " : "authentication ")
                + credentials.describe()
                + " with " + credentials.mechanism().kafkaName + " failed: " + why);
        releaseHeld(failure);
        if (warnings == null || warnings.tryPass()) {
            LOG.warn("{} ({}): {}", name, address, failure.getMessage());
        } else {
            LOG.debug("{} ({}): {}", name, address, failure.getMessage());
        }
        ctx.fireExceptionCaught(failure);
        ctx.close();
    }

    private void ended() {
        if (timeout != null) {
            timeout.cancel(false);
            timeout = null;
        }
        if (password != null) {
            Arrays.fill(password, '\0');
            password = null;
        }
        bearer = null;
        if (scram != null) {
            try {
                scram.dispose();
            } catch (SaslException ignored) {
                // nothing held
            }
        }
    }

    private void releaseHeld(Throwable cause) {
        Object msg;
        while ((msg = held.poll()) != null) {
            ReferenceCountUtil.release(msg);
            ChannelPromise p = heldPromises.poll();
            if (!p.isVoid()) {
                p.tryFailure(cause);
            }
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (state == State.DONE || reauthentication) {
            ctx.fireChannelReadComplete();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (reauthentication && state == State.WAITING) {
            state = State.FAILED; // closed before re-authenticating began: nothing to explain
            releaseHeld(new UpstreamSaslException("the connection to " + address + " closed"));
        } else if (reauthentication && (state == State.HANDSHAKE || state == State.AUTHENTICATE)) {
            fail(ctx, "the broker closed the connection while it re-authenticated");
        } else if (state == State.WAITING || state == State.HANDSHAKE || state == State.AUTHENTICATE) {
            fail(ctx, "the broker closed the connection before it finished (is " + address + " a SASL listener?)");
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (state != State.DONE && state != State.FAILED) {
            state = State.FAILED;
            ended();
            releaseHeld(cause);
        }
        ctx.fireExceptionCaught(cause);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (state == State.DONE) {
            ctx.write(msg, promise);
        } else if (state == State.FAILED) {
            ReferenceCountUtil.release(msg);
            if (!promise.isVoid()) {
                promise.tryFailure(new UpstreamSaslException("SASL authentication with " + address + " failed"));
            }
        } else {
            held.add(msg);
            heldPromises.add(promise);
        }
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        if (state == State.DONE) {
            ctx.flush();
        } // before: the held frames are flushed once authenticated
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (state != State.DONE) {
            ended();
            releaseHeld(new UpstreamSaslException("the connection to " + address + " closed during SASL authentication"));
        }
    }
}
