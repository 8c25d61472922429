package dev.weft.routing.dag;

/**
 * A real node id too large to get a virtual id at its place in the DAG (DESIGN §4: overflow is an
 * error at startup or discovery, never silently wrapped). Still an {@link ArithmeticException}, as
 * {@link dev.weft.routing.node.NodeIdBijection} throws, but with a message naming the virtual
 * cluster, the upstream cluster and the node id.
 */
public final class NodeIdOverflowException extends ArithmeticException {

    private final transient RoutingProblem problem;

    NodeIdOverflowException(RoutingProblem problem) {
        super(problem.toString());
        this.problem = problem;
    }

    public RoutingProblem problem() {
        return problem;
    }
}
