package dev.weft.routing.branch;

import dev.weft.routing.topicweave.RouteNaming;

/** One branch: its route index and which primary topics it takes, under which names. */
record BranchRoute(int route, RouteNaming naming) {
}
