package dev.weft.proxy.security;

import dev.weft.proxy.config.WeftConfig;
import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.sasl.SaslException;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.DefaultJwtValidator;
import org.apache.kafka.common.security.oauthbearer.JwtValidator;
import org.apache.kafka.common.security.oauthbearer.JwtValidatorException;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerExtensionsValidatorCallback;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallback;
import org.apache.kafka.common.security.oauthbearer.internals.OAuthBearerSaslServer;
import org.apache.kafka.common.security.oauthbearer.internals.secured.CloseableVerificationKeyResolver;
import org.apache.kafka.common.security.oauthbearer.internals.secured.VerificationKeyResolverFactory;

/**
 * OAUTHBEARER token validation of one virtual cluster: kafka-clients' own broker-side JWT validator
 * (KIP-768, {@code BrokerJwtValidator} through {@link DefaultJwtValidator}: signature against the JWKS, {@code iss}, {@code aud},
 * {@code exp}/{@code iat} with the clock skew, the subject claim), configured exactly as a broker's
 * listener would be. It holds the JWKS key resolver kafka-clients makes for that configuration (an
 * https JWKS is fetched at start, cached, and refreshed on a thread of its own; a file one is re-read
 * when it changes): one per virtual cluster, its own (not kafka-clients' process-wide shared one, which
 * 4.4 never closes), closed with the virtual cluster.
 *
 * <p>kafka-clients' {@code OAuthBearerValidatorCallbackHandler} wraps the same validator but keeps
 * the reason a token is refused to its own log line; here each authentication's callback handler keeps
 * it, so the WARN line and the counter name it (expired, wrong issuer, wrong audience, bad signature).
 */
public final class OAuthBearerValidation implements AutoCloseable {

    /** kafka-clients refuses JWKS and token URLs not listed in this JVM system property (comma-separated). */
    public static final String ALLOWED_URLS_PROPERTY = "org.apache.kafka.sasl.oauthbearer.allowed.urls";

    private final CloseableVerificationKeyResolver keys;
    private final JwtValidator validator;
    private final String jwks;

    private OAuthBearerValidation(CloseableVerificationKeyResolver keys, JwtValidator validator, String jwks) {
        this.keys = keys;
        this.validator = validator;
        this.jwks = jwks;
    }

