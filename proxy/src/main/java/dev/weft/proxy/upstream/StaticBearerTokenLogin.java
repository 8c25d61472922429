package dev.weft.proxy.upstream;

import dev.weft.proxy.config.Secret;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.auth.SaslExtensionsCallback;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerTokenCallback;
import org.apache.kafka.common.security.oauthbearer.internals.secured.BasicOAuthBearerToken;
import org.apache.kafka.common.security.oauthbearer.internals.unsecured.OAuthBearerUnsecuredJws;

/**
 * kafka-clients' OAUTHBEARER login ({@code sasl.login.callback.handler.class}) of the proxy's own
 * discovery and admin clients, for {@code clusters.NAME.sasl: { mechanism: OAUTHBEARER, token }}: answers
 * each {@link OAuthBearerTokenCallback} with the static bearer token of the JAAS option
 * {@value #TOKEN_OPTION} (a {@link Secret} reference: {@code env:NAME}, {@code file:/path} or the token
 * itself), read again on every login and refresh, so a rotated {@code file:} is picked up at kafka-clients'
 * next refresh. The token is not verified here (the broker does that): a JWT's {@code exp}, {@code iat},
 * {@code sub} and {@code scope} claims only tell kafka-clients when to refresh and whom it logs in as.
 *
 * <p>A token that is not a JWT is taken to last an hour. A token that expired already (or expires within
 * a minute) is still handed over, told to last one more minute: the broker refuses it with its own
 * error, and kafka-clients' refresher keeps running and re-reads the secret instead of stopping for good.
 */
public final class StaticBearerTokenLogin implements AuthenticateCallbackHandler {

    /** The JAAS option naming the token's {@link Secret}. */
    public static final String TOKEN_OPTION = "weftBearerToken";

    private static final long OPAQUE_LIFETIME_MS = 3_600_000;
    private static final long MIN_LIFETIME_MS = 60_000;

    private Secret token;

    @Override
    public void configure(Map<String, ?> configs, String saslMechanism, List<AppConfigurationEntry> jaasConfigEntries) {
        if (!OAuthBearerLoginModule.OAUTHBEARER_MECHANISM.equals(saslMechanism)) {
            throw new IllegalArgumentException("StaticBearerTokenLogin serves OAUTHBEARER, not " + saslMechanism);
        }
        if (jaasConfigEntries == null || jaasConfigEntries.size() != 1) {
            throw new IllegalArgumentException("StaticBearerTokenLogin needs exactly one JAAS login module entry");
        }
        Object reference = jaasConfigEntries.get(0).getOptions().get(TOKEN_OPTION);
        if (reference == null || reference.toString().isBlank()) {
            throw new IllegalArgumentException("StaticBearerTokenLogin needs the JAAS option " + TOKEN_OPTION);
        }
        token = Secret.of(reference.toString());
    }

    @Override
    public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
        for (Callback c : callbacks) {
            if (c instanceof OAuthBearerTokenCallback t) {
                if (token == null) {
                    throw new IllegalStateException("StaticBearerTokenLogin is not configured");
                }
                String value;
                try {
                    char[] chars = token.reveal();
                    value = new String(chars);
                    Arrays.fill(chars, '\0');
                } catch (IllegalArgumentException e) {
                    t.error("invalid_request", "the bearer token (" + token.source() + ") cannot be read: " + e.getMessage(), null);
                    continue;
                }
                if (value.isBlank()) {
                    t.error("invalid_request", "the bearer token (" + token.source() + ") is empty", null);
                    continue;
                }
                t.token(token(value, System.currentTimeMillis()));
            } else if (!(c instanceof SaslExtensionsCallback)) { // no extensions: the callback's default (none)
                throw new UnsupportedCallbackException(c);
            }
        }
    }

    @Override
    public void close() {
    }

    /** The token kafka-clients holds for {@code value}: lifetime and principal from the JWT's claims, unverified. */
    static OAuthBearerToken token(String value, long nowMs) {
        Map<String, Object> claims = claims(value);
        long expiresMs = claims == null ? nowMs + OPAQUE_LIFETIME_MS : millis(claims.get("exp"), nowMs + OPAQUE_LIFETIME_MS);
        Long startMs = claims == null || !(claims.get("iat") instanceof Number) ? null : millis(claims.get("iat"), nowMs);
        if (expiresMs < nowMs + MIN_LIFETIME_MS) { // expired (or about to): let the broker say so, refresh soon
            expiresMs = nowMs + MIN_LIFETIME_MS;
            startMs = nowMs;
        }
        String subject = claims != null && claims.get("sub") instanceof String s && !s.isBlank() ? s : "weft";
        return new BasicOAuthBearerToken(value, scope(claims == null ? null : claims.get("scope")), expiresMs, subject, startMs);
    }

    /** When the JWT {@code value} expires ({@code exp}, unverified), if it is a JWT with one. */
    public static OptionalLong expiresAtMs(String value) {
        Map<String, Object> claims = claims(value);
        return claims != null && claims.get("exp") instanceof Number n ? OptionalLong.of(millis(n, 0)) : OptionalLong.empty();
    }

    /** The claims of a compact JWS/JWT (header.payload.signature), or null if it is not one. */
    private static Map<String, Object> claims(String value) {
        String[] parts = value.split("\\.", -1);
        if (parts.length != 3 || parts[1].isEmpty()) {
            return null;
        }
        try {
            return OAuthBearerUnsecuredJws.toMap(parts[1]);
        } catch (RuntimeException e) { // not Base64 URL or not JSON: an opaque token
            return null;
        }
    }

    private static long millis(Object seconds, long otherwise) {
        return seconds instanceof Number n ? (long) (n.doubleValue() * 1000) : otherwise;
    }

    private static Set<String> scope(Object claim) {
        Set<String> out = new LinkedHashSet<>();
        if (claim instanceof String s) {
            for (String part : s.trim().split("\\s+")) {
                if (!part.isEmpty()) {
                    out.add(part);
                }
            }
        } else if (claim instanceof Collection<?> list) {
            for (Object o : list) {
                out.add(String.valueOf(o));
            }
        }
        return Set.copyOf(out);
    }
}
