package dev.weft.jmh.codec;

import dev.weft.protocol.fetch.FetchRequestSkim;
import dev.weft.routing.Router;
import dev.weft.routing.api.FollowerEndChecks;
import dev.weft.routing.api.HotCatalog;
import dev.weft.routing.api.HotContext;
import dev.weft.routing.api.RoutePlan;
import dev.weft.routing.api.TopicNameCache;
import dev.weft.routing.passthrough.PassThroughRouter;
import dev.weft.routing.rack.RackAwareRouter;
import dev.weft.routing.topology.BrokerEndpoint;
import dev.weft.routing.topology.ClusterTopology;
import dev.weft.routing.topology.PartitionLeadership;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What rack-aware fetch adds to planning a Fetch (issue #11): the pass-through router's plan of a
 * consumer's Fetch on a mirrored broker connection ({@code router = pass-through}: every partition to the
 * connection's broker) against the same router wrapped by {@code RackAwareRouter} for zone b
 * ({@code rack-aware}), where broker 0 (zone a) leads every partition and broker 1 (zone b) holds every
 * one in sync, so every partition is moved to broker 1 (the plan's work: a topic lookup per topic — by id,
 * or by name through the connection's cache — and an ISR and rack check per partition). The skim is made
 * once per trial; only {@code plan} is measured. {@code gc.alloc.rate.norm} must be ~0 for both: nothing
 * per request once warm.
 */
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled", "--sun-misc-unsafe-memory-access=allow",
        "-Djmh.executor=CUSTOM", "-Djmh.executor.class=dev.weft.jmh.EventLoopThreadsExecutor"})
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RackPlanningBenchmark {

    @State(Scope.Thread)
    public static class Plan {
        @Param({"12", "17"})
        public short version;
        @Param({"3", "30", "99"})
        public int partitions;
        @Param({"pass-through", "rack-aware"})
        public String router;

        final FetchRequestSkim skim = new FetchRequestSkim();
        ByteBuf frame;
        Router planned;
        RoutePlan plan;
        HotContext ctx;

        @Setup(Level.Trial)
        public void setUp() {
            FetchRequestData data = FetchFrames.request(version, partitions);
            frame = FetchFrames.requestFrame(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT, version, 1, data);
            skim.wrap(frame);
            PassThroughRouter pass = new PassThroughRouter("c0");
            planned = router.equals("rack-aware") ? RackAwareRouter.over(pass, "b") : pass;
            plan = new RoutePlan(new TopicNameCache());
            ctx = new Connection(leaders(data), racked());
            planned.hotPlanner().plan(skim, ctx, plan.reset(skim));
            int expectedTargetBroker = router.equals("rack-aware") ? 1 : RoutePlan.OWN_BROKER;
            if (plan.targetCount() != 1 || plan.targetBroker(0) != expectedTargetBroker || plan.routed() != partitions) {
                throw new IllegalStateException(router + ": every partition should go to broker " + expectedTargetBroker
                        + ", got " + plan.targetCount() + " target(s), first broker " + plan.targetBroker(0));
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            frame.release();
        }
    }

    @Benchmark
    public RoutePlan plan(Plan s) {
        s.planned.hotPlanner().plan(s.skim, s.ctx, s.plan.reset(s.skim));
        return s.plan;
    }

    /** Every partition of the request led by broker 0, replicas and ISR {0, 1, 2}. */
    private static PartitionLeadership leaders(FetchRequestData data) {
        MetadataResponseData.MetadataResponseTopicCollection topics = new MetadataResponseData.MetadataResponseTopicCollection();
        for (FetchTopic t : data.topics()) {
            List<MetadataResponsePartition> parts = new ArrayList<>();
            for (var p : t.partitions()) {
                parts.add(new MetadataResponsePartition().setPartitionIndex(p.partition()).setLeaderId(0).setLeaderEpoch(5)
                        .setReplicaNodes(List.of(0, 1, 2)).setIsrNodes(List.of(0, 1, 2)));
            }
            String name = t.topic() == null || t.topic().isEmpty() ? "topic-" + t.topicId() : t.topic();
            topics.add(new MetadataResponseTopic().setName(name).setTopicId(t.topicId()).setPartitions(parts));
        }
        return PartitionLeadership.empty().merge(new MetadataResponseData().setTopics(topics));
    }

    private static ClusterTopology racked() {
        return ClusterTopology.empty().withBrokers("c", List.of(new BrokerEndpoint(0, "h", 9092, "a"),
                new BrokerEndpoint(1, "h", 9093, "b"), new BrokerEndpoint(2, "h", 9094, "c")));
    }

    /** A mirrored connection bound to broker 0 of route 0. */
    private record Connection(PartitionLeadership leadership, ClusterTopology topology) implements HotContext {
        private static final FollowerEndChecks NO_CHECKS = new FollowerEndChecks();

        @Override
        public int ownRoute() {
            return 0;
        }

        @Override
        public HotCatalog catalog() {
            return null;
        }

        @Override
        public boolean boundToBroker() {
            return true;
        }

        @Override
        public PartitionLeadership leaders(int route) {
            return leadership;
        }

        @Override
        public int ownBroker() {
            return 0;
        }

        @Override
        public ClusterTopology brokers(int route) {
            return topology;
        }

        @Override
        public FollowerEndChecks endChecks() {
            return NO_CHECKS;
        }
    }
}