    /**
     * Configures kafka-clients' validator for {@code settings}, after adding its JWKS URL to
     * {@link #ALLOWED_URLS_PROPERTY} (keeping what is there). An https JWKS is fetched now.
     *
     * @throws IllegalStateException when it cannot be configured (jose4j missing, JWKS unreadable), naming why
     */
    public static OAuthBearerValidation open(WeftConfig.OAuthBearer settings) {
        try {
            Class.forName("org.jose4j.jwt.consumer.JwtConsumer", false, OAuthBearerValidation.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("OAUTHBEARER validation needs jose4j (org.bitbucket.b_c:jose4j) on the class path", e);
        }
        allowUrl(settings.jwks());
        Map<String, Object> configs = new HashMap<>();
        configs.put(SaslConfigs.SASL_OAUTHBEARER_JWKS_ENDPOINT_URL, settings.jwks());
        configs.put(SaslConfigs.SASL_OAUTHBEARER_EXPECTED_ISSUER, settings.issuer());
        configs.put(SaslConfigs.SASL_OAUTHBEARER_EXPECTED_AUDIENCE, List.copyOf(settings.audience()));
        configs.put(SaslConfigs.SASL_OAUTHBEARER_ALLOW_UNVERIFIED_ISSUER, false);
        configs.put(SaslConfigs.SASL_OAUTHBEARER_ALLOW_UNVERIFIED_AUDIENCE, false);
        configs.put(SaslConfigs.SASL_OAUTHBEARER_SUB_CLAIM_NAME, settings.subClaim());
        configs.put(SaslConfigs.SASL_OAUTHBEARER_SCOPE_CLAIM_NAME, SaslConfigs.DEFAULT_SASL_OAUTHBEARER_SCOPE_CLAIM_NAME);
        configs.put(SaslConfigs.SASL_OAUTHBEARER_CLOCK_SKEW_SECONDS, settings.clockSkewSeconds());
        configs.put(SaslConfigs.SASL_OAUTHBEARER_JWKS_ENDPOINT_REFRESH_MS, settings.jwksRefreshMs());
        configs.put(SaslConfigs.SASL_OAUTHBEARER_JWKS_ENDPOINT_RETRY_BACKOFF_MS, SaslConfigs.DEFAULT_SASL_OAUTHBEARER_JWKS_ENDPOINT_RETRY_BACKOFF_MS);
        configs.put(SaslConfigs.SASL_OAUTHBEARER_JWKS_ENDPOINT_RETRY_BACKOFF_MAX_MS,
                SaslConfigs.DEFAULT_SASL_OAUTHBEARER_JWKS_ENDPOINT_RETRY_BACKOFF_MAX_MS);
        // the JAAS options of a broker's OAUTHBEARER listener: where kafka-clients reads the TLS settings
        // of its JWKS client (ssl.truststore.*, as for a client connection)
        Map<String, Object> jaasOptions = new HashMap<>();
        if (settings.trustCertificates() != null) {
            jaasOptions.put("ssl.truststore.type", "PEM");
            jaasOptions.put("ssl.truststore.location", settings.trustCertificates().toString());
        }
        List<AppConfigurationEntry> jaas = List.of(new AppConfigurationEntry(OAuthBearerLoginModule.class.getName(),
                AppConfigurationEntry.LoginModuleControlFlag.REQUIRED, jaasOptions));
        CloseableVerificationKeyResolver keys;
        try {
            keys = newKeyResolver(configs, jaas);
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot read the JWKS " + settings.jwks() + ": " + rootMessage(e), e);
        }
        JwtValidator validator = new DefaultJwtValidator(keys);
        try {
            validator.configure(configs, OAuthBearerLoginModule.OAUTHBEARER_MECHANISM, jaas);
        } catch (RuntimeException e) {
            closeQuietly(keys);
            throw new IllegalStateException("cannot validate OAUTHBEARER tokens against " + settings.jwks() + ": " + rootMessage(e), e);
        }
        return new OAuthBearerValidation(keys, validator, settings.jwks());
    }

    /**
     * A key resolver of this validation's own, made as kafka-clients makes a broker's
     * ({@code VerificationKeyResolverFactory.create}: a file, or an https JWKS fetched now and refreshed),
     * rather than {@code VerificationKeyResolverFactory.get}'s process-wide cached one, which nothing closes.
     */
    private static CloseableVerificationKeyResolver newKeyResolver(Map<String, Object> configs, List<AppConfigurationEntry> jaas) {
        java.lang.reflect.Method create;
        try {
            create = VerificationKeyResolverFactory.class.getDeclaredMethod("create", Map.class, String.class, List.class);
            create.setAccessible(true);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("this kafka-clients has no VerificationKeyResolverFactory.create(Map, String, List)", e);
        }
        try {
            return (CloseableVerificationKeyResolver) create.invoke(null, configs, OAuthBearerLoginModule.OAUTHBEARER_MECHANISM, jaas);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        String message = e.getMessage();
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
            if (t.getMessage() != null) {
                message = message == null ? t.getMessage() : message + ": " + t.getMessage();
            }
        }
        return message;
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // closing: nothing more to do
        }
    }

    /** Adds {@code url} to {@link #ALLOWED_URLS_PROPERTY}, keeping the values already there. */
    static synchronized void allowUrl(String url) {
        String current = System.getProperty(ALLOWED_URLS_PROPERTY, "");
        Set<String> urls = new LinkedHashSet<>();
        for (String u : current.split(",")) {
            if (!u.trim().isEmpty()) {
                urls.add(u.trim());
            }
        }
        if (urls.add(url)) {
            System.setProperty(ALLOWED_URLS_PROPERTY, String.join(",", urls));
        }
    }

    /** A server for one OAUTHBEARER authentication: kafka-clients' own, over this validator. */
    OAuthBearerSaslServer newServer() {
        return new Server(new Validating());
    }

    @Override
    public void close() {
        closeQuietly(validator);
        closeQuietly(keys);
    }

