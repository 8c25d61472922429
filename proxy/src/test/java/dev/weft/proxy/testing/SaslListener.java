package dev.weft.proxy.testing;

import dev.weft.testkit.KafkaCluster;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * A broker that requires SASL of Weft: listener {@code EXTERNAL} (SASL_PLAINTEXT) with the given
 * mechanisms, beside a PLAINTEXT listener for the brokers' own traffic and the test's admin client
 * ({@link KafkaCluster#adminConfig()}). SCRAM users are added through the broker (KIP-554), as an operator
 * does.
 */
public final class SaslListener {

    public static final String SCRAM_JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required;";

    private SaslListener() {
    }

    /** The listener with SCRAM mechanisms only ({@code SCRAM-SHA-256}, {@code SCRAM-SHA-512}). */
    public static KafkaCluster.Builder scram(KafkaCluster.Builder builder, String... mechanisms) {
        Map<String, String> jaas = new LinkedHashMap<>();
        for (String m : mechanisms) {
            jaas.put(m, SCRAM_JAAS);
        }
        return external(builder, jaas);
    }

    /** The listener with each mechanism's JAAS config, in the map's order. */
    public static KafkaCluster.Builder external(KafkaCluster.Builder builder, Map<String, String> jaasByMechanism) {
        builder.listener("PLAINTEXT", SecurityProtocol.PLAINTEXT)
                .listener("EXTERNAL", SecurityProtocol.SASL_PLAINTEXT)
                .brokerProperty("listener.name.external.sasl.enabled.mechanisms", String.join(",", jaasByMechanism.keySet()));
        jaasByMechanism.forEach((mechanism, jaas) -> builder.brokerProperty(
                "listener.name.external." + mechanism.toLowerCase() + ".sasl.jaas.config", jaas));
        return builder;
    }

    /**
     * Adds (or replaces) each user's SCRAM credential, 4096 iterations, one request per mechanism (a
     * request may alter a user's credential for a mechanism once).
     */
    public static void addScramUsers(KafkaCluster cluster, Map<String, String> passwordsByUser, ScramMechanism... mechanisms)
            throws Exception {
        try (Admin admin = Admin.create(cluster.adminConfig())) {
            for (ScramMechanism m : mechanisms) {
                List<UserScramCredentialAlteration> upserts = new ArrayList<>();
                passwordsByUser.forEach((user, password) ->
                        upserts.add(new UserScramCredentialUpsertion(user, new ScramCredentialInfo(m, 4096), password)));
                admin.alterUserScramCredentials(upserts).all().get(30, TimeUnit.SECONDS);
            }
        }
    }
}
