package dev.weft.routing.plan;

import java.util.List;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;

/** DescribeConfigs by resource (see {@link ConfigResourcePlanner}); synonyms and documentation pass through. */
final class DescribeConfigsPlanner extends ConfigResourcePlanner<DescribeConfigsRequestData, DescribeConfigsResource,
        DescribeConfigsResponseData, DescribeConfigsResult> {

    DescribeConfigsPlanner() {
        super(false);
    }

    @Override
    List<DescribeConfigsResource> entries(DescribeConfigsRequestData request, short version) {
        return request.resources();
    }

    @Override
    void setEntries(DescribeConfigsRequestData request, List<DescribeConfigsResource> entries, short version) {
        request.setResources(List.copyOf(entries));
    }

    @Override
    String name(DescribeConfigsResource entry) {
        return entry.resourceName();
    }

    @Override
    byte resourceType(DescribeConfigsResource entry) {
        return entry.resourceType();
    }

    @Override
    void setResourceName(DescribeConfigsResource entry, String name) {
        entry.setResourceName(name);
    }

    @Override
    List<DescribeConfigsResult> results(DescribeConfigsResponseData response) {
        return response.results();
    }

    @Override
    String resultName(DescribeConfigsResult result) {
        return result.resourceName();
    }

    @Override
    byte resultType(DescribeConfigsResult result) {
        return result.resourceType();
    }

    @Override
    void setResultName(DescribeConfigsResult result, String name) {
        result.setResourceName(name);
    }

    @Override
    void setErrorMessage(DescribeConfigsResult result, String message) {
        result.setErrorMessage(message);
    }

    @Override
    DescribeConfigsResponseData merged(List<DescribeConfigsResult> results, List<DescribeConfigsResponseData> answers,
            short version) {
        return new DescribeConfigsResponseData().setResults(results)
                .setThrottleTimeMs(maxThrottle(answers, DescribeConfigsResponseData::throttleTimeMs));
    }
}
