package dev.weft.routing.branch.transform;

/** What a redact step with value-fields does with a value that is not a JSON object or array. */
enum NonJsonPolicy {
    /** Send it on unchanged: nothing in it could be found by path. */
    PASS,
    /** Leave it out of the branch, for branches that must never see an unredacted value. */
    DROP;

    static NonJsonPolicy fromConfig(Object word) {
        return switch (String.valueOf(word)) {
            case "pass" -> PASS;
            case "drop" -> DROP;
            default -> null;
        };
    }
}
