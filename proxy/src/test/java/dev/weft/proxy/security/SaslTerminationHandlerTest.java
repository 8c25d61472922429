package dev.weft.proxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.junit.jupiter.api.Test;

/**
 * The SASL termination state machine on an {@link EmbeddedChannel} with a manual clock: what passes to
 * the session and when, every refusal's answer and close, session expiry (KIP-368), re-authentication
 * as someone else, the per-peer failure limit, and no leaked buffer on any path (leak detection is
 * PARANOID in tests). Full SCRAM exchanges with real clients are in {@code SaslTerminationTest}.
 */
class SaslTerminationHandlerTest {

    private static final long LIFETIME_MS = 10_000;

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final SaslCounters counters = new SaslCounters();
    private final FailedAuthentications failures = new FailedAuthentications(2, TimeUnit.SECONDS.toNanos(30), clock::get);
    private final SaslWire wire = new SaslWire();

    /** Passwords: alice "alice-secret", bob "bob-secret"; SCRAM-SHA-512 credentials derived with kafka-clients' formatter. */
    private static final CredentialStore STORE = new CredentialStore() {
        private final Map<String, ScramCredential> users = Map.of("alice", credential("alice-secret"), "bob", credential("bob-secret"));

        @Override
        public ScramCredential scram(String user, ScramMechanism mechanism) {
            return mechanism == ScramMechanism.SCRAM_SHA_512 ? users.get(user) : null;
        }

        @Override
        public boolean verifyPlain(String user, char[] password) {
            ScramCredential c = users.get(user);
            if (c == null) {
                return false;
            }
            try {
                ScramFormatter f = new ScramFormatter(org.apache.kafka.common.security.scram.internals.ScramMechanism.SCRAM_SHA_512);
                byte[] salted = f.saltedPassword(new String(password), c.salt(), c.iterations());
                return java.security.MessageDigest.isEqual(f.storedKey(f.clientKey(salted)), c.storedKey());
            } catch (java.security.GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }
    };

    private static ScramCredential credential(String password) {
        try {
            return new ScramFormatter(org.apache.kafka.common.security.scram.internals.ScramMechanism.SCRAM_SHA_512)
                    .generateCredential(password, 4096);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private EmbeddedChannel channel() {
        SaslTerminationSettings settings = new SaslTerminationSettings("main", List.of("SCRAM-SHA-512", "PLAIN"), new SaslServers(STORE),
                LIFETIME_MS, failures, counters, clock::get, Runnable::run);
        return SaslWire.channel(settings, "192.0.2.7"); // an address, so the failure limit has a peer to count
    }

    private ByteBuf request(ApiMessage body, short version) {
        return wire.request(body, version);
    }

    private static ApiMessage answer(EmbeddedChannel ch, short apiKey, short version) {
        return SaslWire.answer(ch, apiKey, version);
    }

    private SaslAuthenticateResponseData plain(EmbeddedChannel ch, String user, String password) {
        ch.writeInbound(request(new SaslHandshakeRequestData().setMechanism("PLAIN"), (short) 1));
        SaslHandshakeResponseData hs = (SaslHandshakeResponseData) answer(ch, ApiKeys.SASL_HANDSHAKE.id, (short) 1);
        assertEquals(Errors.NONE.code(), hs.errorCode());
        ch.writeInbound(request(new SaslAuthenticateRequestData().setAuthBytes(("\0" + user + "\0" + password)
                .getBytes(StandardCharsets.UTF_8)), (short) 2));
        return (SaslAuthenticateResponseData) answer(ch, ApiKeys.SASL_AUTHENTICATE.id, (short) 2);
    }

    private ByteBuf metadata() {
        return request(new MetadataRequestData().setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("orders"))),
                (short) 12);
    }

    @Test
    void onlyApiVersionsPassesBeforeAuthenticationAndEverythingAfter() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(request(new ApiVersionsRequestData().setClientSoftwareName("t").setClientSoftwareVersion("1"), (short) 3));
        ByteBuf passed = ch.readInbound();
        assertEquals(ApiKeys.API_VERSIONS.id, passed.getShort(4), "ApiVersions reaches the session");
        passed.release();

        SaslAuthenticateResponseData ok = plain(ch, "alice", "alice-secret");
        assertEquals(Errors.NONE.code(), ok.errorCode(), ok.errorMessage());
        assertEquals(LIFETIME_MS, ok.sessionLifetimeMs(), "KIP-368: the lifetime is told");
        assertEquals(new ClientPrincipal("alice", "PLAIN"), ClientPrincipal.of(ch));

        ch.writeInbound(metadata());
        ByteBuf after = ch.readInbound();
        assertEquals(ApiKeys.METADATA.id, after.getShort(4), "then requests reach the session");
        after.release();
        assertTrue(ch.isActive());
        assertEquals(1L, counters.snapshot().get("PLAIN").get(SaslOutcome.SUCCESS));
        ch.finishAndReleaseAll();
    }

