package dev.weft.testkit;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Configures a {@link KafkaCluster} injected by {@link KafkaClusterExtension}, which this annotation
 * registers by itself.
 *
 * <ul>
 *   <li>On a test or lifecycle method parameter of type {@link KafkaCluster}: that parameter's cluster.
 *       Two parameters get two independent clusters.</li>
 *   <li>On a field of type {@link KafkaCluster} (static or not): that field's cluster.</li>
 *   <li>On a test class: the configuration of its {@link KafkaCluster} parameters that carry no
 *       annotation of their own.</li>
 * </ul>
 *
 * <p>With {@link Lifecycle#PER_CLASS} (the default) a cluster is shared by all tests of the class and
 * closed after the last one; parameters at the same position (or with the same {@link #name()}) and the
 * same configuration share one cluster. With {@link Lifecycle#PER_METHOD} each test gets a fresh cluster,
 * closed right after it.
 *
 * <pre>{@code
 * @Test
 * void mirrors(@KafkaClusterConfig(brokers = 3, racks = {"a", "b", "c"}) KafkaCluster source,
 *              @KafkaClusterConfig KafkaCluster target) { ... }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.PARAMETER, ElementType.FIELD, ElementType.TYPE})
@ExtendWith(KafkaClusterExtension.class)
public @interface KafkaClusterConfig {

    /** Number of brokers (node ids 0..brokers-1). */
    int brokers() default 1;

    /** Controller-only nodes; 0 combines the controllers with the first brokers. */
    int dedicatedControllers() default 0;

    /** {@code broker.rack} of broker {@code id} is {@code racks[id % racks.length]}; empty means none. */
    String[] racks() default {};

    /** Extra server properties for every node, as {@code key=value}. */
    String[] brokerProperties() default {};

    /** Runs each node in a JVM of its own. */
    boolean forked() default false;

    /** {@code -Xmx} of each forked node. */
    String heap() default "512m";

    Lifecycle lifecycle() default Lifecycle.PER_CLASS;

    /**
     * Names the cluster so that parameters and fields with the same name (and configuration) share it
     * within its lifecycle; by default a parameter is named by its position and a field by itself.
     */
    String name() default "";

    /** How long an injected cluster lives. */
    enum Lifecycle {
        /** Shared by all tests of the class, closed after the last one. */
        PER_CLASS,
        /** Started for one test method, closed right after it. */
        PER_METHOD
    }
}
