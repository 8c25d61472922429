package dev.weft.routing.branch.transform;

/** What a redact step does to a value it hides. */
enum RedactAction {
    /** Replace with the lowercase hex HMAC-SHA256 of the original under the salt: equal inputs stay equal, so joins work. */
    HASH,
    /** Replace with {@code ****}. */
    MASK,
    /** Take it out: the field leaves its object, an array element becomes null, the key becomes null, the header goes. */
    REMOVE;

    static final String CHOICES = "hash | mask | remove";

    /** The action a config word names, or null when it names none. */
    static RedactAction fromConfig(Object word) {
        return switch (String.valueOf(word)) {
            case "hash" -> HASH;
            case "mask" -> MASK;
            case "remove" -> REMOVE;
            default -> null;
        };
    }
}
