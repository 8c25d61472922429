package dev.weft.proxy.security;

/** How one SASL authentication (or re-authentication) at a terminating gateway ended: the metric's {@code outcome}. */
public enum SaslOutcome {
    /** The client proved who it is. */
    SUCCESS("success"),
    /** Wrong password, unknown user, or a SCRAM proof that does not verify. */
    BAD_CREDENTIALS("bad_credentials"),
    /** A handshake for a mechanism the virtual cluster does not enable. */
    UNSUPPORTED_MECHANISM("unsupported_mechanism"),
    /** A request out of order: SaslAuthenticate before the handshake, any other request before authenticating. */
    ILLEGAL_STATE("illegal_state"),
    /** Refused without checking: too many failed attempts from the peer's address. */
    RATE_LIMITED("rate_limited"),
    /** The session outlived its lifetime ({@code reauthenticateMs}) without re-authenticating. */
    EXPIRED("expired"),
    /** A re-authentication as another principal than the connection's. */
    PRINCIPAL_CHANGED("principal_changed"),
    /** OAUTHBEARER: the token's {@code exp} has passed (beyond the clock skew). */
    TOKEN_EXPIRED("token_expired"),
    /** OAUTHBEARER: the token's {@code iss} is not the configured issuer. */
    TOKEN_WRONG_ISSUER("token_wrong_issuer"),
    /** OAUTHBEARER: the token's {@code aud} names none of the configured audiences. */
    TOKEN_WRONG_AUDIENCE("token_wrong_audience"),
    /** OAUTHBEARER: the signature does not verify, or no key of the JWKS matches the token's. */
    TOKEN_BAD_SIGNATURE("token_bad_signature"),
    /** OAUTHBEARER: any other reason the token is refused (malformed, a claim missing, not yet valid). */
    TOKEN_INVALID("token_invalid");

    private final String label;

    SaslOutcome(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
