package dev.weft.proxy.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.iocore.buffer.BufferPolicy;
import dev.weft.proxy.server.WeftProxy;
import dev.weft.proxy.testing.KafkaFrames;
import dev.weft.proxy.testing.Poll;
import dev.weft.proxy.testing.VirtualClusterFixture;
import dev.weft.proxy.testing.VirtualClusterKind;
import dev.weft.testkit.KafkaCluster;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The session's order and flow control, with the client side in memory and the upstream side real: a
 * {@link Session} in an {@link EmbeddedChannel} (requests handed in as frames, responses read from its
 * outbound queue, "reads paused" seen as its auto-read flag), its upstream links real connections to an
 * embedded broker, for every kind of virtual cluster ({@link VirtualClusterFixture}: the session is
 * built from the kind's running proxy's runtime and gateway, with settings of the test's own).
 *
 * <p>The embedded channel reports one of the proxy's event loops as its own ({@link OnCore}): the
 * session opens its upstream links on its client's loop, and only the proxy's loops can carry them.
 * Everything the test does to the channel runs on that loop ({@link #onCore}), as the session's own
 * callbacks do. Time: the session reads {@code System.nanoTime()} itself and the broker's long polls
 * are wall time, so the cases wait on real time (never a sleep: a poll for the condition, or a check
 * at a moment well inside a broker's wait).
 */
class SessionOrderTest {

    /** How long a long-poll Fetch of an empty partition is held by the broker. */
    private static final int LONG_POLL_MS = 1500;

    private static VirtualClusterFixture fixture;
    private final List<OnCore> channels = new ArrayList<>();

    @BeforeAll
    static void start() {
        fixture = VirtualClusterFixture.over(KafkaCluster.builder().brokers(1).build().start()).build();
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @AfterEach
    void closeChannels() throws Exception {
        for (OnCore ch : channels) {
            ch.onCore(() -> {
                ch.close();
                ch.finishAndReleaseAll();
                return null;
            });
        }
        channels.clear();
    }

    /**
     * Kinds whose proxy answers some requests itself or over other links than the connection's first:
     * there a later request can finish before an earlier one. A pass-through connection sends every
     * request over its one broker connection, which answers in order, so it has no such case.
     */
    static java.util.stream.Stream<VirtualClusterKind> reorderingKinds() {
        return VirtualClusterKind.all().filter(VirtualClusterKind::answersApiVersions);
    }

    @ParameterizedTest
    @MethodSource("reorderingKinds")
    void anApiVersionsAnsweredByTheProxyWaitsForTheForwardedFetchAhead(VirtualClusterKind kind) throws Exception {
        String topic = topic(kind, "order");
        OnCore ch = session(kind, 100);
        // The first ApiVersions asks the clusters; the next is answered from what they said, at once.
        ch.send(KafkaFrames.request(ApiKeys.API_VERSIONS, (short) 3, 1, apiVersions()));
        assertEquals(List.of(1), ch.awaitResponses(1), "the first ApiVersions answered");

        long t0 = System.nanoTime();
        ch.send(KafkaFrames.request(ApiKeys.FETCH, KafkaFrames.FETCH_VERSION, 2, KafkaFrames.longPoll(topic, 0, 0, LONG_POLL_MS)),
                KafkaFrames.request(ApiKeys.API_VERSIONS, (short) 3, 3, apiVersions()));
        assertEquals(0, ch.onCore(() -> ch.outboundMessages().size()),
                "the ApiVersions answered from the proxy's cache is not written ahead of the Fetch");
        stillNothingAt(ch, t0, LONG_POLL_MS / 3);
        assertEquals(List.of(2, 3), ch.awaitResponses(2), "the Fetch's answer first, then the ApiVersions'");
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(LONG_POLL_MS / 2),
                "the broker held the Fetch (so the ApiVersions, ready at once, waited behind it)");
    }

    @ParameterizedTest
    @MethodSource("reorderingKinds")
    void aMetadataOverAnotherLinkWaitsForTheFetchAhead(VirtualClusterKind kind) throws Exception {
        String topic = topic(kind, "order");
        OnCore ch = session(kind, 100);
        long t0 = System.nanoTime();
        // The Fetch goes to the partition's leader; the proxy plans the Metadata itself and asks each
        // cluster over its own "any broker" link: answered in milliseconds, held behind the Fetch.
        ch.send(KafkaFrames.request(ApiKeys.FETCH, KafkaFrames.FETCH_VERSION, 11, KafkaFrames.longPoll(topic, 0, 0, LONG_POLL_MS)),
                KafkaFrames.request(ApiKeys.METADATA, KafkaFrames.METADATA_VERSION, 12, KafkaFrames.allTopics()));
        Poll.until(Duration.ofSeconds(10), "the Metadata to be asked upstream",
                () -> ch.metrics.forwarded.get(ApiKeys.METADATA.id) > 0, () -> ch.describe());
        stillNothingAt(ch, t0, LONG_POLL_MS / 3);
        assertEquals(List.of(11, 12), ch.awaitResponses(2), "the Fetch's answer first, then the Metadata's");
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(LONG_POLL_MS / 2), "the broker held the Fetch");
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void anAcksZeroProduceBetweenTwoRequestsGetsNoAnswerAndKeepsTheOrder(VirtualClusterKind kind) throws Exception {
        String topic = topic(kind, "order");
        String flood = topic(kind, "acks0");
        OnCore ch = session(kind, 100);
        long before = endOffset(flood);
        ch.send(KafkaFrames.request(ApiKeys.FETCH, KafkaFrames.FETCH_VERSION, 21, KafkaFrames.longPoll(topic, 0, 0, LONG_POLL_MS)),
                KafkaFrames.request(ApiKeys.PRODUCE, KafkaFrames.PRODUCE_VERSION, 22, KafkaFrames.produce(flood, 0, (short) 0, 3, 100)),
                KafkaFrames.request(ApiKeys.METADATA, KafkaFrames.METADATA_VERSION, 23, KafkaFrames.allTopics()));
        assertEquals(List.of(21, 23), ch.awaitResponses(2), "the Fetch's and the Metadata's answers, in order, none for acks=0");
        Poll.until(Duration.ofSeconds(15), "the acks=0 records in the partition", () -> endOffset(flood) == before + 3,
                () -> "end offset " + endOffset(flood) + ", was " + before);
        assertEquals(List.of(), ch.awaitResponses(0), "still no answer to the acks=0 Produce");
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void readsPauseAtTheInflightCapAndResumeWhenAnswersLeave(VirtualClusterKind kind) throws Exception {
        String topic = topic(kind, "order");
        OnCore ch = session(kind, 2);
        long t0 = System.nanoTime();
        // Two requests fill the cap; the third, read in the same batch (as a decoder hands them over),
        // waits in the session, and reads pause until answers leave.
        ch.send(KafkaFrames.request(ApiKeys.FETCH, KafkaFrames.FETCH_VERSION, 31, KafkaFrames.longPoll(topic, 0, 0, LONG_POLL_MS)),
                KafkaFrames.request(ApiKeys.FETCH, KafkaFrames.FETCH_VERSION, 32, KafkaFrames.longPoll(topic, 0, 0, 0)),
                KafkaFrames.request(ApiKeys.METADATA, KafkaFrames.METADATA_VERSION, 33, KafkaFrames.allTopics()));
        assertFalse(ch.onCore(ch::autoRead), "a request beyond the cap of 2: reads pause");
        stillNothingAt(ch, t0, LONG_POLL_MS / 3);
        assertFalse(ch.onCore(ch::autoRead), "still at the cap");
        // (The count includes what the proxy asks upstream for a Metadata it plans: any count is "sent".)
        assertEquals(0, ch.metrics.forwarded.get(ApiKeys.METADATA.id), "the request behind the cap was not sent upstream");
        assertEquals(List.of(31, 32, 33), ch.awaitResponses(3), "every answer, in request order");
        assertTrue(ch.metrics.forwarded.get(ApiKeys.METADATA.id) > 0, "then it went");
        Poll.until(Duration.ofSeconds(5), "reads to resume", () -> ch.now(ch::autoRead));
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void readsPauseWhileTheUpstreamLinkIsNotWritableAndResumeWhenItDrains(VirtualClusterKind kind) throws Exception {
        String topic = topic(kind, "order");
        String flood = topic(kind, "flood");
        OnCore ch = session(kind, 1000);
        long before = endOffset(flood);
        // A broker reads nothing more from a connection while one of its requests is unanswered: with a
        // long poll held, what the proxy writes to that broker piles up in the socket buffers and then in
        // the link's channel, which turns unwritable.
        ch.send(KafkaFrames.request(ApiKeys.FETCH, KafkaFrames.FETCH_VERSION, 41, KafkaFrames.longPoll(topic, 0, 0, 4000)));
        // acks=0 takes no in-flight slot: only a link's writability can pause reads. 16 KiB frames, one
        // per read batch (flushed after each), stay under the link's write-buffer low water mark, so only a
        // socket that takes nothing more (the broker not reading) makes the link unwritable; the pause
        // must then last (500 ms here), not flicker while the kernel grows its buffers.
        int frames = 0;
        int correlationId = 42;
        long pausedSince = 0;
        boolean paused = false;
        while (frames < 4000) {
            if (ch.onCore(ch::autoRead)) {
                paused = false;
                ch.send(KafkaFrames.request(ApiKeys.PRODUCE, KafkaFrames.PRODUCE_VERSION, correlationId++,
                        KafkaFrames.produce(flood, 0, (short) 0, 1, 16 * 1024)));
                frames++;
            } else if (!paused) {
                paused = true;
                pausedSince = System.nanoTime();
            } else if (System.nanoTime() - pausedSince > TimeUnit.MILLISECONDS.toNanos(500)) {
                break;
            } else {
                java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // polling the flag
            }
        }
        int sent = frames;
        assertTrue(paused, "reads paused for 500 ms after " + sent + " frames of 16 KiB towards a broker that reads nothing");
        assertEquals(List.of(), ch.awaitResponses(0), "the Fetch is still held");
        Poll.until(Duration.ofSeconds(30), "reads to resume once the broker reads again", () -> ch.now(ch::autoRead));
        assertEquals(List.of(41), ch.awaitResponses(1), "the Fetch answered");
        Poll.until(Duration.ofSeconds(30), "every acks=0 record in the partition", () -> endOffset(flood) == before + sent,
                () -> "end offset " + endOffset(flood) + ", was " + before + ", " + sent + " sent");
        System.out.printf("[session-order %s] reads paused after %d acks=0 frames of 16 KiB behind a held Fetch, resumed "
                + "when the broker read again; all %d records arrived%n", kind, sent, sent);
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void drainStopsReadingFinishesWhatIsInFlightThenCloses(VirtualClusterKind kind) throws Exception {
        String topic = topic(kind, "order");
        OnCore ch = session(kind, 100);
        long t0 = System.nanoTime();
        ch.send(KafkaFrames.request(ApiKeys.FETCH, KafkaFrames.FETCH_VERSION, 51, KafkaFrames.longPoll(topic, 0, 0, LONG_POLL_MS)));
        ch.onCore(() -> ch.pipeline().fireUserEventTriggered(SessionRegistry.SHUTDOWN));
        assertFalse(ch.onCore(ch::autoRead), "a draining session reads no more");
        assertTrue(ch.onCore(ch::isOpen), "and stays open while its Fetch is in flight");
        Poll.until(Duration.ofSeconds(15), "the drained session to close", () -> !ch.now(ch::isOpen));
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(LONG_POLL_MS / 2), "it closed after the broker's wait");
        assertEquals(List.of(51), ch.awaitResponses(1), "the Fetch in flight was answered before the close");
    }

    // ---------------------------------------------------------------------------------------------

    private static String topic(VirtualClusterKind kind, String base) {
        String name = kind.name(base);
        synchronized (SessionOrderTest.class) {
            if (!fixture.primary().admin().listTopics().names().toCompletionStage().toCompletableFuture().join().contains(name)) {
                fixture.proxy(kind);
                fixture.createTopic(kind, name, 1, 1);
            }
        }
        return name;
    }

    private static long endOffset(String topic) {
        try {
            return fixture.primary().admin().listOffsets(Map.of(new TopicPartition(topic, 0),
                            org.apache.kafka.clients.admin.OffsetSpec.latest()))
                    .partitionResult(new TopicPartition(topic, 0)).get(10, TimeUnit.SECONDS).offset();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static ApiVersionsRequestData apiVersions() {
        return new ApiVersionsRequestData().setClientSoftwareName("weft-session-test").setClientSoftwareVersion("1");
    }

    /** Nothing written to the client until {@code millis} after {@code t0} (a moment well inside the broker's wait). */
    private static void stillNothingAt(OnCore ch, long t0, long millis) throws Exception {
        long at = t0 + TimeUnit.MILLISECONDS.toNanos(millis);
        Poll.until(Duration.ofMillis(millis + 1000), millis + " ms after the requests", () -> System.nanoTime() - at >= 0);
        assertEquals(0, ch.onCore(() -> ch.outboundMessages().size()), "nothing written " + millis + " ms after the requests");
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void anIdleClientIsClosedAfterTheIdleTimeoutOnTheSessionsClockNotBefore(VirtualClusterKind kind) throws Exception {
        dev.weft.iocore.time.ManualNanoClock clock = new dev.weft.iocore.time.ManualNanoClock(1_000_000_000L);
        int idleMillis = 600_000;
        OnCore ch = session(kind, 100, clock, idleMillis);
        // one request answered: the client has been heard from, and has nothing in flight
        ch.send(KafkaFrames.request(ApiKeys.API_VERSIONS, (short) 3, 1, apiVersions()));
        assertEquals(List.of(1), ch.awaitResponses(1));
        io.netty.handler.timeout.IdleStateEvent tick = io.netty.handler.timeout.IdleStateEvent.READER_IDLE_STATE_EVENT;

        clock.advance(TimeUnit.MILLISECONDS.toNanos(idleMillis - 1));
        ch.onCore(() -> ch.pipeline().fireUserEventTriggered(tick));
        assertTrue(ch.onCore(ch::isOpen), "open 1 ms before server.idleTimeoutMs of silence");

        clock.advance(TimeUnit.MILLISECONDS.toNanos(1));
        ch.onCore(() -> ch.pipeline().fireUserEventTriggered(tick));
        assertFalse(ch.onCore(ch::isOpen), "closed at server.idleTimeoutMs of silence with nothing in flight");
    }

    private OnCore session(VirtualClusterKind kind, int maxInflight) throws Exception {
        return session(kind, maxInflight, dev.weft.iocore.time.NanoClock.system(), 600_000);
    }

    /**
     * A session of {@code kind}'s virtual cluster on {@code clock} with a cap of {@code maxInflight} unanswered requests,
     * as the kind's gateway would make for a client of the partition's leader: pass-through and woven a
     * broker connection of the primary cluster's broker (bound to it), collapsed a connection to the
     * proxy node (bound to none).
     */
    private OnCore session(VirtualClusterKind kind, int maxInflight, dev.weft.iocore.time.NanoClock clock, int idleMillis)
            throws Exception {
        WeftProxy proxy = fixture.proxy(kind);
        VirtualClusterRuntime runtime = proxy.virtualCluster("main");
        int realBroker = fixture.primary().brokerIds().getFirst();
        int virtualNodeId = kind.bindsClientConnectionsToBrokers() ? runtime.bijection().toVirtual(0, realBroker) : -1;
        CountingMetrics metrics = new CountingMetrics();
        SessionSettings settings = new SessionSettings(proxy.loops(), BufferPolicy.defaults(), 100 << 20, 10_000, 64,
                30_000, idleMillis, (vc, loop) -> metrics, new SessionRegistry(), maxInflight,
                new PartialFrameBudgets(proxy.loops().coreCount(), proxy.loops()::coreIndexOf,
                        PartialFrameBudgets.DEFAULT_PER_CONNECTION_BYTES, PartialFrameBudgets.DEFAULT_PER_CORE_BYTES, 30_000, clock),
                ConnectionsPerIp.UNLIMITED);
        Session session = new Session(runtime, settings, runtime.gateways().getFirst(), virtualNodeId);
        OnCore ch = new OnCore(proxy.loops().core(0), metrics, session);
        ch.onCore(() -> {
            ch.register();
            return null;
        });
        channels.add(ch);
        return ch;
    }

    /** Counts what the session reports, per API key (written on the session's loop, read by the test). */
    static final class CountingMetrics implements SessionMetrics {
        final AtomicIntegerArray forwarded = new AtomicIntegerArray(128);

        @Override
        public void requestForwarded(short apiKey, int frameBytes) {
            forwarded.incrementAndGet(apiKey);
        }
    }

    /**
     * An embedded client channel whose handlers run on one of the proxy's event loops: it reports that
     * loop as its own, so the session opens its upstream links there; the test touches it only through
     * {@link #onCore}.
     */
    static final class OnCore extends EmbeddedChannel {
        private final EventLoop core;
        final CountingMetrics metrics;
        private final List<Integer> read = new ArrayList<>();
        /** The API key of each request handed in, by correlation id (the loop's only). */
        private final Map<Integer, Short> apiKeys = new java.util.HashMap<>();

        OnCore(EventLoop core, CountingMetrics metrics, ChannelHandler handler) {
            super(EmbeddedChannel.builder().register(false).handlers(handler));
            this.core = core;
            this.metrics = metrics;
        }

        @Override
        public EventLoop eventLoop() {
            return core != null ? core : super.eventLoop();
        }

        <T> T onCore(Callable<T> task) throws Exception {
            return core.submit(task).get(30, TimeUnit.SECONDS);
        }

        /** What the test sees of the session, for failure messages. */
        String describe() {
            return "forwarded by API key " + metrics.forwarded + ", open " + now(this::isOpen) + ", auto-read "
                    + now(this::autoRead) + ", written " + now(() -> {
                        drain();
                        return true;
                    }) + " " + read;
        }

        /** {@link #onCore} for a condition to poll: a failure to run it is an error. */
        boolean now(Callable<Boolean> condition) {
            try {
                return onCore(condition);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        boolean autoRead() {
            return config().isAutoRead();
        }

        /** Hands the session frames as one read batch (one channelReadComplete after them). */
        void send(ByteBuf... frames) throws Exception {
            onCore(() -> {
                for (ByteBuf f : frames) {
                    apiKeys.put(f.getInt(f.readerIndex() + 8), f.getShort(f.readerIndex() + 4));
                }
                return writeInbound((Object[]) frames);
            });
        }

        /**
         * Waits until {@code count} more responses were written (none: checks that none was) and returns
         * the correlation ids of those, in the order written; releases them.
         */
        List<Integer> awaitResponses(int count) throws Exception {
            if (count > 0) {
                Poll.untilNoThrow(Duration.ofSeconds(30), count + " responses", () -> onCore(() -> {
                    drain();
                    return read.size() >= count;
                }));
            } else {
                onCore(() -> {
                    drain();
                    return null;
                });
            }
            List<Integer> out = List.copyOf(read);
            read.clear();
            return out;
        }

        /** Moves written responses to {@link #read} (on the loop), checking the Fetch answers carry no error. */
        private void drain() {
            Object m;
            while ((m = readOutbound()) != null) {
                ByteBuf r = (ByteBuf) m;
                try {
                    if (r.readableBytes() == 0) {
                        continue; // the drain's flush marker
                    }
                    read.add(KafkaFrames.responseCorrelationId(r));
                    checkFetch(r);
                } finally {
                    r.release();
                }
            }
        }

        private void checkFetch(ByteBuf r) {
            int correlationId = KafkaFrames.responseCorrelationId(r);
            Short apiKey = apiKeys.get(correlationId);
            if (apiKey == null) {
                throw new AssertionError("a response with correlation id " + correlationId + " answers no request");
            }
            if (apiKey != ApiKeys.FETCH.id) {
                return;
            }
            ApiMessage body = KafkaFrames.parseResponse(ApiKeys.FETCH, KafkaFrames.FETCH_VERSION, r);
            for (FetchResponseData.FetchableTopicResponse t : ((FetchResponseData) body).responses()) {
                for (FetchResponseData.PartitionData p : t.partitions()) {
                    if (p.errorCode() != Errors.NONE.code()) {
                        throw new AssertionError("Fetch " + correlationId + " answered " + Errors.forCode(p.errorCode())
                                + " for " + t.topic() + "-" + p.partitionIndex());
                    }
                }
            }
        }
    }
}
