package dev.weft.protocol.versions;

import dev.weft.protocol.ApiKeyTable;
import java.util.List;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;

/**
 * The API versions a virtual cluster can offer (DESIGN §5): for every key, the versions Weft
 * implements and every upstream cluster behind it supports. A key missing from any upstream, a key
 * Weft does not know, and a broker-to-broker key are left out, so a client never sends a request that
 * one of the clusters or Weft itself cannot take.
 */
public final class ApiVersionsIntersection {

    private ApiVersionsIntersection() {
    }

    /** The intersection of Weft's table and each of {@code upstreams} (at least one). */
    public static ApiVersionCollection of(List<ApiVersionCollection> upstreams) {
        if (upstreams.isEmpty()) {
            throw new IllegalArgumentException("no upstream ApiVersions to intersect");
        }
        ApiVersionCollection out = new ApiVersionCollection();
        for (ApiVersion first : upstreams.get(0)) {
            short key = first.apiKey();
            if (!ApiKeyTable.isKnownKey(key) || !ApiKeyTable.isClientApi(key)) {
                continue;
            }
            int min = Math.max(first.minVersion(), ApiKeyTable.oldestVersion(key));
            int max = Math.min(first.maxVersion(), ApiKeyTable.latestVersion(key));
            for (int i = 1; i < upstreams.size() && min <= max; i++) {
                ApiVersion other = upstreams.get(i).find(key);
                if (other == null) {
                    max = -1; // one cluster lacks the key: nobody gets it
                } else {
                    min = Math.max(min, other.minVersion());
                    max = Math.min(max, other.maxVersion());
                }
            }
            if (min <= max) {
                out.add(new ApiVersion().setApiKey(key).setMinVersion((short) min).setMaxVersion((short) max));
            }
        }
        return out;
    }
}