    @Override
    public String toString() {
        return "OAUTHBEARER validation against " + jwks;
    }

    /** The callback handler of one authentication: validates, and keeps why a token was refused. */
    private final class Validating implements AuthenticateCallbackHandler {
        private String refusal;

        @Override
        public void configure(Map<String, ?> configs, String saslMechanism, List<AppConfigurationEntry> jaasConfigEntries) {
            // configured once per virtual cluster (the validator)
        }

        @Override
        public void handle(Callback[] callbacks) throws IOException, UnsupportedCallbackException {
            for (Callback c : callbacks) {
                if (c instanceof OAuthBearerValidatorCallback v) {
                    try {
                        v.token(validator.validate(v.tokenValue()));
                    } catch (JwtValidatorException e) {
                        refusal = e.getMessage();
                        v.error("invalid_token", null, null); // what a broker answers: RFC 7628's error challenge
                    }
                } else if (c instanceof OAuthBearerExtensionsValidatorCallback x) {
                    x.inputExtensions().map().keySet().forEach(x::valid); // as kafka-clients' validator handler does
                } else {
                    throw new UnsupportedCallbackException(c);
                }
            }
        }

        @Override
        public void close() {
        }
    }

    /**
     * kafka-clients' server, answering a refused token with the error challenge, then failing on the
     * client's {@code %x01} with a {@link TokenRefused} naming why.
     */
    private static final class Server extends OAuthBearerSaslServer {
        private final Validating handler;

        Server(Validating handler) {
            super(handler);
            this.handler = handler;
        }

        @Override
        public byte[] evaluateResponse(byte[] response) throws SaslException, SaslAuthenticationException {
            try {
                return super.evaluateResponse(response);
            } catch (SaslAuthenticationException e) {
                if (handler.refusal != null) {
                    throw TokenRefused.of(handler.refusal);
                }
                throw e;
            }
        }
    }

    /**
     * Why {@code server} refused the token it was last given, when it answered with the error challenge
     * (the client is then to send {@code %x01}); null for any other server, or a token not refused.
     */
    static TokenRefused refusalOf(javax.security.sasl.SaslServer server) {
        return server instanceof Server s && s.handler.refusal != null ? TokenRefused.of(s.handler.refusal) : null;
    }

    /** A token kafka-clients' validator refused, with the outcome its reason falls under. */
    static final class TokenRefused extends SaslAuthenticationException {
        private static final java.util.regex.Pattern JWT = java.util.regex.Pattern.compile(
                "[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]*");
        private final SaslOutcome outcome;

        private TokenRefused(SaslOutcome outcome, String message) {
            super(message);
            this.outcome = outcome;
        }

        SaslOutcome outcome() {
            return outcome;
        }

        /** From the validator's message (jose4j's wording): the outcome, and the reason without the token's claims. */
        static TokenRefused of(String message) {
            String m = message == null ? "" : message;
            int details = m.indexOf("Additional details: ");
            String reason = details >= 0 ? m.substring(details + "Additional details: ".length()) : m;
            SaslOutcome outcome;
            if (m.contains("no longer valid") || m.contains("Expiration Time")) {
                outcome = SaslOutcome.TOKEN_EXPIRED;
            } else if (m.contains("Issuer (iss)")) {
                outcome = SaslOutcome.TOKEN_WRONG_ISSUER;
            } else if (m.contains("Audience (aud)")) {
                outcome = SaslOutcome.TOKEN_WRONG_AUDIENCE;
            } else if (m.toLowerCase(java.util.Locale.ROOT).contains("signature") || m.contains("verification key")) {
                outcome = SaslOutcome.TOKEN_BAD_SIGNATURE;
            } else {
                outcome = SaslOutcome.TOKEN_INVALID;
            }
            return new TokenRefused(outcome, "token refused (" + outcome.label() + "): " + clip(reason));
        }

        /** One line, at most 400 characters, and never a token (jose4j quotes a token whose signature fails). */
        private static String clip(String s) {
            String one = JWT.matcher(s.replace('\n', ' ').replace('\r', ' ')).replaceAll("<token>");
            return one.length() > 400 ? one.substring(0, 400) + "..." : one;
        }
    }
}
