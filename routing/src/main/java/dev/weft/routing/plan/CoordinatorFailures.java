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
}
