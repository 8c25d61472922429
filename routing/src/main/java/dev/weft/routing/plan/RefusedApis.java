package dev.weft.routing.plan;

import java.util.Map;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * APIs a virtual cluster over several clusters refuses outright: they manage one physical cluster
 * (security, quotas, disks, features, the quorum), so no single route can answer them for the virtual
 * cluster, and answering from an arbitrary one would be wrong. Each gets an error the Admin client
 * surfaces with the message (it completes its future with {@code ApiError.exception()}, which carries
 * it) and a log line.
 */
final class RefusedApis {

    private static final String SASL = "SASL is not passed through to a multi-cluster virtual cluster: Weft "
            + "authenticates upstream with each cluster's configured credentials";

    private RefusedApis() {
    }

    static void register(Map<ApiKeys, ColdPlanner> into) {
        // Not authorized for this virtual cluster: the honest answer to "manage the physical cluster's security".
        String acls = "ACLs are per physical cluster; manage them on each cluster behind the virtual cluster";
        refuse(into, ApiKeys.CREATE_ACLS, Errors.CLUSTER_AUTHORIZATION_FAILED, acls);
        refuse(into, ApiKeys.DELETE_ACLS, Errors.CLUSTER_AUTHORIZATION_FAILED, acls);
        refuse(into, ApiKeys.DESCRIBE_ACLS, Errors.CLUSTER_AUTHORIZATION_FAILED, acls);
        String quotas = "client quotas are per physical cluster; manage them on each cluster behind the virtual cluster";
        refuse(into, ApiKeys.DESCRIBE_CLIENT_QUOTAS, Errors.CLUSTER_AUTHORIZATION_FAILED, quotas);
        refuse(into, ApiKeys.ALTER_CLIENT_QUOTAS, Errors.CLUSTER_AUTHORIZATION_FAILED, quotas);
        String scram = "SCRAM credentials are per physical cluster and clients do not authenticate to them through "
                + "the proxy; manage them on each cluster";
        refuse(into, ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, Errors.CLUSTER_AUTHORIZATION_FAILED, scram);
        refuse(into, ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, Errors.CLUSTER_AUTHORIZATION_FAILED, scram);
        // Token responses carry no message; "token auth is disabled" is what the client's default text says.
        String tokens = "delegation tokens are issued by one physical cluster and are not valid for a multi-cluster "
                + "virtual cluster";
        refuse(into, ApiKeys.CREATE_DELEGATION_TOKEN, Errors.DELEGATION_TOKEN_AUTH_DISABLED, tokens);
        refuse(into, ApiKeys.RENEW_DELEGATION_TOKEN, Errors.DELEGATION_TOKEN_AUTH_DISABLED, tokens);
        refuse(into, ApiKeys.EXPIRE_DELEGATION_TOKEN, Errors.DELEGATION_TOKEN_AUTH_DISABLED, tokens);
        refuse(into, ApiKeys.DESCRIBE_DELEGATION_TOKEN, Errors.DELEGATION_TOKEN_AUTH_DISABLED, tokens);
        refuse(into, ApiKeys.ALTER_REPLICA_LOG_DIRS, Errors.CLUSTER_AUTHORIZATION_FAILED,
                "log directories are per physical broker; move replicas on the cluster itself");
        refuse(into, ApiKeys.UPDATE_FEATURES, Errors.CLUSTER_AUTHORIZATION_FAILED,
                "feature levels are per physical cluster; update them on each cluster");
        refuse(into, ApiKeys.DESCRIBE_QUORUM, Errors.CLUSTER_AUTHORIZATION_FAILED,
                "the KRaft quorum is per physical cluster and its controllers are not exposed through a proxy");
        refuse(into, ApiKeys.UNREGISTER_BROKER, Errors.CLUSTER_AUTHORIZATION_FAILED,
                "brokers are registered with their own cluster; unregister them there");
        refuse(into, ApiKeys.SASL_AUTHENTICATE, Errors.SASL_AUTHENTICATION_FAILED, SASL);
        into.put(ApiKeys.SASL_HANDSHAKE, (request, version, ctx) -> {
            ctx.logRefusal(SASL);
            return Step.respond(new SaslHandshakeResponseData()
                    .setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code()));
        });
    }

    private static void refuse(Map<ApiKeys, ColdPlanner> into, ApiKeys api, Errors error, String message) {
        into.put(api, (request, version, ctx) -> Refusals.refuse(request, version, ctx, error, message));
    }
}
