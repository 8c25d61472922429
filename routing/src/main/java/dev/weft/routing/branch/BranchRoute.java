package dev.weft.routing.branch;

import dev.weft.routing.branch.transform.TransformSpec;
import dev.weft.routing.topicweave.RouteNaming;

/**
 * One branch: its route index, which primary topics it takes under which names, and its transforms
 * (null: exact copies).
 */
record BranchRoute(int route, RouteNaming naming, TransformSpec transforms) {
}
