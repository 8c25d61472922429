package dev.weft.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.reload.ReloadOutcome;
import dev.weft.proxy.testing.SteadyTraffic;
import dev.weft.proxy.testing.VirtualClusterFixture;
import dev.weft.proxy.testing.VirtualClusterKind;
import dev.weft.testkit.KafkaCluster;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A reload that changes virtual cluster "main" (its section gains {@code rack: ""}, which means what
 * leaving it out means) gives it a new runtime, for every kind of virtual cluster: a kafka-clients
 * producer and group running across it keep their connections (their own connection-creation and
 * -close totals do not move: each connection moved to the new runtime between two requests) and lose
 * nothing. A switched virtual cluster is refused instead (a switch's cutover state is its controller's)
 * and keeps serving as it was. One cluster for every kind; each kind's proxy is the fixture's own.
 */
class ReloadEveryKindTest {

    private static KafkaCluster kafka;
    private static VirtualClusterFixture fixture;

    @BeforeAll
    static void start() {
        kafka = KafkaCluster.builder().brokers(1).build();
        kafka.start();
        fixture = VirtualClusterFixture.over(kafka).build();
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.weft.proxy.testing.VirtualClusterKind#all")
    void aChangedVirtualClusterKeepsItsClientsConnected(VirtualClusterKind kind) throws Exception {
        String topic = "reload-" + kind.slug();
        fixture.createTopic(kind, topic, 2, 1);
        WeftProxy proxy = fixture.proxy(kind);
        String config = fixture.configText(kind);
        try (SteadyTraffic traffic = SteadyTraffic.start(fixture.bootstrap(kind), topic, "reload-" + kind.slug(), Map.of(), kafka)) {
            traffic.awaitAcked(150);
            SteadyTraffic.Connections before = traffic.connections();

            ReloadOutcome outcome = proxy.reload(ConfigLoader.parse(config.replace("\n  main:\n", "\n  main:\n    rack: \"\"\n"),
                    "reloaded " + kind.slug() + " config"));
            if (kind == VirtualClusterKind.SWITCHED) {
                assertFalse(outcome.applied(), outcome.describe());
                assertTrue(outcome.lines().getFirst().startsWith("virtualClusters.main: it uses switch router(s) "), outcome.describe());
            } else {
                assertTrue(outcome.applied(), outcome.describe());
                assertEquals("changed: main", outcome.lines().getFirst(), outcome.describe());
            }

            traffic.awaitAcked(traffic.acked() + 150);
            traffic.finish();
            assertEquals(before, traffic.connections(), kind + ": no client connection was closed or opened by the reload");
            assertEquals(0, traffic.failed());
            assertEquals(traffic.acked(), traffic.landed(), kind + ": every acknowledged record is on the cluster");
        }
    }
}
