package dev.weft.proxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.config.ConfigException;
import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.config.WeftConfig;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.SaslExtensions;
import org.apache.kafka.common.security.oauthbearer.internals.OAuthBearerClientInitialResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * OAUTHBEARER in the SASL termination state machine on an {@link EmbeddedChannel} with a manual
 * clock (session expiry), over kafka-clients' JWT validator and a JWKS file: the session lifetime told
 * in SaslAuthenticate is the smaller of {@code reauthenticateMs} and the token's remaining lifetime and
 * is enforced; a refused token gets RFC 7628's error challenge, then, on the client's {@code %x01},
 * SASL_AUTHENTICATION_FAILED and the close, counted under its reason; the principal is the token's
 * subject. Also the {@code oauthbearer} settings. JWT validation uses wall time: tokens are issued
 * relative to now.
 */
class OAuthBearerHandlerTest {

    private static Path dir;
    private static OAuthBearerTerminationTest.Tokens tokens;
    private static OAuthBearerValidation validation;

    private final AtomicLong clock = new AtomicLong(5_000_000_000L);
    private final SaslCounters counters = new SaslCounters();
    private final SaslWire wire = new SaslWire();

    @BeforeAll
    static void start() throws IOException {
        dir = Files.createTempDirectory("weft-oauth-handler");
        tokens = new OAuthBearerTerminationTest.Tokens();
        Path jwks = dir.resolve("jwks.json");
        Files.writeString(jwks, tokens.jwks(tokens.key));
        validation = OAuthBearerValidation.open(new WeftConfig.OAuthBearer(jwks.toUri().toString(), OAuthBearerTerminationTest.ISSUER,
                List.of(OAuthBearerTerminationTest.AUDIENCE), "sub", 30, 3_600_000, null));
    }

    @AfterAll
    static void stop() throws IOException {
        if (validation != null) {
            validation.close();
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private EmbeddedChannel channel(long reauthenticateMs) {
        SaslTerminationSettings settings = new SaslTerminationSettings("main", List.of("OAUTHBEARER"), new SaslServers(null, validation),
                reauthenticateMs, new FailedAuthentications(100, TimeUnit.SECONDS.toNanos(30), clock::get), counters, clock::get,
                Runnable::run);
        return SaslWire.channel(settings, "192.0.2.9");
    }

    private ByteBuf request(ApiMessage body, short version) {
        return wire.request(body, version);
    }

    private static ApiMessage answer(EmbeddedChannel ch, short apiKey, short version) {
        return SaslWire.answer(ch, apiKey, version);
    }

    private void handshake(EmbeddedChannel ch) {
        ch.writeInbound(request(new SaslHandshakeRequestData().setMechanism("OAUTHBEARER"), (short) 1));
        SaslHandshakeResponseData hs = (SaslHandshakeResponseData) answer(ch, ApiKeys.SASL_HANDSHAKE.id, (short) 1);
        assertEquals(Errors.NONE.code(), hs.errorCode());
    }

    /** A SaslAuthenticate v2 with {@code bytes}, and its answer. */
    private SaslAuthenticateResponseData authenticate(EmbeddedChannel ch, byte[] bytes) {
        ch.writeInbound(request(new SaslAuthenticateRequestData().setAuthBytes(bytes), (short) 2));
        return (SaslAuthenticateResponseData) answer(ch, ApiKeys.SASL_AUTHENTICATE.id, (short) 2);
    }

    /** The client's first message as kafka-clients writes it: {@code n,,\x01auth=Bearer TOKEN\x01\x01}. */
    private static byte[] bearer(String jwt) {
        try {
            return new OAuthBearerClientInitialResponse(jwt, new SaslExtensions(Map.of())).toBytes();
        } catch (javax.security.sasl.SaslException e) {
            throw new IllegalStateException(e);
        }
    }

    private ByteBuf metadata() {
        return request(new MetadataRequestData().setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("orders"))),
                (short) 12);
    }

