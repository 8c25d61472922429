package dev.weft.proxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.protocol.cold.ColdCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.junit.jupiter.api.Test;

/**
 * Mutated SASL frames against the terminating handler (issue 15): handshakes and tokens with flipped,
 * cut, inserted and random bytes, the header included (API key, version, correlation id), in random
 * orders. Whatever arrives: the handler never throws, never leaks a buffer (leak detection is PARANOID
 * in tests; every iteration ends with the channel's buffers released), and never lets a request other
 * than ApiVersions through to the session on a connection that has not authenticated — the bypass a
 * mutation must not find.
 */
class SaslFuzzTest {

    private static final int ITERATIONS = 1_500;
    private static final ScramCredential ALICE;

    static {
        try {
            ALICE = new ScramFormatter(org.apache.kafka.common.security.scram.internals.ScramMechanism.SCRAM_SHA_256)
                    .generateCredential("alice-secret", 4096);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Alice only; PLAIN accepts exactly her password (a cheap check: this test is about the state machine). */
    private static final CredentialStore STORE = new CredentialStore() {
        @Override
        public ScramCredential scram(String user, ScramMechanism mechanism) {
            return user.equals("alice") && mechanism == ScramMechanism.SCRAM_SHA_256 ? ALICE : null;
        }

        @Override
        public boolean verifyPlain(String user, char[] password) {
            return user.equals("alice") && new String(password).equals("alice-secret");
        }
    };

    private final SplittableRandom random = new SplittableRandom(20261203L);
    private long clock = 1_000_000_000L;
    private int correlationId;

    @Test
    void mutatedSaslFramesNeverBypassAuthenticationNeverThrowAndNeverLeak() {
        int passedAuthenticated = 0;
        int passedApiVersions = 0;
        int closed = 0;
        for (int i = 0; i < ITERATIONS; i++) {
            SaslTerminationSettings settings = new SaslTerminationSettings("fuzz", List.of("PLAIN", "SCRAM-SHA-256"), new SaslServers(STORE),
                    10_000, new FailedAuthentications(1_000_000, TimeUnit.SECONDS.toNanos(1), () -> clock), new SaslCounters(),
                    () -> clock, Runnable::run);
            EmbeddedChannel ch = new EmbeddedChannel(new SaslTermination(settings, "fuzz")) {
                @Override
                protected SocketAddress remoteAddress0() {
                    return new InetSocketAddress("192.0.2.9", 40000);
                }
            };
            try {
                for (ByteBuf frame : conversation()) {
                    if (!ch.isActive()) {
                        frame.release();
                        continue;
                    }
                    ch.writeInbound(frame);
                    ch.checkException();
                    Object passed;
                    while ((passed = ch.readInbound()) != null) {
                        ByteBuf p = (ByteBuf) passed;
                        boolean authenticated = ClientPrincipal.of(ch) != null;
                        try {
                            // (an authenticated connection's malformed frames go on: the session names the problem)
                            short apiKey = p.readableBytes() >= 6 ? p.getShort(p.readerIndex() + 4) : -1;
                            assertTrue(authenticated || apiKey == ApiKeys.API_VERSIONS.id,
                                    "iteration " + i + ": API key " + apiKey + " passed before authenticating");
                        } finally {
                            p.release();
                        }
                        if (authenticated) {
                            passedAuthenticated++;
                        } else {
                            passedApiVersions++;
                        }
                    }
                }
                if (!ch.isActive()) {
                    closed++;
                }
            } finally {
                ch.finishAndReleaseAll();
            }
            clock += TimeUnit.MILLISECONDS.toNanos(random.nextInt(3_000));
        }
        System.out.printf("[sasl-fuzz] %d conversations: %d closed by the handler, %d frames passed authenticated, %d ApiVersions"
                + " passed before%n", ITERATIONS, closed, passedAuthenticated, passedApiVersions);
        assertTrue(closed > ITERATIONS / 2, "most mutated conversations end in a close: " + closed);
        assertTrue(passedAuthenticated > 0, "some conversations authenticate and are served (the mutations are not all fatal)");
    }

    /** A conversation: maybe ApiVersions, a handshake, one to three authenticate frames, a Metadata; some of it mutated. */
    private List<ByteBuf> conversation() {
        List<byte[]> frames = new ArrayList<>();
        if (random.nextBoolean()) {
            frames.add(bytes(new ApiVersionsRequestData().setClientSoftwareName("fuzz").setClientSoftwareVersion("1"), (short) 3));
        }
        boolean plain = random.nextBoolean();
        frames.add(bytes(new SaslHandshakeRequestData().setMechanism(plain ? "PLAIN" : "SCRAM-SHA-256"), (short) 1));
        if (plain) {
            frames.add(bytes(new SaslAuthenticateRequestData().setAuthBytes(
                    "\0alice\0alice-secret".getBytes(StandardCharsets.UTF_8)), (short) 2));
        } else {
            frames.add(bytes(new SaslAuthenticateRequestData().setAuthBytes(
                    ("n,,n=alice,r=" + Long.toHexString(random.nextLong())).getBytes(StandardCharsets.UTF_8)), (short) 2));
            frames.add(bytes(new SaslAuthenticateRequestData().setAuthBytes(
                    ("c=biws,r=x,p=" + Long.toHexString(random.nextLong())).getBytes(StandardCharsets.UTF_8)), (short) 2));
        }
        frames.add(bytes(new MetadataRequestData().setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("t"))),
                (short) 12));
        int mutations = random.nextInt(4);
        for (int m = 0; m < mutations; m++) {
            int which = random.nextInt(frames.size());
            frames.set(which, mutate(frames.get(which)));
        }
        if (random.nextInt(5) == 0) {
            java.util.Collections.shuffle(frames, new java.util.Random(random.nextLong()));
        }
        List<ByteBuf> out = new ArrayList<>();
        for (byte[] body : frames) {
            ByteBuf frame = ByteBufAllocator.DEFAULT.buffer(4 + body.length);
            frame.writeInt(body.length).writeBytes(body);
            out.add(frame);
        }
        return out;
    }

