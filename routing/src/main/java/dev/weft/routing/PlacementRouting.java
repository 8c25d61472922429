package dev.weft.routing;

/** Where CreateTopics puts a new topic (cold path: may allocate). */
public interface PlacementRouting {

    /** The route and real name for a topic a client asks to create under {@code virtualName}, or why not. */
    Placement place(String virtualName);
}
