package dev.weft.routing.plan;

import dev.weft.routing.VisibleTopic;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.Assignment;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.Member;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.TopicPartitions;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResultCollection;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData.TopicData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData.TopicDataCollection;
import org.apache.kafka.common.message.DescribeTransactionsResponseData.TransactionState;

/** The {@link HomeIdsPlanner} shapes of DescribeGroups, DeleteGroups, DescribeTransactions, ConsumerGroupDescribe. */
final class HomeIdsShapes {

    private HomeIdsShapes() {
    }

    static ColdPlanner describeGroups() {
        return new HomeIdsPlanner<>(new HomeIdsPlanner.Shape<DescribeGroupsRequestData, DescribeGroupsResponseData,
                DescribeGroupsResponseData.DescribedGroup>() {
            public List<String> ids(DescribeGroupsRequestData r) {
                return r.groups();
            }

            public DescribeGroupsRequestData withIds(DescribeGroupsRequestData r, List<String> ids) {
                return r.duplicate().setGroups(ids);
            }

            public List<DescribeGroupsResponseData.DescribedGroup> entries(DescribeGroupsResponseData a) {
                return a.groups();
            }

            public String idOf(DescribeGroupsResponseData.DescribedGroup e) {
                return e.groupId();
            }

            public void setEntries(DescribeGroupsResponseData a, List<DescribeGroupsResponseData.DescribedGroup> es) {
                a.setGroups(es);
            }

            public int homeRoute(PlanContext ctx, String id) {
                return ctx.groups().homeRoute(id);
            }
        });
    }

    static ColdPlanner deleteGroups() {
        return new HomeIdsPlanner<>(new HomeIdsPlanner.Shape<DeleteGroupsRequestData, DeleteGroupsResponseData,
                DeletableGroupResult>() {
            public List<String> ids(DeleteGroupsRequestData r) {
                return r.groupsNames();
            }

            public DeleteGroupsRequestData withIds(DeleteGroupsRequestData r, List<String> ids) {
                return r.duplicate().setGroupsNames(ids);
            }

            public List<DeletableGroupResult> entries(DeleteGroupsResponseData a) {
                return List.copyOf(a.results());
            }

            public String idOf(DeletableGroupResult e) {
                return e.groupId();
            }

            public void setEntries(DeleteGroupsResponseData a, List<DeletableGroupResult> es) {
                // elements of a keyed collection link to their collection: copies go into the new one
                DeletableGroupResultCollection out = new DeletableGroupResultCollection();
                es.forEach(e -> out.add(e.duplicate()));
                a.setResults(out);
            }

            public int homeRoute(PlanContext ctx, String id) {
                return ctx.groups().homeRoute(id);
            }
        });
    }

    static ColdPlanner describeTransactions() {
        return new HomeIdsPlanner<>(new HomeIdsPlanner.Shape<DescribeTransactionsRequestData,
                DescribeTransactionsResponseData, TransactionState>() {
            public List<String> ids(DescribeTransactionsRequestData r) {
                return r.transactionalIds();
            }

            public DescribeTransactionsRequestData withIds(DescribeTransactionsRequestData r, List<String> ids) {
                return r.duplicate().setTransactionalIds(ids);
            }

            public List<TransactionState> entries(DescribeTransactionsResponseData a) {
                return a.transactionStates();
            }

            public String idOf(TransactionState e) {
                return e.transactionalId();
            }

            public void setEntries(DescribeTransactionsResponseData a, List<TransactionState> es) {
                a.setTransactionStates(es);
            }

            public int homeRoute(PlanContext ctx, String id) {
                return ctx.transactions().homeRoute(id);
            }

            public boolean translates() {
                return true;
            }

            /** The transaction's partitions are named by the home route's real names; hidden ones are left out. */
            public void toVirtual(TransactionState e, int route, PlanContext ctx) {
                TopicDataCollection renamed = new TopicDataCollection();
                for (TopicData t : e.topics()) {
                    String virtualName = ctx.topics().virtualNameOf(route, t.topic());
                    if (virtualName != null) {
                        renamed.add(t.duplicate().setTopic(virtualName));
                    }
                }
                e.setTopics(renamed);
            }
        });
    }

    static ColdPlanner consumerGroupDescribe() {
        return new HomeIdsPlanner<>(new HomeIdsPlanner.Shape<ConsumerGroupDescribeRequestData,
                ConsumerGroupDescribeResponseData, ConsumerGroupDescribeResponseData.DescribedGroup>() {
            public List<String> ids(ConsumerGroupDescribeRequestData r) {
                return r.groupIds();
            }

            public ConsumerGroupDescribeRequestData withIds(ConsumerGroupDescribeRequestData r, List<String> ids) {
                return r.duplicate().setGroupIds(ids);
            }

            public List<ConsumerGroupDescribeResponseData.DescribedGroup> entries(ConsumerGroupDescribeResponseData a) {
                return a.groups();
            }

            public String idOf(ConsumerGroupDescribeResponseData.DescribedGroup e) {
                return e.groupId();
            }

            public void setEntries(ConsumerGroupDescribeResponseData a,
                    List<ConsumerGroupDescribeResponseData.DescribedGroup> es) {
                a.setGroups(es);
            }

            public int homeRoute(PlanContext ctx, String id) {
                return ctx.groups().homeRoute(id);
            }

            public boolean translates() {
                return true;
            }

            /** Members' subscriptions and assignments name the home route's real topics. */
            public void toVirtual(ConsumerGroupDescribeResponseData.DescribedGroup group, int route, PlanContext ctx) {
                for (Member m : group.members()) {
                    List<String> subscribed = new ArrayList<>();
                    for (String name : m.subscribedTopicNames()) {
                        // a name the home route does not show was never resolved (sent as the client wrote it)
                        String virtualName = ctx.topics().virtualNameOf(route, name);
                        subscribed.add(virtualName != null ? virtualName : name);
                    }
                    m.setSubscribedTopicNames(subscribed);
                    toVirtual(m.assignment(), route, ctx);
                    toVirtual(m.targetAssignment(), route, ctx);
                }
            }

            private static void toVirtual(Assignment assignment, int route, PlanContext ctx) {
                List<TopicPartitions> out = new ArrayList<>();
                for (TopicPartitions tp : assignment.topicPartitions()) {
                    VisibleTopic v = ctx.topics().byRealId(route, tp.topicId());
                    if (v != null) {
                        out.add(tp.setTopicId(v.virtualId()).setTopicName(v.virtualName()));
                    }
                }
                assignment.setTopicPartitions(out);
            }
        });
    }
}
