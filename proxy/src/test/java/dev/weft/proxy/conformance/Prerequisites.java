package dev.weft.proxy.conformance;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Finds the client tools the suite runs (this package's tests and the topic-weave real-client tests in
 * {@code dev.weft.proxy.weave}). A missing tool FAILS the test, naming what to install ({@code .ci/run}
 * installs all of them); nothing is skipped silently.
 */
public final class Prerequisites {

    /** The Debian python, where {@code python3-confluent-kafka} installs (not the first python3 on PATH). */
    public static final Path DEBIAN_PYTHON = Path.of("/usr/bin/python3");

    private Prerequisites() {
    }

    /** The proxy module's folder (surefire runs tests there and sets {@code basedir}). */
    public static Path moduleDir() {
        return Path.of(System.getProperty("basedir", System.getProperty("user.dir"))).toAbsolutePath();
    }

    /** This JVM's {@code java} launcher, for forked client JVMs. */
    public static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    public static Path kcat() {
        return onPath("kcat").orElseThrowFail(
                "kcat is not installed: install the Debian package 'kcat' (apt-get install -y kcat; .ci/run does)");
    }

    /** {@code /usr/bin/python3} able to import confluent_kafka. */
    public static Path pythonWithConfluentKafka(Path scratch) {
        String install = "install the Debian package 'python3-confluent-kafka' for /usr/bin/python3 "
                + "(apt-get install -y python3-confluent-kafka; .ci/run does)";
        if (!Files.isExecutable(DEBIAN_PYTHON)) {
            fail(DEBIAN_PYTHON + " does not exist: " + install);
        }
        ExternalProcess.Result probe = ExternalProcess.run(
                List.of(DEBIAN_PYTHON.toString(), "-c", "import confluent_kafka; print(confluent_kafka.version())"),
                scratch, Map.of(), null, Duration.ofSeconds(30), scratch);
        if (!probe.succeeded()) {
            fail("python confluent_kafka is not importable by " + DEBIAN_PYTHON + ": " + install + probe.describe());
        }
        return DEBIAN_PYTHON;
    }

    public static Path node() {
        return onPath("node").orElseThrowFail(
                "node is not installed: install Node.js 20 (Debian package 'nodejs') and npm");
    }

    /** HAProxy from Debian ({@code /usr/sbin} is searched too: it is not on every PATH). */
    public static Path haproxy() {
        Found onPath = onPath("haproxy");
        if (onPath.path() == null && Files.isExecutable(Path.of("/usr/sbin/haproxy"))) {
            return Path.of("/usr/sbin/haproxy");
        }
        return onPath.orElseThrowFail("haproxy is not installed: install the Debian package 'haproxy' "
                + "(apt-get install -y haproxy; .ci/run does)");
    }

    /** The kafkajs project folder, with its dependencies installed by {@code npm ci}. */
    public static Path kafkaJsProject() {
        Path project = moduleDir().resolve("src/test/js");
        if (!Files.isDirectory(project.resolve("node_modules/kafkajs"))) {
            fail("kafkajs is not installed in " + project + ": run 'npm ci' in that folder (.ci/run does)");
        }
        return project;
    }

    /**
     * The npm project with a current librdkafka ({@code @confluentinc/kafka-javascript}, which builds
     * its bundled librdkafka from source), installed by {@code npm ci} with {@code CKJS_LINKING=dynamic}
     * and {@code npm_config_build_from_source=true} (no prebuilt download; the system's OpenSSL and
     * zlib; g++, make and python3 for the build).
     */
    public static Path rdkafkaJsProject() {
        Path project = moduleDir().resolve("src/test/rdkafka-js");
        if (!Files.exists(project.resolve("node_modules/@confluentinc/kafka-javascript/build/Release/confluent-kafka-javascript.node"))) {
            fail("@confluentinc/kafka-javascript is not built in " + project + ": run 'CKJS_LINKING=dynamic "
                    + "npm_config_build_from_source=true npm ci' in that folder, with g++, make, python3, libssl-dev "
                    + "and zlib1g-dev installed (.ci/run does)");
        }
        return project;
    }

    /** The older kafka-clients jar that the build copies into the build folder (maven-dependency-plugin). */
    static Path legacyKafkaClientsJar(Path buildDir) {
        Path folder = buildDir.resolve("legacy-kafka-clients");
        try (var jars = Files.list(folder)) {
            return jars.filter(p -> p.getFileName().toString().startsWith("kafka-clients-")).findFirst()
                    .orElseThrow(() -> new AssertionError("no kafka-clients jar in " + folder));
        } catch (java.io.IOException e) {
            throw new AssertionError(folder + " is missing: the proxy module's 'legacy-kafka-clients' execution of "
                    + "maven-dependency-plugin (phase generate-test-resources) puts the older kafka-clients there; "
                    + "run the tests through Maven", e);
        }
    }

    private static Found onPath(String name) {
        String path = System.getenv().getOrDefault("PATH", "") + File.pathSeparator + "/usr/bin:/usr/local/bin:/bin";
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, name);
            if (Files.isExecutable(candidate)) {
                return new Found(candidate);
            }
        }
        return new Found(null);
    }

    private record Found(Path path) {
        Path orElseThrowFail(String message) {
            if (path == null) {
                fail(message);
            }
            return path;
        }
    }
}
