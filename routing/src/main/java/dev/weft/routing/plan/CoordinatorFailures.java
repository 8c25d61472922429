package dev.weft.routing.plan;

import org.apache.kafka.common.protocol.Errors;

/**
 * What a client is told when a part sent to a group or transaction coordinator failed. kafka-clients
 * retries COORDINATOR_NOT_AVAILABLE (and NOT_COORDINATOR) after looking the coordinator up again, while
 * a transport error such as NETWORK_EXCEPTION in a per-partition field of OffsetCommit or OffsetFetch
 * is an "unexpected error" that fails the call for good.
 */
final class CoordinatorFailures {

    private CoordinatorFailures() {
    }

    static Errors retriable(Answer failed) {
        return failed.failure() == Errors.NOT_COORDINATOR ? Errors.NOT_COORDINATOR : Errors.COORDINATOR_NOT_AVAILABLE;
    }

    /**
     * For the partitions of a route other than the group's home whose part failed (its cluster is down):
     * the client's coordinator — the home's — is fine; only the offsets kept on that route cannot be
     * reached. kafka-clients retries a commit answered COORDINATOR_LOAD_IN_PROGRESS as it is, whereas
     * COORDINATOR_NOT_AVAILABLE or NOT_COORDINATOR would make it drop its healthy coordinator
     * connection and look the coordinator up again on every commit for as long as that cluster is down.
     */
    static Errors awayFromHome() {
        return Errors.COORDINATOR_LOAD_IN_PROGRESS;
    }
}