    /** The frame's bytes after the size prefix (header and body). */
    private byte[] bytes(ApiMessage body, short version) {
        ByteBuf frame = ColdCodec.writeRequest(ByteBufAllocator.DEFAULT, new RequestHeaderData().setRequestApiKey(body.apiKey())
                .setRequestApiVersion(version).setCorrelationId(++correlationId).setClientId("fuzz"), body);
        try {
            byte[] b = new byte[frame.readableBytes() - 4];
            frame.getBytes(frame.readerIndex() + 4, b);
            return b;
        } finally {
            frame.release();
        }
    }

    private byte[] mutate(byte[] in) {
        byte[] b = in.clone();
        if (b.length == 0) {
            return new byte[] {(byte) random.nextInt(256)};
        }
        switch (random.nextInt(5)) {
            case 0 -> { // flip bits
                for (int k = 0; k < 1 + random.nextInt(4); k++) {
                    int at = random.nextInt(b.length);
                    b[at] ^= (byte) (1 << random.nextInt(8));
                }
            }
            case 1 -> b = java.util.Arrays.copyOf(b, random.nextInt(b.length)); // cut
            case 2 -> { // insert random bytes
                int at = random.nextInt(b.length + 1);
                byte[] extra = new byte[1 + random.nextInt(16)];
                random.nextBytes(extra);
                byte[] c = new byte[b.length + extra.length];
                System.arraycopy(b, 0, c, 0, at);
                System.arraycopy(extra, 0, c, at, extra.length);
                System.arraycopy(b, at, c, at + extra.length, b.length - at);
                b = c;
            }
            case 3 -> { // the header's API key or version
                if (b.length >= 4) {
                    int at = random.nextBoolean() ? 0 : 2;
                    b[at] = (byte) random.nextInt(256);
                    b[at + 1] = (byte) random.nextInt(256);
                }
            }
            default -> random.nextBytes(b); // noise of the same length
        }
        return b;
    }

    @Test
    void theFuzzedHandlerStillAuthenticatesAnUnmutatedConversation() {
        SaslTerminationSettings settings = new SaslTerminationSettings("fuzz", List.of("PLAIN"), new SaslServers(STORE), 0,
                new FailedAuthentications(5, TimeUnit.SECONDS.toNanos(1), () -> clock), new SaslCounters(), () -> clock, Runnable::run);
        EmbeddedChannel ch = new EmbeddedChannel(new SaslTermination(settings, "fuzz"));
        for (byte[] body : List.of(bytes(new SaslHandshakeRequestData().setMechanism("PLAIN"), (short) 1),
                bytes(new SaslAuthenticateRequestData().setAuthBytes("\0alice\0alice-secret".getBytes(StandardCharsets.UTF_8)), (short) 2))) {
            ByteBuf frame = ByteBufAllocator.DEFAULT.buffer(4 + body.length);
            ch.writeInbound(frame.writeInt(body.length).writeBytes(body));
        }
        assertNotNull(ClientPrincipal.of(ch));
        assertEquals(Map.of("PLAIN", 1L), Map.of("PLAIN", settings.counters().snapshot().get("PLAIN").get(SaslOutcome.SUCCESS)));
        ch.finishAndReleaseAll();
    }
}
