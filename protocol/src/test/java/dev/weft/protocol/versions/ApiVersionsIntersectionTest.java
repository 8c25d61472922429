package dev.weft.protocol.versions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

class ApiVersionsIntersectionTest {

    private static ApiVersionCollection versions(Object[][] rows) {
        ApiVersionCollection c = new ApiVersionCollection();
        for (Object[] r : rows) {
            c.add(new ApiVersion().setApiKey((Short) r[0]).setMinVersion(((Integer) r[1]).shortValue()).setMaxVersion(((Integer) r[2]).shortValue()));
        }
        return c;
    }

    @Test
    void eachKeyGetsTheVersionsEveryoneSupports() {
        ApiVersionCollection newer = versions(new Object[][] {{ApiKeys.PRODUCE.id, 3, 13}, {ApiKeys.FETCH.id, 4, 18},
            {ApiKeys.METADATA.id, 0, 13}, {ApiKeys.WRITE_TXN_MARKERS.id, 1, 2}, {(short) 999, 0, 1}});
        ApiVersionCollection older = versions(new Object[][] {{ApiKeys.PRODUCE.id, 0, 11}, {ApiKeys.FETCH.id, 0, 17},
            {ApiKeys.WRITE_TXN_MARKERS.id, 0, 1}});
        ApiVersionCollection both = ApiVersionsIntersection.of(List.of(newer, older));
        assertEquals(3, both.find(ApiKeys.PRODUCE.id).minVersion(), "Weft's oldest Produce is 3");
        assertEquals(11, both.find(ApiKeys.PRODUCE.id).maxVersion());
        assertEquals(17, both.find(ApiKeys.FETCH.id).maxVersion());
        assertNull(both.find(ApiKeys.METADATA.id), "a key one cluster lacks is offered by none");
        assertNull(both.find(ApiKeys.WRITE_TXN_MARKERS.id), "broker-to-broker keys are never offered");
        assertNull(both.find((short) 999), "keys Weft does not know are never offered");
        assertEquals(2, both.size());
    }

    @Test
    void disjointRangesDropTheKey() {
        ApiVersionCollection a = versions(new Object[][] {{ApiKeys.PRODUCE.id, 3, 5}});
        ApiVersionCollection b = versions(new Object[][] {{ApiKeys.PRODUCE.id, 7, 13}});
        assertEquals(0, ApiVersionsIntersection.of(List.of(a, b)).size());
        assertThrows(IllegalArgumentException.class, () -> ApiVersionsIntersection.of(List.of()));
    }
}
