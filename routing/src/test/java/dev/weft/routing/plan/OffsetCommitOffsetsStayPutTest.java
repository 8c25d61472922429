package dev.weft.routing.plan;

import static dev.weft.routing.plan.GroupsFixture.EU;
import static dev.weft.routing.plan.GroupsFixture.EU_AUDIT;
import static dev.weft.routing.plan.GroupsFixture.EU_ORDERS;
import static dev.weft.routing.plan.GroupsFixture.US;
import static dev.weft.routing.plan.GroupsFixture.US_ORDERS;
import static dev.weft.routing.plan.GroupsFixture.driver;
import static dev.weft.routing.plan.GroupsFixture.writable;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A commit naming the same partition index on two routes whose real topics share a name ({@code us.orders}
 * and {@code orders-eu} are both {@code orders}): every committed offset reaches exactly its own route,
 * real topic and partition, by name (v9) and by id (v10); planning never changes the client's request (a
 * coordinator retry resends a part as built), and each partition's answer comes back to the client's entry
 * it belongs to. Written for a CI failure where east held a committed offset other than the log end
 * (CurrentLibrdkafkaConformanceTest): the planner keeps offsets where they belong.
 */
class OffsetCommitOffsetsStayPutTest {

    private static final OffsetCommitPlanner PLANNER = new OffsetCommitPlanner();

    private static OffsetCommitRequestTopic entry(boolean byId, String name, Uuid id, long... offsetsByPartition) {
        List<OffsetCommitRequestPartition> ps = new ArrayList<>();
        for (int p = 0; p < offsetsByPartition.length; p++) {
            ps.add(new OffsetCommitRequestPartition().setPartitionIndex(p).setCommittedOffset(offsetsByPartition[p])
                    .setCommittedLeaderEpoch(p).setCommittedMetadata("m" + p));
        }
        OffsetCommitRequestTopic t = new OffsetCommitRequestTopic().setPartitions(ps);
        return byId ? t.setTopicId(id) : t.setName(name);
    }

    /** (real name or id)-partition → offset, of a part's body. */
    private static Map<String, Long> offsets(OffsetCommitRequestData body, boolean byId) {
        Map<String, Long> out = new TreeMap<>();
        for (OffsetCommitRequestTopic t : body.topics()) {
            for (OffsetCommitRequestPartition p : t.partitions()) {
                out.put((byId ? t.topicId().toString() : t.name()) + "-" + p.partitionIndex(), p.committedOffset());
            }
        }
        return out;
    }

    /** Answers each commit part with NONE, except {@code failedOnEu} on eu's real orders partition 0. */
    private static Function<Part, Answer> brokers(Errors failedOnEu) {
        return part -> {
            OffsetCommitRequestData body = (OffsetCommitRequestData) part.body();
            List<OffsetCommitResponseTopic> topics = new ArrayList<>();
            for (OffsetCommitRequestTopic t : body.topics()) {
                boolean euOrders = part.route() == EU && ("orders".equals(t.name()) || EU_ORDERS.equals(t.topicId()));
                topics.add(new OffsetCommitResponseTopic().setName(t.name()).setTopicId(t.topicId())
                        .setPartitions(t.partitions().stream().map(p -> new OffsetCommitResponsePartition()
                                .setPartitionIndex(p.partitionIndex())
                                .setErrorCode(euOrders && p.partitionIndex() == 0 ? failedOnEu.code() : 0)).toList()));
            }
            return Answer.of(new OffsetCommitResponseData().setTopics(topics));
        };
    }

    @ParameterizedTest(name = "v{0}")
    @ValueSource(shorts = {9, 10})
    void everyOffsetGoesToItsOwnRouteTopicAndPartitionAndAnswersComeBackToTheirEntry(short version) {
        boolean byId = version >= 10;
        PlanDriver d = driver(US);
        Uuid usOrders = d.topics().resolve("us.orders").virtualId();
        Uuid euOrders = d.topics().resolve("orders-eu").virtualId();
        Uuid audit = d.topics().resolve("audit").virtualId();
        OffsetCommitRequestData req = new OffsetCommitRequestData().setGroupId("g").setGenerationIdOrMemberEpoch(5)
                .setMemberId("m1").setGroupInstanceId("i1").setTopics(List.of(
                        entry(byId, "orders-eu", euOrders, 378, 300),
                        entry(byId, "us.orders", usOrders, 190, 427, 395),
                        entry(byId, "audit", audit, 7)));
        OffsetCommitRequestData asSent = req.duplicate();

        PlanDriver.Outcome out = d.run(PLANNER, req, version, brokers(Errors.OFFSET_METADATA_TOO_LARGE));

        assertEquals(asSent, req, "planning changed the client's request");
        assertEquals(List.of(US, EU), out.sent().stream().map(Part::route).toList());
        OffsetCommitRequestData home = writable((OffsetCommitRequestData) out.sent().get(0).body(), version);
        OffsetCommitRequestData away = writable((OffsetCommitRequestData) out.sent().get(1).body(), version);
        String usKey = byId ? US_ORDERS.toString() : "orders";
        String euKey = byId ? EU_ORDERS.toString() : "orders";
        String auditKey = byId ? EU_AUDIT.toString() : "audit";
        assertEquals(Map.of(usKey + "-0", 190L, usKey + "-1", 427L, usKey + "-2", 395L), offsets(home, byId));
        assertEquals(Map.of(euKey + "-0", 378L, euKey + "-1", 300L, auditKey + "-0", 7L), offsets(away, byId));
        assertEquals(5, home.generationIdOrMemberEpoch());
        assertEquals(-1, away.generationIdOrMemberEpoch());
        for (OffsetCommitRequestData body : List.of(home, away)) {
            body.topics().forEach(t -> t.partitions().forEach(p -> {
                assertEquals(p.partitionIndex(), p.committedLeaderEpoch(), "leader epoch kept with its partition");
                assertEquals("m" + p.partitionIndex(), p.committedMetadata(), "metadata kept with its partition");
            }));
        }

        // a second plan of the same request (what a client's retry makes) sends the same parts again
        PlanDriver.Outcome again = d.run(PLANNER, req, version, brokers(Errors.NONE));
        assertEquals(out.sent().get(0).body(), again.sent().get(0).body());
        assertEquals(out.sent().get(1).body(), again.sent().get(1).body());
        assertEquals(asSent, req);

        OffsetCommitResponseData resp = writable((OffsetCommitResponseData) out.response(), version);
        List<String> got = new ArrayList<>();
        for (OffsetCommitResponseTopic t : resp.topics()) {
            for (OffsetCommitResponsePartition p : t.partitions()) {
                got.add((byId ? t.topicId().toString() : t.name()) + "-" + p.partitionIndex() + ":"
                        + Errors.forCode(p.errorCode()));
            }
        }
        String eu = byId ? euOrders.toString() : "orders-eu";
        String us = byId ? usOrders.toString() : "us.orders";
        String au = byId ? audit.toString() : "audit";
        assertEquals(List.of(eu + "-0:OFFSET_METADATA_TOO_LARGE", eu + "-1:NONE", us + "-0:NONE", us + "-1:NONE",
                us + "-2:NONE", au + "-0:NONE"), got);
    }
}
