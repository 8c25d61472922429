package dev.weft.routing.plan;

import java.util.List;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;

/**
 * DescribeConfigs by resource (see {@link ConfigResourcePlanner}); synonyms and documentation pass through.
 * A partition-woven topic is asked of every segment's cluster (its physical topic there) and answered as
 * one resource: a config whose value is the same on every physical topic shows it; one whose values
 * differ shows no value (null, as for a value that cannot be shown) and says so in its documentation,
 * with the values; any physical topic's error is the resource's.
 */
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
    WovenPieces wovenPieces(DescribeConfigsResource entry, dev.weft.routing.VisibleTopic topic) {
        return entry.resourceType() == org.apache.kafka.common.config.ConfigResource.Type.TOPIC.id()
                ? WovenPieces.perRealTopic(topic) : null;
    }

    @Override
    void putTogether(DescribeConfigsResult earlier, DescribeConfigsResult later) {
        if (earlier.errorCode() == 0 && later.errorCode() != 0) {
            earlier.setErrorCode(later.errorCode()).setErrorMessage(later.errorMessage());
        }
        java.util.Map<String, DescribeConfigsResponseData.DescribeConfigsResourceResult> others = new java.util.HashMap<>();
        later.configs().forEach(c -> others.put(c.name(), c));
        for (DescribeConfigsResponseData.DescribeConfigsResourceResult c : earlier.configs()) {
            var other = others.get(c.name());
            if (other != null && !java.util.Objects.equals(c.value(), other.value())) {
                String seen = c.value() == null && c.documentation() != null && c.documentation().startsWith(DIFFERS)
                        ? c.documentation() : DIFFERS + c.value();
                c.setValue(null).setDocumentation(seen + ", " + other.value());
            }
        }
    }

    private static final String DIFFERS = "differs between the physical topics of this partition-woven topic: ";

    @Override
    DescribeConfigsResponseData merged(List<DescribeConfigsResult> results, List<DescribeConfigsResponseData> answers,
            short version) {
        return new DescribeConfigsResponseData().setResults(results)
                .setThrottleTimeMs(maxThrottle(answers, DescribeConfigsResponseData::throttleTimeMs));
    }
}
