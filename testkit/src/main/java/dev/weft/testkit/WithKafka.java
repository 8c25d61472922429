package dev.weft.testkit;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Registers {@link KafkaClusterExtension} on a test class, so that {@link KafkaCluster} parameters
 * without a {@link KafkaClusterConfig} get a default cluster (one broker, per-class lifecycle).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@ExtendWith(KafkaClusterExtension.class)
public @interface WithKafka {
}
