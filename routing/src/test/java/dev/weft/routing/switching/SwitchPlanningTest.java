package dev.weft.routing.switching;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.routing.RealTopic;
import dev.weft.routing.RouterRegistry;
import dev.weft.routing.dag.RouteSpec;
import dev.weft.routing.dag.RouteTarget;
import dev.weft.routing.dag.RouterSpec;
import dev.weft.routing.plan.Answer;
import dev.weft.routing.plan.IdempotentProducerIds;
import dev.weft.routing.plan.Part;
import dev.weft.routing.plan.PlanDriver;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** What the cold planners do through a switch: only the active route is asked, ids carry who allocated them. */
class SwitchPlanningTest {

    private static final List<String> ROUTES = List.of("east", "west");
    private static final List<List<RealTopic>> TOPICS = List.of(List.of(RealTopic.of("orders")), List.of(RealTopic.of("orders")));

    private final SwitchRouter router = (SwitchRouter) RouterRegistry.standard().create(new RouterSpec("alias", SwitchFactory.TYPE,
            List.of(new RouteSpec("east", RouteTarget.cluster("east")), new RouteSpec("west", RouteTarget.cluster("west"))),
            Map.of("type", "switch")), new ArrayList<>());

    private PlanDriver driver() {
        return new PlanDriver(router, ROUTES, TOPICS);
    }

    private List<Integer> routesAsked(short apiKey, org.apache.kafka.common.protocol.ApiMessage request, short version,
            java.util.function.Function<Part, Answer> answer) {
        return driver().run(router.coldPlanner(apiKey), request, version, answer).sent().stream().map(Part::route).toList();
    }

    @Test
    void fanOutRequestsAskOnlyTheActiveRoute() {
        MetadataRequestData all = new MetadataRequestData().setTopics(null);
        assertEquals(List.of(0), routesAsked(ApiKeys.METADATA.id, all, (short) 12, p -> Answer.of(new MetadataResponseData())));
        assertEquals(List.of(0), routesAsked(ApiKeys.DESCRIBE_CLUSTER.id, new DescribeClusterRequestData(), (short) 0,
                p -> Answer.of(new DescribeClusterResponseData())));
        router.apply(router.state().fence(), null).join();
        router.apply(router.state().pointedAt(1), null).join();
        assertEquals(List.of(1), routesAsked(ApiKeys.METADATA.id, all, (short) 12, p -> Answer.of(new MetadataResponseData())));
        assertEquals(List.of(1), routesAsked(ApiKeys.DESCRIBE_CLUSTER.id, new DescribeClusterRequestData(), (short) 0,
                p -> Answer.of(new DescribeClusterResponseData())));
    }

    @Test
    void idempotentProducerIdsComeFromTheActiveRouteAndCarryIt() {
        InitProducerIdRequestData init = new InitProducerIdRequestData().setTransactionalId(null);
        PlanDriver.Outcome onEast = driver().run(router.coldPlanner(ApiKeys.INIT_PRODUCER_ID.id), init, (short) 5,
                p -> Answer.of(new InitProducerIdResponseData().setProducerId(4242)));
        assertEquals(0, onEast.sent().getFirst().route());
        assertEquals(4242, ((InitProducerIdResponseData) onEast.response()).producerId(), "route 0's ids are its own");

        router.apply(router.state().fence(), null).join();
        router.apply(router.state().pointedAt(1), null).join();
        PlanDriver.Outcome onWest = driver().run(router.coldPlanner(ApiKeys.INIT_PRODUCER_ID.id), init, (short) 5,
                p -> Answer.of(new InitProducerIdResponseData().setProducerId(4242)));
        assertEquals(1, onWest.sent().getFirst().route());
        long virtual = ((InitProducerIdResponseData) onWest.response()).producerId();
        assertEquals(4242L | (1L << 48), virtual, "west's 4242 is not east's 4242");
        assertEquals(1, IdempotentProducerIds.allocatingRoute(virtual));
        assertEquals(4242, IdempotentProducerIds.allocatedId(virtual));
        assertTrue(IdempotentProducerIds.translates(virtual, 1), "west gets it without the route bits");
        assertTrue(IdempotentProducerIds.translates(virtual, 0));
        assertFalse(IdempotentProducerIds.translates(4242, 0));
        assertTrue(IdempotentProducerIds.translates(4242, 1));
    }

    @Test
    void aTransactionCannotCommitWhileItsHomeIsFenced() {
        EndTxnRequestData commit = new EndTxnRequestData().setTransactionalId("tx").setCommitted(true);
        EndTxnRequestData abort = new EndTxnRequestData().setTransactionalId("tx").setCommitted(false);
        router.apply(router.state().fence(), null).join();
        PlanDriver.Outcome refused = driver().run(router.coldPlanner(ApiKeys.END_TXN.id), commit, (short) 4,
                p -> Answer.of(new EndTxnResponseData()));
        assertEquals(Errors.TRANSACTION_ABORTABLE.code(), ((EndTxnResponseData) refused.response()).errorCode());
        assertEquals(List.of(), refused.sent());
        // on a connection to the coordinator's broker (route 0), the abort is forwarded as it is
        PlanDriver.Outcome aborted = driver().ownRoute(0).run(router.coldPlanner(ApiKeys.END_TXN.id), abort, (short) 4,
                p -> Answer.of(new EndTxnResponseData()));
        assertTrue(aborted.forwarded(), "an abort goes to the coordinator: " + aborted);
    }
}
