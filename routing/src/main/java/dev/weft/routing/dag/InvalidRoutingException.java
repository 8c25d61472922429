package dev.weft.routing.dag;

import java.util.List;
import java.util.stream.Collectors;

/** Thrown when the routing configuration has problems; carries all of them, not just the first. */
public final class InvalidRoutingException extends RuntimeException {

    private final transient List<RoutingProblem> problems;

    public InvalidRoutingException(List<RoutingProblem> problems) {
        super(problems.size() + " routing problem" + (problems.size() == 1 ? "" : "s") + ":\n  "
                + problems.stream().map(RoutingProblem::toString).collect(Collectors.joining("\n  ")));
        this.problems = List.copyOf(problems);
    }

    public List<RoutingProblem> problems() {
        return problems;
    }
}
