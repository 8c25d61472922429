package dev.weft.testkit;

import dev.weft.testkit.KafkaClusterConfig.Lifecycle;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

/**
 * JUnit 5 extension that starts real Kafka clusters and injects them into {@link KafkaCluster}
 * parameters and {@link KafkaClusterConfig}-annotated fields. Register it with {@link WithKafka},
 * {@code @ExtendWith(KafkaClusterExtension.class)}, or simply by annotating a parameter or field with
 * {@link KafkaClusterConfig}.
 *
 * <p>Clusters live in the JUnit store of the class (per-class lifecycle) or of the test method
 * (per-method lifecycle) and are closed when that scope ends.
 */
public final class KafkaClusterExtension implements ParameterResolver, BeforeAllCallback, BeforeEachCallback {

    private static final ExtensionContext.Namespace NAMESPACE =
        ExtensionContext.Namespace.create(KafkaClusterExtension.class);

    @KafkaClusterConfig
    private static final class Defaults {
    }

    private static final KafkaClusterConfig DEFAULTS = Defaults.class.getAnnotation(KafkaClusterConfig.class);

    /** Store key: clusters with the same slot and the same configuration are one cluster. */
    private record Key(String slot, KafkaClusterConfig config) {
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == KafkaCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        KafkaClusterConfig config = parameter.findAnnotation(KafkaClusterConfig.class)
            .orElseGet(() -> classDefault(context));
        String slot = config.name().isEmpty() ? "parameter " + parameter.getIndex() : config.name();
        return cluster(context, slot, config);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IllegalAccessException {
        Class<?> testClass = context.getRequiredTestClass();
        for (Field field : clusterFields(testClass, true)) {
            KafkaClusterConfig config = field.getAnnotation(KafkaClusterConfig.class);
            if (config.lifecycle() == Lifecycle.PER_METHOD) {
                throw new ExtensionConfigurationException("static field " + field + " cannot hold a PER_METHOD "
                    + "cluster; make it an instance field or use PER_CLASS");
            }
            field.setAccessible(true);
            field.set(null, cluster(context, fieldSlot(field, config), config));
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) throws IllegalAccessException {
        for (Object instance : context.getRequiredTestInstances().getAllInstances()) {
            for (Field field : clusterFields(instance.getClass(), false)) {
                KafkaClusterConfig config = field.getAnnotation(KafkaClusterConfig.class);
                field.setAccessible(true);
                field.set(instance, cluster(context, fieldSlot(field, config), config));
            }
        }
    }

    private static java.util.List<Field> clusterFields(Class<?> type, boolean statics) {
        java.util.List<Field> fields = AnnotationSupport.findAnnotatedFields(type, KafkaClusterConfig.class,
            f -> Modifier.isStatic(f.getModifiers()) == statics);
        for (Field field : fields) {
            if (field.getType() != KafkaCluster.class) {
                throw new ExtensionConfigurationException("@KafkaClusterConfig field " + field
                    + " must be of type " + KafkaCluster.class.getName());
            }
        }
        return fields;
    }

    private static String fieldSlot(Field field, KafkaClusterConfig config) {
        return config.name().isEmpty()
            ? "field " + field.getDeclaringClass().getName() + "." + field.getName()
            : config.name();
    }

    private static KafkaCluster cluster(ExtensionContext context, String slot, KafkaClusterConfig config) {
        ExtensionContext owner = config.lifecycle() == Lifecycle.PER_METHOD ? context : classContext(context);
        return owner.getStore(NAMESPACE).computeIfAbsent(new Key(slot, config), key -> start(config),
            KafkaCluster.class);
    }

    /** The context of the innermost test class enclosing {@code context}. */
    private static ExtensionContext classContext(ExtensionContext context) {
        ExtensionContext current = context;
        while (current.getTestMethod().isPresent() && current.getParent().isPresent()) {
            current = current.getParent().get();
        }
        return current;
    }

    private static KafkaClusterConfig classDefault(ExtensionContext context) {
        return context.getTestClass()
            .flatMap(type -> AnnotationSupport.findAnnotation(type, KafkaClusterConfig.class))
            .orElse(DEFAULTS);
    }

    /** Starts the cluster {@code config} describes. The store closes it (it is AutoCloseable). */
    static KafkaCluster start(KafkaClusterConfig config) {
        KafkaCluster.Builder builder = KafkaCluster.builder()
            .brokers(config.brokers())
            .dedicatedControllers(config.dedicatedControllers())
            .forked(config.forked())
            .heap(config.heap());
        String[] racks = config.racks().clone();
        if (racks.length > 0) {
            builder.rack(id -> racks[Math.floorMod(id, racks.length)]);
        }
        for (String property : config.brokerProperties()) {
            int equals = property.indexOf('=');
            if (equals <= 0) {
                throw new ExtensionConfigurationException("brokerProperties entries must be key=value, got '"
                    + property + "'");
            }
            builder.brokerProperty(property.substring(0, equals).trim(), property.substring(equals + 1).trim());
        }
        return builder.build().start();
    }
}
