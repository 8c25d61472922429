package dev.weft.proxy.pid;

/**
 * What a claim is about: virtual producer id {@code virtualPid} on the upstream cluster named
 * {@code cluster}. Clusters are named, not numbered, in the state topic: reordering the routes in the
 * config must never hand one cluster's producer ids to another.
 */
record ClaimKey(long virtualPid, String cluster) {

    @Override
    public String toString() {
        return "virtual producer id " + virtualPid + " on cluster '" + cluster + "'";
    }
}
