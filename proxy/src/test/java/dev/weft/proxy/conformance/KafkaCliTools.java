package dev.weft.proxy.conformance;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs Kafka's own CLI tools (kafka-topics, kafka-console-producer, kafka-consumer-groups, ...) by their
 * main classes in a JVM of their own, on this JVM's class path (kafka-tools is a test dependency), with
 * their log on stderr so stdout holds only what they print.
 */
public final class KafkaCliTools {

    public static final String CONSUMER_GROUPS = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand";

    private final Path scratch;
    private final Path logback;
    private final Duration timeout;

    private KafkaCliTools(Path scratch, Path logback, Duration timeout) {
        this.scratch = scratch;
        this.logback = logback;
        this.timeout = timeout;
    }

    /** Tools run in {@code scratch} (their working directory and output files), each within {@code timeout}. */
    public static KafkaCliTools in(Path scratch, Duration timeout) throws IOException {
        Path file = scratch.resolve("logback-tools.xml");
        Files.writeString(file, """
                <configuration>
                  <appender name="STDERR" class="ch.qos.logback.core.ConsoleAppender">
                    <target>System.err</target>
                    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{20} - %msg%n</pattern></encoder>
                  </appender>
                  <root level="WARN"><appender-ref ref="STDERR"/></root>
                </configuration>
                """);
        return new KafkaCliTools(scratch, file, timeout);
    }

    public ExternalProcess.Result run(String mainClass, String... args) {
        return runWithInput(null, mainClass, args);
    }

    /** Runs the tool with {@code stdin} (a file, or null) as its standard input. */
    public ExternalProcess.Result runWithInput(Path stdin, String mainClass, String... args) {
        String classPath = System.getProperty("java.class.path");
        assertTrue(classPath.contains("kafka-tools-"), () -> "kafka-tools is not on the test class path: " + classPath);
        List<String> command = new ArrayList<>(List.of(Prerequisites.java(), "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC", "-Dlogback.configurationFile=" + logback, "-cp", classPath, mainClass));
        command.addAll(List.of(args));
        return ExternalProcess.run(command, scratch, Map.of(), stdin, timeout, scratch);
    }
}
