package dev.weft.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The manifests under deploy/k8s: every file is valid Kubernetes (strictly, {@link StrictModel}), every
 * overlay renders ({@link MiniKustomize}) to objects that fit the weft.yaml inside them
 * ({@link WeftManifestChecks}), {@code kubectl kustomize} renders the same where it is installed, and
 * the checks catch the mistakes they are for (each self-test breaks one thing and expects its message).
 */
class KubernetesManifestsTest {

    static final Path K8S = Path.of(System.getProperty("weft.deploy.k8s", "k8s")).toAbsolutePath();
    static final List<String> OVERLAYS = List.of("sni", "port-per-broker", "collapsed");

    @TempDir
    Path scratch;

    @Test
    void everyManifestFileIsStrictlyValidKubernetes() throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.walk(K8S)) {
            files = s.filter(p -> p.toString().endsWith(".yaml"))
                    .filter(p -> !p.getFileName().toString().equals("kustomization.yaml") && !p.getFileName().toString().equals("weft.yaml"))
                    .sorted().toList();
        }
        assertTrue(files.size() >= 10, "found only " + files);
        List<String> problems = new ArrayList<>();
        for (Path f : files) {
            for (JsonNode doc : MiniKustomize.readYaml(f)) {
                try {
                    StrictModel.read(doc, K8S.relativize(f).toString());
                } catch (IllegalArgumentException e) {
                    problems.add(e.getMessage());
                }
            }
        }
        assertEquals(List.of(), problems);
    }

    @Test
    void everyOverlayIsTested() throws IOException {
        try (Stream<Path> s = Files.list(K8S.resolve("overlays"))) {
            assertEquals(new TreeSet<>(OVERLAYS), new TreeSet<>(s.map(p -> p.getFileName().toString()).toList()));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sni", "port-per-broker", "collapsed"})
    void overlayFitsItsWeftConfig(String overlay) {
        assertEquals(List.of(), check(overlay, objects -> { }));
    }

    @ParameterizedTest
    @ValueSource(strings = {"sni", "port-per-broker", "collapsed"})
    void kubectlKustomizeRendersTheSame(String overlay) throws Exception {
        Path kubectl = Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
                .map(d -> Path.of(d, "kubectl")).filter(Files::isExecutable).findFirst().orElse(null);
        assumeTrue(kubectl != null, "kubectl is not installed: the build's own renderer stands alone");
        Process p = new ProcessBuilder(kubectl.toString(), "kustomize", K8S.resolve("overlays").resolve(overlay).toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "kubectl kustomize did not finish");
        assertEquals(0, p.exitValue(), out);
        Map<String, JsonNode> theirs = byKindAndName(MiniKustomize.parseYaml(out, "kubectl kustomize").stream()
                .map(KubernetesManifestsTest::withoutHashSuffixes).toList());
        Map<String, JsonNode> ours = byKindAndName(MiniKustomize.render(K8S.resolve("overlays").resolve(overlay)));
        assertEquals(ours.keySet(), theirs.keySet());
        for (String key : ours.keySet()) {
            assertEquals(ours.get(key), theirs.get(key), key);
        }
    }

    // Self-tests: each breaks one thing an operator could get wrong and expects the checks to say so.

    @Test
    void aMisspeltFieldFails() {
        expect("sni", "unknown field(s) [readinesProbe]", objects -> {
            ObjectNode c = container(objects);
            c.set("readinesProbe", c.remove("readinessProbe"));
        });
    }

    @Test
    void aPortAsAStringFails() {
        expect("sni", "containerPort", objects -> ((ObjectNode) container(objects).path("ports").get(0)).put("containerPort", "9190"));
    }

    @Test
    void aNumberAsAnnotationFails() {
        expect("sni", "Cannot coerce Integer value (9190) to `java.lang.String`", objects -> ((ObjectNode) workload(objects).path("spec").path("template").path("metadata")
                .path("annotations")).set("prometheus.io/port", IntNode.valueOf(9190)));
    }

    @Test
    void aWrongProbePathFails() {
        expect("port-per-broker", "readinessProbe must be httpGet /readyz", objects ->
                ((ObjectNode) container(objects).path("readinessProbe").path("httpGet")).put("path", "/ready"));
    }

    @Test
    void aProbeOnAnotherPortFails() {
        expect("collapsed", "livenessProbe port kafka is not admin.bind's port 9190", objects ->
                ((ObjectNode) container(objects).path("livenessProbe").path("httpGet")).put("port", "kafka"));
    }

    @Test
    void anAdminEndpointOnLocalhostFails() {
        expect("sni", "admin.bind is 127.0.0.1:9190", objects -> editConfig(objects, "bind: \"0.0.0.0:9190\"", "bind: \"127.0.0.1:9190\""));
    }

    @Test
    void aContainerPortOffTheConfigFails() {
        expect("sni", "container ports [9190, 9444] are not the ports weft.yaml listens on [9190, 9443]", objects ->
                ((ObjectNode) container(objects).path("ports").get(1)).put("containerPort", 9444));
    }

    @Test
    void aMissingBrokerPortOnTheServiceFails() {
        expect("port-per-broker", "no Service exposes the bootstrap port and one port per node id 0-5", objects ->
                ((ArrayNode) find(objects, "Service", "weft-brokers").path("spec").path("ports")).remove(6));
    }

    @Test
    void aWiderNodeIdRangeThanTheServiceFails() {
        expect("port-per-broker", "no Service exposes", objects -> editConfig(objects, "nodeIds: \"0-5\"", "nodeIds: \"0-6\""));
    }

    @Test
    void anSniPortTheLoadBalancerDoesNotServeFails() {
        expect("sni", "no Service exposes sni.advertisedPort 443", objects ->
                ((ObjectNode) find(objects, "Service", "weft-sni").path("spec").path("ports").get(0)).put("port", 8443));
    }

    @Test
    void anSniNameOutsideTheServiceNamesFails() {
        expect("sni", "broker-0.main.kafka.example.org is not a name of Service weft-sni", objects -> editConfig(objects,
                "broker-$(nodeId).main.kafka.example.com", "broker-$(nodeId).main.kafka.example.org"));
    }

    @Test
    void anAdvertisedHostWithoutDnsFails() {
        expect("port-per-broker", "advertisedHost kafka.example.org is not a name of Service weft-brokers", objects ->
                editConfig(objects, "advertisedHost: kafka.example.com", "advertisedHost: kafka.example.org"));
    }

    @Test
    void moreReplicasThanCollapsedNodesFails() {
        expect("collapsed", "ids [0, 1, 2] are not the StatefulSet's ordinals [0, 1, 2, 3]", objects ->
                ((ObjectNode) workload(objects).path("spec")).put("replicas", 4));
    }

    @Test
    void aCollapsedNodeAddressInAnotherNamespaceFails() {
        expect("collapsed", "address weft-1.weft-nodes.kafka.svc.cluster.local:9092 is not pod 1's name", objects -> editConfig(objects,
                "weft-1.weft-nodes.weft.svc", "weft-1.weft-nodes.kafka.svc"));
    }

    @Test
    void aStatefulSetDriftingFromTheBaseFails() {
        expect("collapsed", "differs from base/deployment.yaml's", objects ->
                ((ObjectNode) container(objects).path("resources").path("limits")).put("memory", "2Gi"));
    }

    @Test
    void aTlsFileOutsideASecretFails() {
        expect("sni", "weft.yaml reads /etc/weft-secrets/tls/tls.crt, which is not in a Secret", objects ->
                ((ArrayNode) container(objects).path("volumeMounts")).remove(2));
    }

    @Test
    void aSecretEnvVariableNotSetFails() {
        expect("port-per-broker", "weft.yaml reads env:WEFT_KAFKA_PASSWORD", objects -> ((ArrayNode) container(objects).path("env")).remove(0));
    }

    @Test
    void aMemoryLimitBelowTheConfiguredWorstCaseFails() {
        expect("sni", "memory limit 768Mi is below the worst case", objects ->
                ((ObjectNode) container(objects).path("resources").path("limits")).put("memory", "768Mi"));
    }

    @Test
    void anInvalidWeftConfigFails() {
        expect("sni", "weft.yaml does not load in the pod", objects -> editConfig(objects, "eventLoops: 2", "eventLoop: 2"));
    }

    // Helpers.

    private List<String> check(String overlay, Consumer<List<ObjectNode>> mutation) {
        Path dir = K8S.resolve("overlays").resolve(overlay);
        List<ObjectNode> objects = MiniKustomize.render(dir);
        mutation.accept(objects);
        List<Secret> secrets = new ArrayList<>();
        for (Path d : List.of(K8S.resolve("base"), dir)) {
            try (Stream<Path> s = Files.list(d)) {
                for (Path f : s.filter(p -> p.getFileName().toString().endsWith(".example.yaml")).sorted().toList()) {
                    MiniKustomize.readYaml(f).forEach(doc -> secrets.add((Secret) StrictModel.read(doc, f.toString())));
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        Deployment base = (Deployment) StrictModel.read(find(MiniKustomize.render(K8S.resolve("base")), "Deployment", "weft"), "base");
        PodTemplateSpec baseTemplate = base.getSpec().getTemplate();
        try {
            return WeftManifestChecks.check(overlay, objects, secrets, baseTemplate, Files.createTempDirectory(scratch, overlay));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private void expect(String overlay, String message, Consumer<List<ObjectNode>> mutation) {
        List<String> problems = check(overlay, mutation);
        assertTrue(problems.stream().anyMatch(p -> p.contains(message)), "expected a problem containing '" + message + "', got " + problems);
    }

    private static ObjectNode find(List<ObjectNode> objects, String kind, String name) {
        return objects.stream().filter(o -> o.path("kind").asText().equals(kind) && o.path("metadata").path("name").asText().equals(name))
                .findFirst().orElseThrow(() -> new AssertionError("no " + kind + " " + name));
    }

    private static ObjectNode workload(List<ObjectNode> objects) {
        return objects.stream().filter(o -> o.path("kind").asText().equals("Deployment") || o.path("kind").asText().equals("StatefulSet"))
                .findFirst().orElseThrow();
    }

    private static ObjectNode container(List<ObjectNode> objects) {
        return (ObjectNode) workload(objects).path("spec").path("template").path("spec").path("containers").get(0);
    }

    private static void editConfig(List<ObjectNode> objects, String from, String to) {
        ObjectNode data = (ObjectNode) find(objects, "ConfigMap", "weft-config").path("data");
        String text = data.path("weft.yaml").asText();
        assertTrue(text.contains(from), "weft.yaml has no '" + from + "'");
        data.put("weft.yaml", text.replace(from, to));
    }

    private static Map<String, JsonNode> byKindAndName(List<? extends JsonNode> objects) {
        Map<String, JsonNode> out = new TreeMap<>();
        for (JsonNode o : objects) {
            out.put(o.path("kind").asText() + "/" + o.path("metadata").path("name").asText(), o);
        }
        return out;
    }

    /** kustomize names a generated ConfigMap NAME-<10-character hash> and rewrites its references: undo both. */
    private static JsonNode withoutHashSuffixes(JsonNode node) {
        if (node.isTextual() && node.asText().matches("weft-config-[a-z0-9]{10}")) {
            return TextNode.valueOf("weft-config");
        }
        if (node instanceof ObjectNode o) {
            o.properties().forEach(e -> e.setValue(withoutHashSuffixes(e.getValue())));
        } else if (node instanceof ArrayNode a) {
            for (int i = 0; i < a.size(); i++) {
                a.set(i, withoutHashSuffixes(a.get(i)));
            }
        }
        return node;
    }
}