    @Test
    void theLifetimeToldIsReauthenticateMsWhenTheTokenOutlivesIt() {
        EmbeddedChannel ch = channel(10_000);
        handshake(ch);
        SaslAuthenticateResponseData ok = authenticate(ch, bearer(tokens.token("good", "alice", 600_000)));
        assertEquals(Errors.NONE.code(), ok.errorCode(), ok.errorMessage());
        assertEquals(10_000, ok.sessionLifetimeMs());
        assertEquals(new ClientPrincipal("alice", "OAUTHBEARER"), ClientPrincipal.of(ch), "the principal is the token's subject");
        assertEquals(1L, counters.snapshot().get("OAUTHBEARER").get(SaslOutcome.SUCCESS));
        ch.finishAndReleaseAll();
    }

    @Test
    void theLifetimeToldIsTheTokensRemainingOneWhenShorterAndItIsEnforced() {
        EmbeddedChannel ch = channel(600_000);
        handshake(ch);
        SaslAuthenticateResponseData ok = authenticate(ch, bearer(tokens.token("good", "alice", 60_000)));
        assertEquals(Errors.NONE.code(), ok.errorCode(), ok.errorMessage());
        assertTrue(ok.sessionLifetimeMs() > 50_000 && ok.sessionLifetimeMs() <= 60_000, "the token's remaining lifetime: " + ok.sessionLifetimeMs());

        ch.writeInbound(metadata());
        ByteBuf passed = ch.readInbound();
        assertEquals(ApiKeys.METADATA.id, passed.getShort(4));
        passed.release();

        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(ok.sessionLifetimeMs() + 1));
        ch.writeInbound(metadata());
        assertNull(ch.readInbound(), "nothing after the token's lifetime");
        assertFalse(ch.isActive(), "closed");
        assertEquals(1L, counters.snapshot().get("OAUTHBEARER").get(SaslOutcome.EXPIRED));
        ch.finishAndReleaseAll();
    }

    @Test
    void withoutReauthenticateMsTheTokensLifetimeIsToldAndAFreshTokenReauthenticates() {
        EmbeddedChannel ch = channel(0);
        handshake(ch);
        SaslAuthenticateResponseData first = authenticate(ch, bearer(tokens.token("good", "alice", 30_000)));
        assertTrue(first.sessionLifetimeMs() > 20_000 && first.sessionLifetimeMs() <= 30_000, "told " + first.sessionLifetimeMs());

        clock.addAndGet(TimeUnit.SECONDS.toNanos(25)); // KIP-368: before the session runs out, a fresh token
        handshake(ch);
        SaslAuthenticateResponseData again = authenticate(ch, bearer(tokens.token("good", "alice", 120_000)));
        assertEquals(Errors.NONE.code(), again.errorCode(), again.errorMessage());
        assertTrue(again.sessionLifetimeMs() > 110_000 && again.sessionLifetimeMs() <= 120_000, "the new token's: " + again.sessionLifetimeMs());
        clock.addAndGet(TimeUnit.SECONDS.toNanos(60)); // past the first token's lifetime, within the second's
        ch.writeInbound(metadata());
        ByteBuf passed = ch.readInbound();
        assertEquals(ApiKeys.METADATA.id, passed.getShort(4), "the connection goes on");
        passed.release();
        assertEquals(2L, counters.snapshot().get("OAUTHBEARER").get(SaslOutcome.SUCCESS));

        handshake(ch);
        SaslAuthenticateResponseData bob = authenticate(ch, bearer(tokens.token("good", "bob", 120_000)));
        assertEquals(Errors.SASL_AUTHENTICATION_FAILED.code(), bob.errorCode(), "re-authentication keeps the principal");
        assertFalse(ch.isActive());
        ch.finishAndReleaseAll();
    }

    @Test
    void anExpiredTokenGetsTheErrorChallengeThenSaslAuthenticationFailedAndTheClose() {
        EmbeddedChannel ch = channel(0);
        handshake(ch);
        SaslAuthenticateResponseData challenge = authenticate(ch, bearer(tokens.token("expired", "alice", 0)));
        assertEquals(Errors.NONE.code(), challenge.errorCode(), "RFC 7628: first an error challenge");
        assertEquals("{\"status\":\"invalid_token\"}", new String(challenge.authBytes(), StandardCharsets.UTF_8));
        assertTrue(ch.isActive(), "waiting for the client's %x01");

        SaslAuthenticateResponseData failed = authenticate(ch, new byte[] {0x01});
        assertEquals(Errors.SASL_AUTHENTICATION_FAILED.code(), failed.errorCode());
        assertTrue(failed.errorMessage().contains("OAUTHBEARER"), failed.errorMessage());
        assertFalse(ch.isActive(), "closed after the answer");
        assertEquals(1L, counters.snapshot().get("OAUTHBEARER").get(SaslOutcome.TOKEN_EXPIRED));
        assertNull(ClientPrincipal.of(ch));
        ch.finishAndReleaseAll();
    }

    /** kafkajs 2.2 ignores the error challenge and sends its next request: still refused, and counted under the token's reason. */
    @Test
    void aClientIgnoringTheErrorChallengeIsRefusedAndCountedUnderTheTokensReason() {
        EmbeddedChannel ch = channel(0);
        handshake(ch);
        SaslAuthenticateResponseData challenge = authenticate(ch, bearer(tokens.token("expired", "alice", 0)));
        assertEquals(Errors.NONE.code(), challenge.errorCode());
        ch.writeInbound(metadata());
        MetadataResponseData refused = (MetadataResponseData) answer(ch, ApiKeys.METADATA.id, (short) 12);
        assertEquals(Errors.ILLEGAL_SASL_STATE.code(), refused.topics().find("orders").errorCode());
        assertFalse(ch.isActive(), "closed after the answer");
        Map<SaslOutcome, Long> counted = counters.snapshot().get("OAUTHBEARER");
        assertEquals(1L, counted.get(SaslOutcome.TOKEN_EXPIRED), counted.toString());
        assertEquals(0L, counted.get(SaslOutcome.ILLEGAL_STATE), counted.toString());
        assertNull(ClientPrincipal.of(ch));
        ch.finishAndReleaseAll();
    }

    @Test
    void eachRefusalIsCountedUnderItsReason() {
        Map<String, SaslOutcome> cases = Map.of("audience", SaslOutcome.TOKEN_WRONG_AUDIENCE, "issuer", SaslOutcome.TOKEN_WRONG_ISSUER,
                "other-key", SaslOutcome.TOKEN_BAD_SIGNATURE, "unknown-kid", SaslOutcome.TOKEN_BAD_SIGNATURE);
        cases.forEach((kind, outcome) -> {
            EmbeddedChannel ch = channel(0);
            handshake(ch);
            SaslAuthenticateResponseData challenge = authenticate(ch, bearer(tokens.token(kind, "alice", 60_000)));
            assertEquals(Errors.NONE.code(), challenge.errorCode(), kind);
            SaslAuthenticateResponseData failed = authenticate(ch, new byte[] {0x01});
            assertEquals(Errors.SASL_AUTHENTICATION_FAILED.code(), failed.errorCode(), kind);
            assertFalse(ch.isActive(), kind);
            ch.finishAndReleaseAll();
        });
        Map<SaslOutcome, Long> counted = counters.snapshot().get("OAUTHBEARER");
        assertEquals(1L, counted.get(SaslOutcome.TOKEN_WRONG_AUDIENCE), counted.toString());
        assertEquals(1L, counted.get(SaslOutcome.TOKEN_WRONG_ISSUER), counted.toString());
        assertEquals(2L, counted.get(SaslOutcome.TOKEN_BAD_SIGNATURE), counted.toString());
        assertEquals(0L, counted.get(SaslOutcome.SUCCESS));
    }

    @Test
    void theReasonLoggedNamesTheCauseButNeverTheToken() {
        String jwt = tokens.token("other-key", "alice", 60_000);
        OAuthBearerValidation.TokenRefused refused = OAuthBearerValidation.TokenRefused.of("Could not validate the access token: JWT rejected"
                + " due to invalid signature. Additional details: [[9] Invalid JWS Signature: JsonWebSignature{\"kid\":\"k\"}->" + jwt + "]");
        assertEquals(SaslOutcome.TOKEN_BAD_SIGNATURE, refused.outcome());
        assertTrue(refused.getMessage().startsWith("token refused (token_bad_signature): [[9] Invalid JWS Signature"), refused.getMessage());
        assertFalse(refused.getMessage().contains(jwt.substring(0, jwt.indexOf('.'))), refused.getMessage());
        assertTrue(refused.getMessage().contains("<token>"), refused.getMessage());
    }

    @Test
    void aMalformedFirstMessageIsRefusedAtOnce() {
        EmbeddedChannel ch = channel(0);
        handshake(ch);
        SaslAuthenticateResponseData failed = authenticate(ch, "not oauthbearer".getBytes(StandardCharsets.UTF_8));
        assertEquals(Errors.SASL_AUTHENTICATION_FAILED.code(), failed.errorCode());
        assertFalse(ch.isActive());
        assertEquals(1L, counters.snapshot().get("OAUTHBEARER").get(SaslOutcome.BAD_CREDENTIALS));
        ch.finishAndReleaseAll();
    }

    @Test
    void aFileJwksIsReadAgainWhenItChanges() throws Exception {
        Path jwks = dir.resolve("rotating-jwks.json");
        Files.writeString(jwks, tokens.jwks(tokens.key));
        try (OAuthBearerValidation own = OAuthBearerValidation.open(new WeftConfig.OAuthBearer(jwks.toUri().toString(),
                OAuthBearerTerminationTest.ISSUER, List.of(OAuthBearerTerminationTest.AUDIENCE), "sub", 30, 3_600_000, null))) {
            String rotated = tokens.token("rotated", "alice", 60_000);
            javax.security.sasl.SaslServer before = own.newServer();
            assertEquals("{\"status\":\"invalid_token\"}", new String(before.evaluateResponse(bearer(rotated)), StandardCharsets.UTF_8),
                    "a key the file does not list yet");
            Files.writeString(jwks, tokens.jwks(tokens.key, tokens.rotated));
            Files.setLastModifiedTime(jwks, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 5_000));
            javax.security.sasl.SaslServer after = own.newServer();
            assertEquals(0, after.evaluateResponse(bearer(rotated)).length);
            assertTrue(after.isComplete());
            assertEquals("alice", after.getAuthorizationID());
        }
    }

    @Test
    void anHttpsJwksThatCannotBeFetchedFailsAtStartNamingIt() throws Exception {
        int closedPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        String url = "https://127.0.0.1:" + closedPort + "/jwks.json";
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> OAuthBearerValidation.open(new WeftConfig.OAuthBearer(url,
                OAuthBearerTerminationTest.ISSUER, List.of(OAuthBearerTerminationTest.AUDIENCE), "sub", 30, 3_600_000, null)));
        assertTrue(e.getMessage().contains(url), e.getMessage());
    }

    // ---- the settings: virtualClusters.NAME.authentication.sasl.oauthbearer

    private static String config(String sasl) {
        return """
                clusters:
                  east: { bootstrap: "10.0.0.1:9092" }
                virtualClusters:
                  main:
                    target: { cluster: east }
                    authentication:
                      sasl:
                %s
                    gateways: [ { name: plain, bind: "0.0.0.0:9192" } ]
                """.formatted(sasl.indent(8).stripTrailing());
    }

    private static List<String> problems(String sasl) {
        return assertThrows(ConfigException.class, () -> ConfigLoader.parse(config(sasl), "weft.yaml")).problems();
    }

    @Test
    void readsTheOAuthBearerSettingsAndNeedsNoCredentialFileForOAuthBearerAlone() throws Exception {
        WeftConfig c = ConfigLoader.parse(config("""
                mechanisms: [oauthbearer]
                reauthenticateMs: 600000
                oauthbearer:
                  jwks: "https://idp.example.com/keys"
                  issuer: "https://idp.example.com"
                  audience: kafka-main
                  trustCertificates: /etc/weft/idp-ca.pem
                """), "weft.yaml");
        assertEquals(new WeftConfig.ClientAuthentication(List.of("OAUTHBEARER"), null, 600_000, 5, 60_000,
                new WeftConfig.OAuthBearer("https://idp.example.com/keys", "https://idp.example.com", List.of("kafka-main"), "sub", 30,
                        3_600_000, Path.of("/etc/weft/idp-ca.pem"))), c.virtualClusters().get("main").authentication());

        WeftConfig both = ConfigLoader.parse(config("""
                mechanisms: [SCRAM-SHA-512, OAUTHBEARER]
                credentials: /etc/weft/users
                oauthbearer: { jwks: "file:/etc/weft/jwks.json", issuer: i, audience: [a, b], subClaim: client_id, clockSkewMs: 1500 }
                """), "weft.yaml");
        WeftConfig.OAuthBearer o = both.virtualClusters().get("main").authentication().oauthBearer();
        assertEquals(new WeftConfig.OAuthBearer("file:/etc/weft/jwks.json", "i", List.of("a", "b"), "client_id", 2, 3_600_000, null), o,
                "clock skew in whole seconds, rounded up");
    }

    @Test
    void oauthBearerMistakesAreOneLineEachNamingThePath() {
        List<String> missing = problems("mechanisms: [OAUTHBEARER]");
        assertTrue(missing.stream().anyMatch(m -> m.startsWith("weft.yaml: virtualClusters.main.authentication.sasl.oauthbearer: is required")),
                missing.toString());
        assertTrue(missing.stream().noneMatch(m -> m.contains("credentials")), "no credential file needed: " + missing);

        List<String> stray = problems("""
                mechanisms: [PLAIN]
                credentials: /etc/weft/users
                oauthbearer: { jwks: "file:/j.json", issuer: i, audience: a }
                """);
        assertTrue(stray.stream().anyMatch(m -> m.startsWith("weft.yaml: virtualClusters.main.authentication.sasl.oauthbearer: only with OAUTHBEARER")),
                stray.toString());

        List<String> scram = problems("""
                mechanisms: [OAUTHBEARER, SCRAM-SHA-256]
                oauthbearer: { jwks: "file:/j.json", issuer: i, audience: a }
                """);
        assertTrue(scram.stream().anyMatch(m -> m.startsWith("weft.yaml: virtualClusters.main.authentication.sasl.credentials: is required")),
                scram.toString());

        List<String> bad = problems("""
                mechanisms: [OAUTHBEARER]
                oauthbearer: { jwks: "http://idp/keys", audience: [], clockSkewMs: -1, colour: blue }
                """);
        String o = "weft.yaml: virtualClusters.main.authentication.sasl.oauthbearer.";
        assertTrue(bad.stream().anyMatch(m -> m.startsWith(o + "jwks: \"http://idp/keys\" is neither an https:// URL nor a file: URL")), bad.toString());
        assertTrue(bad.stream().anyMatch(m -> m.startsWith(o + "issuer: is required")), bad.toString());
        assertTrue(bad.stream().anyMatch(m -> m.startsWith(o + "audience:")), bad.toString());
        assertTrue(bad.stream().anyMatch(m -> m.startsWith(o + "clockSkewMs:")), bad.toString());
        assertTrue(bad.stream().anyMatch(m -> m.contains("colour")), bad.toString());
        assertTrue(bad.stream().noneMatch(m -> m.contains("\n")), "one line each: " + bad);

        List<String> fileTrust = problems("""
                mechanisms: [OAUTHBEARER]
                oauthbearer: { jwks: "file:/j.json", issuer: i, audience: a, trustCertificates: /ca.pem, jwksRefreshMs: 5000 }
                """);
        assertTrue(fileTrust.stream().anyMatch(m -> m.startsWith(o + "trustCertificates: only for an https://")), fileTrust.toString());
        assertTrue(fileTrust.stream().anyMatch(m -> m.startsWith(o + "jwksRefreshMs: only for an https://")), fileTrust.toString());
    }
}