    @Test
    void aRequestBeforeAuthenticatingGetsIllegalSaslStateAndTheConnectionCloses() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(metadata());
        assertNull(ch.readInbound(), "nothing reaches the session");
        MetadataResponseData refused = (MetadataResponseData) answer(ch, ApiKeys.METADATA.id, (short) 12);
        assertEquals(Errors.ILLEGAL_SASL_STATE.code(), refused.topics().find("orders").errorCode());
        assertFalse(ch.isActive(), "closed after the answer");
        assertEquals(1L, counters.snapshot().get("none").get(SaslOutcome.ILLEGAL_STATE));
        ch.finishAndReleaseAll();
    }

    @Test
    void saslAuthenticateBeforeTheHandshakeIsIllegal() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(request(new SaslAuthenticateRequestData().setAuthBytes(new byte[] {1}), (short) 2));
        SaslAuthenticateResponseData a = (SaslAuthenticateResponseData) answer(ch, ApiKeys.SASL_AUTHENTICATE.id, (short) 2);
        assertEquals(Errors.ILLEGAL_SASL_STATE.code(), a.errorCode());
        assertFalse(ch.isActive());
        ch.finishAndReleaseAll();
    }

    @Test
    void aMechanismNotEnabledIsUnsupportedAndNamesTheEnabledOnes() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(request(new SaslHandshakeRequestData().setMechanism("SCRAM-SHA-256"), (short) 1));
        SaslHandshakeResponseData hs = (SaslHandshakeResponseData) answer(ch, ApiKeys.SASL_HANDSHAKE.id, (short) 1);
        assertEquals(Errors.UNSUPPORTED_SASL_MECHANISM.code(), hs.errorCode());
        assertEquals(List.of("SCRAM-SHA-512", "PLAIN"), hs.mechanisms());
        assertFalse(ch.isActive());
        ch.finishAndReleaseAll();
    }

    @Test
    void aWrongPasswordFailsAndAfterTheLimitEvenTheRightOneIsRefusedUntilTheWindowPasses() {
        for (int i = 0; i < 2; i++) {
            EmbeddedChannel ch = channel();
            SaslAuthenticateResponseData a = plain(ch, "alice", "guess-" + i);
            assertEquals(Errors.SASL_AUTHENTICATION_FAILED.code(), a.errorCode());
            assertTrue(a.errorMessage().contains("invalid credentials"), a.errorMessage());
            assertFalse(ch.isActive());
            assertNull(ClientPrincipal.of(ch));
            ch.finishAndReleaseAll();
        }
        EmbeddedChannel blocked = channel();
        SaslAuthenticateResponseData refused = plain(blocked, "alice", "alice-secret");
        assertEquals(Errors.SASL_AUTHENTICATION_FAILED.code(), refused.errorCode());
        assertTrue(refused.errorMessage().startsWith("too many failed authentications from 192.0.2.7"), refused.errorMessage());
        blocked.finishAndReleaseAll();
        assertEquals(1L, counters.snapshot().get("PLAIN").get(SaslOutcome.RATE_LIMITED));
        assertEquals(2L, counters.snapshot().get("PLAIN").get(SaslOutcome.BAD_CREDENTIALS));

        clock.addAndGet(TimeUnit.SECONDS.toNanos(31));
        EmbeddedChannel later = channel();
        assertEquals(Errors.NONE.code(), plain(later, "alice", "alice-secret").errorCode(), "the window passed");
        later.finishAndReleaseAll();
    }

    @Test
    void aConnectionUsedAfterItsLifetimeWithoutReauthenticatingIsClosed() {
        EmbeddedChannel ch = channel();
        assertEquals(Errors.NONE.code(), plain(ch, "bob", "bob-secret").errorCode());
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(LIFETIME_MS - 1));
        ch.writeInbound(metadata());
        ByteBuf inTime = ch.readInbound();
        inTime.release();

        // re-authentication (KIP-368) renews it
        SaslAuthenticateResponseData again = plain(ch, "bob", "bob-secret");
        assertEquals(Errors.NONE.code(), again.errorCode());
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(LIFETIME_MS - 1));
        ch.writeInbound(metadata());
        ByteBuf renewed = ch.readInbound();
        renewed.release();

        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(2));
        ch.writeInbound(metadata());
        assertNull(ch.readInbound(), "expired: not forwarded");
        assertFalse(ch.isActive());
        assertEquals(1L, counters.snapshot().get("PLAIN").get(SaslOutcome.EXPIRED));
        ch.finishAndReleaseAll();
    }

    @Test
    void reauthenticatingAsSomeoneElseIsRefused() {
        EmbeddedChannel ch = channel();
        assertEquals(Errors.NONE.code(), plain(ch, "bob", "bob-secret").errorCode());
        SaslAuthenticateResponseData other = plain(ch, "alice", "alice-secret");
        assertEquals(Errors.SASL_AUTHENTICATION_FAILED.code(), other.errorCode());
        assertFalse(ch.isActive());
        assertEquals(new ClientPrincipal("bob", "PLAIN"), ClientPrincipal.of(ch), "still bob's, and closed");
        ch.finishAndReleaseAll();
    }

    @Test
    void anOversizedFrameBeforeAuthenticatingClosesWithoutParsing() {
        EmbeddedChannel ch = channel();
        byte[] huge = new byte[SaslTermination.MAX_UNAUTHENTICATED_FRAME_BYTES + 1];
        ch.writeInbound(request(new SaslAuthenticateRequestData().setAuthBytes(huge), (short) 2));
        assertNull(ch.readOutbound(), "no answer");
        assertFalse(ch.isActive());
        ch.finishAndReleaseAll();
    }

    @Test
    void aScramExchangeWithKafkaClientsOwnClientAuthenticates() throws Exception {
        EmbeddedChannel ch = channel();
        org.apache.kafka.common.security.scram.internals.ScramSaslClient client = new org.apache.kafka.common.security.scram.internals
                .ScramSaslClient(org.apache.kafka.common.security.scram.internals.ScramMechanism.SCRAM_SHA_512, callbacks -> {
                    for (var c : callbacks) {
                        if (c instanceof javax.security.auth.callback.NameCallback n) {
                            n.setName("alice");
                        } else if (c instanceof javax.security.auth.callback.PasswordCallback p) {
                            p.setPassword("alice-secret".toCharArray());
                        } else if (c instanceof org.apache.kafka.common.security.scram.ScramExtensionsCallback) {
                            // no extensions
                        } else {
                            throw new javax.security.auth.callback.UnsupportedCallbackException(c);
                        }
                    }
                });
        ch.writeInbound(request(new SaslHandshakeRequestData().setMechanism("SCRAM-SHA-512"), (short) 1));
        assertEquals(Errors.NONE.code(), ((SaslHandshakeResponseData) answer(ch, ApiKeys.SASL_HANDSHAKE.id, (short) 1)).errorCode());
        byte[] token = client.evaluateChallenge(new byte[0]);
        SaslAuthenticateResponseData a = null;
        while (!client.isComplete()) {
            ch.writeInbound(request(new SaslAuthenticateRequestData().setAuthBytes(token), (short) 2));
            a = (SaslAuthenticateResponseData) answer(ch, ApiKeys.SASL_AUTHENTICATE.id, (short) 2);
            assertEquals(Errors.NONE.code(), a.errorCode(), a.errorMessage());
            token = client.evaluateChallenge(a.authBytes());
        }
        assertEquals(new ClientPrincipal("alice", "SCRAM-SHA-512"), ClientPrincipal.of(ch));
        ch.finishAndReleaseAll();
    }
}
