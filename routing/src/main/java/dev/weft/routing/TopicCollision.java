package dev.weft.routing;

import java.util.List;

/**
 * Two or more routes that would expose a topic under the same virtual name, and what the configured
 * policy made of it.
 *
 * @param virtualName the contested name
 * @param claims every route that claimed it, in route order, with what each ended up as
 * @param outcome what was done
 */
public record TopicCollision(String virtualName, List<Claim> claims, Outcome outcome) {

    public TopicCollision {
        claims = List.copyOf(claims);
    }

    /** One route's claim: its real topic, and the name it is exposed under (null when hidden). */
    public record Claim(int route, String routeName, String realName, String exposedAs) {
    }

    public enum Outcome {
        /** Policy {@code reject}: every claimant hidden. An error: refuses startup; later, logged and counted. */
        REJECTED(true),
        /** Policy {@code first-wins}: the first route in order keeps the name, the others are hidden. */
        FIRST_WINS(false),
        /** Policy {@code qualify}: every claimant exposed under its route's qualify prefix. */
        QUALIFIED(false),
        /** Policy {@code qualify}, but a qualified name was taken too: that claimant is hidden. An error. */
        QUALIFIED_NAME_TAKEN(true);

        private final boolean error;

        Outcome(boolean error) {
            this.error = error;
        }

        /** True when this hides topics the configuration meant to show: refuse at startup, count and log later. */
        public boolean isError() {
            return error;
        }
    }

    /** For logs and problems: {@code topic 'orders' claimed by routes us (orders), eu (orders): reject hides both}. */
    public String describe() {
        StringBuilder sb = new StringBuilder("topic '").append(virtualName).append("' is claimed by routes ");
        for (int i = 0; i < claims.size(); i++) {
            Claim c = claims.get(i);
            sb.append(i == 0 ? "" : ", ").append(c.routeName()).append(" (real topic '").append(c.realName()).append("')");
        }
        sb.append(": ");
        switch (outcome) {
            case REJECTED -> sb.append("collision policy 'reject' hides all of them");
            case FIRST_WINS -> sb.append("collision policy 'first-wins' keeps route ").append(claims.getFirst().routeName())
                    .append(" and hides the others");
            case QUALIFIED, QUALIFIED_NAME_TAKEN -> {
                sb.append("collision policy 'qualify' exposes ");
                for (int i = 0; i < claims.size(); i++) {
                    Claim c = claims.get(i);
                    sb.append(i == 0 ? "" : ", ").append(c.exposedAs() == null ? "(hidden: qualified name already taken)"
                            : "'" + c.exposedAs() + "'");
                }
            }
        }
        return sb.toString();
    }
}
