package dev.weft.testkit;

import dev.weft.testkit.KafkaClusterConfig.Lifecycle;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Injection, independence and lifecycles of clusters from {@link KafkaClusterExtension}. */
@WithKafka
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaClusterExtensionTest {

    @KafkaClusterConfig(name = "named")
    KafkaCluster namedField;

    private static KafkaCluster firstPerClass;
    private static KafkaCluster perMethod;

    @Test
    @Order(1)
    void twoParametersGetTwoIndependentClusters(
        @KafkaClusterConfig KafkaCluster first,
        @KafkaClusterConfig(dedicatedControllers = 1, brokerProperties = "auto.create.topics.enable=false")
        KafkaCluster second) throws Exception {
        assertNotSame(first, second);
        assertNotEquals(first.clusterId(), second.clusterId());
        assertEquals(first.clusterId(), first.admin().describeCluster().clusterId().get(30, TimeUnit.SECONDS));
        assertEquals(second.clusterId(), second.admin().describeCluster().clusterId().get(30, TimeUnit.SECONDS));
        assertTrue(java.util.Collections.disjoint(first.usedPorts(), second.usedPorts()));

        assertEquals(List.of(0), first.controllerIds());
        assertEquals(List.of(KafkaCluster.FIRST_DEDICATED_CONTROLLER_ID), second.controllerIds());
        assertEquals(List.of(0), second.brokerIds());
        assertEquals(2, second.nodeCount());

        first.createTopic("only-in-first", 1, 1);
        Records.produce(first.producerConfig(), "only-in-first", List.of("a"));
        assertTrue(first.admin().listTopics().names().get(30, TimeUnit.SECONDS).contains("only-in-first"));
        assertEquals(Set.of(), second.admin().listTopics().names().get(30, TimeUnit.SECONDS));
        firstPerClass = first;
    }

    @Test
    @Order(2)
    void perClassClusterIsSharedByTheTestsOfTheClass(KafkaCluster unannotated) {
        assertSame(firstPerClass, unannotated,
            "same position, same (default) configuration, same class: same cluster");
        assertFalse(unannotated.isClosed());
    }

    @Test
    @Order(3)
    void perMethodClusterIsFresh(@KafkaClusterConfig(lifecycle = Lifecycle.PER_METHOD) KafkaCluster fresh) {
        assertNotSame(firstPerClass, fresh);
        assertNotEquals(firstPerClass.clusterId(), fresh.clusterId());
        perMethod = fresh;
    }

    @Test
    @Order(4)
    void perMethodClusterIsClosedAfterItsTest() {
        assertTrue(perMethod.isClosed());
        assertFalse(firstPerClass.isClosed());
    }

    @Test
    @Order(5)
    void namedClusterIsSharedByFieldAndParameter(@KafkaClusterConfig(name = "named") KafkaCluster parameter) {
        assertSame(namedField, parameter);
        assertNotSame(firstPerClass, parameter);
    }
}
