package dev.weft.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/** ApiKeyTable is a cache of kafka-clients' {@link ApiKeys}: it must agree with it everywhere, and refuse everything else. */
class ApiKeyTableTest {

    @Test
    void agreesWithApiKeysForEveryKeyAndVersion() {
        int checkedVersions = 0;
        for (ApiKeys key : ApiKeys.values()) {
            assertEquals(key.name, ApiKeyTable.name(key.id));
            assertEquals(key.hasValidVersion(), ApiKeyTable.isKnownKey(key.id), key.name);
            if (!key.hasValidVersion()) {
                assertEquals(-1, ApiKeyTable.oldestVersion(key.id), key.name);
                assertEquals(-1, ApiKeyTable.latestVersion(key.id), key.name);
                for (int v = -1; v <= 20; v++) {
                    assertFalse(ApiKeyTable.isSupported(key.id, v), key.name + " v" + v);
                }
                continue;
            }
            assertEquals(key.oldestVersion(), ApiKeyTable.oldestVersion(key.id), key.name);
            assertEquals(key.latestVersion(true), ApiKeyTable.latestVersion(key.id), key.name);
            for (short v = key.oldestVersion(); v <= key.latestVersion(true); v++) {
                String where = key.name + " v" + v;
                assertTrue(ApiKeyTable.isSupported(key.id, v), where);
                assertEquals(key.requestHeaderVersion(v), ApiKeyTable.requestHeaderVersion(key.id, v), where);
                assertEquals(key.responseHeaderVersion(v), ApiKeyTable.responseHeaderVersion(key.id, v), where);
                checkedVersions++;
            }
        }
        assertTrue(checkedVersions > 250, "only " + checkedVersions + " versions: ApiKeys changed shape?");
    }

    @Test
    void refusesVersionsOutsideEachKeysRange() {
        for (ApiKeys key : ApiKeys.values()) {
            if (!key.hasValidVersion()) {
                continue;
            }
            int[] outside = {Short.MIN_VALUE, -1, key.oldestVersion() - 1, key.latestVersion(true) + 1, Short.MAX_VALUE, 1 << 20};
            for (int v : outside) {
                if (v >= key.oldestVersion() && v <= key.latestVersion(true)) {
                    continue; // oldest - 1 is -1 for keys starting at 0: already covered
                }
                String where = key.name + " v" + v;
                assertFalse(ApiKeyTable.isSupported(key.id, v), where);
                assertEquals(ApiKeyTable.UNSUPPORTED, ApiKeyTable.requestHeaderVersion(key.id, v), where);
                assertEquals(ApiKeyTable.UNSUPPORTED, ApiKeyTable.responseHeaderVersion(key.id, v), where);
            }
        }
    }

    @Test
    void refusesKeysThatDoNotExist() {
        int maxId = Arrays.stream(ApiKeys.values()).mapToInt(k -> k.id).max().orElseThrow();
        assertEquals(maxId + 1, ApiKeyTable.size());
        for (int key : new int[] {-1, Short.MIN_VALUE, maxId + 1, Short.MAX_VALUE, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
            assertFalse(ApiKeyTable.isKnownKey(key), "key " + key);
            assertFalse(ApiKeyTable.isSupported(key, 0), "key " + key);
            assertEquals(ApiKeyTable.UNSUPPORTED, ApiKeyTable.requestHeaderVersion(key, 0));
            assertEquals(ApiKeyTable.UNSUPPORTED, ApiKeyTable.responseHeaderVersion(key, 0));
            assertEquals(-1, ApiKeyTable.oldestVersion(key));
            assertEquals(-1, ApiKeyTable.latestVersion(key));
            assertEquals("UnknownApiKey(" + key + ")", ApiKeyTable.name(key));
        }
    }

    @Test
    void apiVersionsResponsesAlwaysUseHeaderV0() {
        // So a client that sent too new an ApiVersions can still read the broker's error (KIP-511).
        ApiKeys key = ApiKeys.API_VERSIONS;
        for (short v = key.oldestVersion(); v <= key.latestVersion(true); v++) {
            assertEquals(0, ApiKeyTable.responseHeaderVersion(key.id, v), "ApiVersions v" + v);
        }
        assertEquals(2, ApiKeyTable.requestHeaderVersion(key.id, key.latestVersion(true)));
    }
}
