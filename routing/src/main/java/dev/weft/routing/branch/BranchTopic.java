package dev.weft.routing.branch;

/**
 * Where one primary topic's copies go on one branch: the branch's route, the topic's name there and its
 * upstream keys (UTF-8 name; the 16 id bytes, or null while the branch cluster has no such topic).
 */
record BranchTopic(int route, String name, byte[] nameKey, byte[] idKey) {
}
