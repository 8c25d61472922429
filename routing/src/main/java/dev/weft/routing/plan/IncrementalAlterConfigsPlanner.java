package dev.weft.routing.plan;

import java.util.List;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse;

/** IncrementalAlterConfigs by resource (see {@link ConfigResourcePlanner}); validateOnly passes through. */
final class IncrementalAlterConfigsPlanner extends ConfigResourcePlanner<IncrementalAlterConfigsRequestData, AlterConfigsResource,
        IncrementalAlterConfigsResponseData, AlterConfigsResourceResponse> {

    IncrementalAlterConfigsPlanner() {
        super(true);
    }

    @Override
    List<AlterConfigsResource> entries(IncrementalAlterConfigsRequestData request, short version) {
        return List.copyOf(request.resources());
    }

    @Override
    void setEntries(IncrementalAlterConfigsRequestData request, List<AlterConfigsResource> entries, short version) {
        IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection resources = new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
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
    List<AlterConfigsResourceResponse> results(IncrementalAlterConfigsResponseData response) {
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
    IncrementalAlterConfigsResponseData merged(List<AlterConfigsResourceResponse> results, List<IncrementalAlterConfigsResponseData> answers,
            short version) {
        return new IncrementalAlterConfigsResponseData().setResponses(results)
                .setThrottleTimeMs(maxThrottle(answers, IncrementalAlterConfigsResponseData::throttleTimeMs));
    }
}
