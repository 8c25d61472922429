package dev.weft.routing.plan;

import org.apache.kafka.common.protocol.Errors;

/**
 * Thrown while rewriting one request entry to its route's terms when that entry cannot be sent (e.g. a
 * replica assignment naming a broker of another route): the entry alone is answered with the error.
 */
final class EntryRefusal extends RuntimeException {

    final Errors error;

    EntryRefusal(Errors error, String message) {
        super(message, null, false, false);
        this.error = error;
    }
}
