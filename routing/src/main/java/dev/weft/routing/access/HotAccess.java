package dev.weft.routing.access;

import dev.weft.protocol.skim.PartitionSkim;
import dev.weft.routing.VisibleTopic;
import dev.weft.routing.api.RoutePlan;
import java.nio.charset.StandardCharsets;

/**
 * The authorization of a planned Produce or Fetch. It was planned through the view of the topics the
 * principal may write (read), so every other topic was refused as unknown; here the refused topics the
 * principal may see but not write (read), or may not see at all when hidden topics are answered so, are
 * answered TOPIC_AUTHORIZATION_FAILED instead ({@link RoutePlan#deny}). Allowed topics cost nothing: only
 * refused ones are looked at (and only they may build a name String: an error answer, not the steady state).
 */
public final class HotAccess {

    private HotAccess() {
    }

    public static void denyRefused(PartitionSkim skim, RoutePlan plan, ConnectionAccess access, PrincipalViews views,
            TopicOperation op) {
        int[] targets = plan.targetOf();
        for (int t = 0; t < skim.topicCount(); t++) {
            int first = skim.topicFirstPartition(t);
            int end = first + skim.topicPartitionCount(t);
            if (first == end || !anyRefused(targets, first, end)) {
                continue;
            }
            if (denied(skim, t, access, views, op)) {
                plan.deny(first, end);
            }
        }
    }

    private static boolean anyRefused(int[] targets, int first, int end) {
        for (int i = first; i < end; i++) {
            if (targets[i] == RoutePlan.REFUSED) {
                return true;
            }
        }
        return false;
    }

    private static boolean denied(PartitionSkim skim, int t, ConnectionAccess access, PrincipalViews views, TopicOperation op) {
        int at = skim.topicNameOffset(t);
        if (skim.usesTopicIds()) {
            // an id the principal cannot see is answered UNKNOWN_TOPIC_ID, as Kafka does: ids say nothing of names
            VisibleTopic v = views.describable().byVirtualId(skim.buffer().getLong(at), skim.buffer().getLong(at + 8));
            return v != null && !access.rules().allows(op, v.virtualName());
        }
        String name = skim.buffer().toString(at, skim.topicNameLength(t), StandardCharsets.UTF_8);
        VisibleTopic v = views.describable().resolve(name);
        return v != null ? !access.rules().allows(op, name) : access.deniesHidden(name);
    }
}
