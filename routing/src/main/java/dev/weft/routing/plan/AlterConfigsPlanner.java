package dev.weft.routing.plan;

import java.util.List;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.AlterConfigsResponseData.AlterConfigsResourceResponse;

/** AlterConfigs by resource (see {@link ConfigResourcePlanner}); validateOnly passes through. */
final class AlterConfigsPlanner extends ConfigResourcePlanner<AlterConfigsRequestData, AlterConfigsResource,
        AlterConfigsResponseData, AlterConfigsResourceResponse> {

    AlterConfigsPlanner() {
        super(true);
    }

    @Override
    List<AlterConfigsResource> entries(AlterConfigsRequestData request, short version) {
        return List.copyOf(request.resources());
    }

    @Override
    void setEntries(AlterConfigsRequestData request, List<AlterConfigsResource> entries, short version) {
        AlterConfigsRequestData.AlterConfigsResourceCollection resources = new AlterConfigsRequestData.AlterConfigsResourceCollection();
        resources.addAll(entries);
        request.setResources(resources);
    }

    @Override
    String name(AlterConfigsResource entry) {
        return entry.resourceName();
    }

    @Override
    byte resourceType(AlterConfigsResource entry) {
        return entry.resourceType();
    }

    @Override
    void setResourceName(AlterConfigsResource entry, String name) {
        entry.setResourceName(name);
    }

    @Override
    List<AlterConfigsResourceResponse> results(AlterConfigsResponseData response) {
        return response.responses();
    }

    @Override
    String resultName(AlterConfigsResourceResponse result) {
        return result.resourceName();
    }

    @Override
    byte resultType(AlterConfigsResourceResponse result) {
        return result.resourceType();
    }

    @Override
    void setResultName(AlterConfigsResourceResponse result, String name) {
        result.setResourceName(name);
    }

    @Override
    AlterConfigsResponseData merged(List<AlterConfigsResourceResponse> results, List<AlterConfigsResponseData> answers,
            short version) {
        return new AlterConfigsResponseData().setResponses(results)
                .setThrottleTimeMs(maxThrottle(answers, AlterConfigsResponseData::throttleTimeMs));
    }
}
