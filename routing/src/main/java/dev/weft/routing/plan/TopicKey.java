package dev.weft.routing.plan;

import java.util.function.BiConsumer;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;

/**
 * How to read and rewrite the topic name and topic id of one kafka-clients message class (a request's
 * or a response's topic entry), so {@link TopicsByRoute} can rename entries of any API the same way.
 *
 * @param id null for entries without a topic id field
 * @param setId null for entries without a topic id field
 */
record TopicKey<X>(Function<X, String> name, BiConsumer<X, String> setName, Function<X, Uuid> id,
        BiConsumer<X, Uuid> setId) {

    /** An entry known by name only. */
    static <X> TopicKey<X> named(Function<X, String> name, BiConsumer<X, String> setName) {
        return new TopicKey<>(name, setName, null, null);
    }

    /** The entry's key in the form the API version uses: its id when {@code byId}, else its name. */
    Object keyOf(X entry, boolean byId) {
        return byId ? id.apply(entry) : name.apply(entry);
    }

    /** Copies the client's key (name or id) onto another entry. */
    <Y> void copyKey(X from, TopicKey<Y> toKey, Y to, boolean byId) {
        if (byId) {
            toKey.setId.accept(to, id.apply(from));
        } else {
            toKey.setName.accept(to, name.apply(from));
        }
    }
}
