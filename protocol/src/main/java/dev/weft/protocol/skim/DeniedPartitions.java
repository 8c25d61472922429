package dev.weft.protocol.skim;

/**
 * The {@code routeOf} value of a partition the proxy answers TOPIC_AUTHORIZATION_FAILED (the client's
 * principal may not do this to its topic), next to the other negative values (-1: refused with the
 * request's refusal error; -3: answered empty). The response mergers write it; the splitters send no
 * negative partition.
 */
public final class DeniedPartitions {

    /** A partition whose topic the client may not act on this way. */
    public static final int DENIED = -4;
    /** TOPIC_AUTHORIZATION_FAILED. */
    public static final short ERROR_CODE = 29;

    private DeniedPartitions() {
    }

    /** The error code of partition {@code i} that no upstream answered: the denial's, else {@code otherwise}. */
    public static short errorCode(int[] routeOf, int i, short otherwise) {
        return routeOf != null && routeOf[i] == DENIED ? ERROR_CODE : otherwise;
    }
}
