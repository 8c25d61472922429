package dev.weft.routing.branch;

/**
 * Where one primary topic's copies go on one branch: the branch's route, the topic's name there and its
 * upstream keys (UTF-8 name; the 16 id bytes, or null while the branch cluster has no such topic), and
 * whether the branch transforms its copies (then they are written off the event loops by a producer that
 * finds its own leaders, and the copy is keyed by name).
 */
record BranchTopic(int route, String name, byte[] nameKey, byte[] idKey, boolean transformed) {
}
