package dev.weft.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.proxy.config.ConfigException;
import dev.weft.proxy.config.ConfigLoader;
import dev.weft.proxy.config.WeftConfig;
import dev.weft.proxy.config.WeftConfig.GatewayConfig;
import dev.weft.proxy.config.WeftConfig.NodeAddressing;
import dev.weft.proxy.config.WeftConfig.Topology;
import dev.weft.proxy.config.WeftConfig.VirtualClusterConfig;
import dev.weft.routing.node.ProxyNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What must hold between a rendered overlay and the weft.yaml inside it, beyond each object being valid
 * Kubernetes ({@link StrictModel}): the config loads with Weft's own {@link ConfigLoader} from the files
 * the pod would have; every port the config listens on is a container port and nothing else is; the
 * Services expose each gateway's ports (port-per-broker: one per virtual node id; SNI: the advertised
 * port) under the host names the config advertises; a collapsed virtual cluster's nodes are the
 * StatefulSet's pods (ordinal = node id) under its headless Service; probes and scrape annotations point
 * at {@code admin.bind}; secrets the config reads come from Secrets; the memory limit holds the
 * configured worst case. Each check returns problems as lines naming the overlay; none is a pass.
 */
final class WeftManifestChecks {

    /** The image's config path: its entrypoint runs {@code WeftMain run --config /etc/weft/weft.yaml}. */
    static final String CONFIG_PATH = "/etc/weft/weft.yaml";
    /** jvm.options' -Xmx512m, and what code, metaspace, thread stacks and the idle pool take besides (perf-reports). */
    static final long HEAP_CAP = 512L << 20;
    static final long NON_HEAP = 128L << 20;
    /** The image's user (the Jib build's non-root uid). */
    static final long IMAGE_UID = 65532;

    private final String overlay;
    private final List<String> problems = new ArrayList<>();

    private WeftManifestChecks(String overlay) {
        this.overlay = overlay;
    }

    /**
     * @param rendered the overlay's objects as kustomize renders them
     * @param secrets the Secrets an operator creates beside them (the *.example.yaml files)
     * @param baseTemplate base/deployment.yaml's pod template, rendered: a StatefulSet's must equal it but for ports
     * @param scratch an empty directory to lay out the files the pod would see
     */
    static List<String> check(String overlay, List<ObjectNode> rendered, List<Secret> secrets, PodTemplateSpec baseTemplate,
            Path scratch) {
        WeftManifestChecks c = new WeftManifestChecks(overlay);
        List<HasMetadata> objects = new ArrayList<>();
        for (ObjectNode raw : rendered) {
            try {
                objects.add(StrictModel.read(raw, overlay));
            } catch (IllegalArgumentException e) {
                c.problem(e.getMessage());
            }
        }
        if (c.problems.isEmpty()) {
            c.run(objects, secrets, baseTemplate, scratch);
        }
        return c.problems;
    }

    private void problem(String message) {
        problems.add(message.startsWith(overlay) ? message : overlay + ": " + message);
    }

    private <T> List<T> all(List<HasMetadata> objects, Class<T> type) {
        return objects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    private void run(List<HasMetadata> objects, List<Secret> secrets, PodTemplateSpec baseTemplate, Path scratch) {
        List<Deployment> deployments = all(objects, Deployment.class);
        List<StatefulSet> statefulSets = all(objects, StatefulSet.class);
        if (deployments.size() + statefulSets.size() != 1) {
            problem("expected exactly one workload (a Deployment or a StatefulSet), found " + deployments.size() + " and "
                    + statefulSets.size());
            return;
        }
        HasMetadata workload = deployments.isEmpty() ? statefulSets.getFirst() : deployments.getFirst();
        PodTemplateSpec template = deployments.isEmpty() ? statefulSets.getFirst().getSpec().getTemplate()
                : deployments.getFirst().getSpec().getTemplate();
        String namespace = workload.getMetadata().getNamespace();
        if (namespace == null) {
            problem("the overlay sets no namespace (host names in weft.yaml name it)");
            return;
        }
        Map<String, String> podLabels = template.getMetadata().getLabels();
        var pod = template.getSpec();
        if (pod.getContainers().size() != 1) {
            problem("the pod should run one container (weft), runs " + pod.getContainers().size());
            return;
        }
        Container weft = pod.getContainers().getFirst();
        Map<String, Object> selector = new LinkedHashMap<>();
        selector.putAll(deployments.isEmpty() ? statefulSets.getFirst().getSpec().getSelector().getMatchLabels()
                : deployments.getFirst().getSpec().getSelector().getMatchLabels());
        if (!matches(selector, podLabels)) {
            problem(kindName(workload) + ": spec.selector does not match its pod template's labels");
        }
        if (pod.getSecurityContext() == null || !Boolean.TRUE.equals(pod.getSecurityContext().getRunAsNonRoot())
                || !Objects.equals(pod.getSecurityContext().getRunAsUser(), IMAGE_UID)) {
            problem("the pod must run as non-root user " + IMAGE_UID + " (the image's user)");
        }

        // The files the pod sees, and weft.yaml among them.
        Map<String, String> mountSources = new LinkedHashMap<>(); // mount path -> "Secret x" / "ConfigMap y"
        String configText = null;
        Map<String, Volume> volumes = new LinkedHashMap<>();
        for (Volume v : pod.getVolumes()) {
            volumes.put(v.getName(), v);
        }
        List<ConfigMap> configMaps = all(objects, ConfigMap.class);
        for (VolumeMount mount : weft.getVolumeMounts()) {
            Volume v = volumes.get(mount.getName());
            if (v == null) {
                problem("volumeMount '" + mount.getName() + "' names no volume of the pod");
                continue;
            }
            Map<String, String> files = null;
            if (v.getConfigMap() != null) {
                ConfigMap cm = configMaps.stream().filter(m -> m.getMetadata().getName().equals(v.getConfigMap().getName()))
                        .findFirst().orElse(null);
                if (cm == null) {
                    problem("volume '" + v.getName() + "' mounts ConfigMap '" + v.getConfigMap().getName() + "', which the overlay does not define");
                    continue;
                }
                files = cm.getData() == null ? Map.of() : cm.getData();
                mountSources.put(mount.getMountPath(), "ConfigMap " + cm.getMetadata().getName());
                if ((mount.getMountPath() + "/weft.yaml").equals(CONFIG_PATH) && files.containsKey("weft.yaml")) {
                    configText = files.get("weft.yaml");
                }
            } else if (v.getSecret() != null) {
                Secret s = secret(secrets, v.getSecret().getSecretName());
                if (s == null) {
                    problem("volume '" + v.getName() + "' mounts Secret '" + v.getSecret().getSecretName()
                            + "', which no *.example.yaml describes");
                    continue;
                }
                files = secretData(s);
                mountSources.put(mount.getMountPath(), "Secret " + s.getMetadata().getName());
            }
            if (v.getConfigMap() != null && v.getConfigMap().getItems() != null && !v.getConfigMap().getItems().isEmpty()
                    || v.getSecret() != null && v.getSecret().getItems() != null && !v.getSecret().getItems().isEmpty()) {
                problem("volume '" + v.getName() + "': 'items' is not supported by this check (mount every key)");
            }
            if (files != null) {
                for (Map.Entry<String, String> f : files.entrySet()) {
                    write(scratch.resolve(mount.getMountPath().substring(1)).resolve(f.getKey()), f.getValue());
                }
            }
        }
        if (configText == null) {
            problem("no ConfigMap with a key weft.yaml is mounted so that the image finds it at " + CONFIG_PATH);
            return;
        }
        String localText = configText;
        for (Map.Entry<String, String> m : mountSources.entrySet()) {
            if (m.getValue().startsWith("Secret ")) {
                localText = localText.replace(m.getKey() + "/", scratch + m.getKey() + "/");
            }
        }
        checkSecrets(configText, weft, secrets, mountSources, scratch);
        WeftConfig config;
        try {
            config = ConfigLoader.parse(localText, overlay + "/weft.yaml");
        } catch (ConfigException e) {
            e.problems().forEach(p -> problem("weft.yaml does not load in the pod: " + p.replace(scratch.toString(), "")));
            return;
        }

        // Admin endpoint, probes, scraping.
        Map<String, Integer> namedPorts = new LinkedHashMap<>();
        Set<Integer> containerPorts = new TreeSet<>();
        for (ContainerPort p : weft.getPorts()) {
            if (p.getName() != null && namedPorts.put(p.getName(), p.getContainerPort()) != null) {
                problem("container port name '" + p.getName() + "' is used twice");
            }
            if (!containerPorts.add(p.getContainerPort())) {
                problem("container port " + p.getContainerPort() + " is listed twice");
            }
        }
        Set<Integer> expectedPorts = new TreeSet<>();
        int adminPort = -1;
        if (config.admin() == null || !config.admin().enabled()) {
            problem("weft.yaml: admin must be enabled (the probes use /livez and /readyz)");
        } else {
            adminPort = config.admin().bind().port();
            expectedPorts.add(adminPort);
            String host = config.admin().bind().host();
            if (!host.equals("0.0.0.0") && !host.equals("::")) {
                problem("weft.yaml: admin.bind is " + config.admin().bind() + ": in a container it must be 0.0.0.0:PORT"
                        + " (the kubelet's probes and Prometheus come from outside the pod)");
            }
        }
        probe("livenessProbe", weft.getLivenessProbe(), "/livez", adminPort, namedPorts, true);
        probe("readinessProbe", weft.getReadinessProbe(), "/readyz", adminPort, namedPorts, true);
        probe("startupProbe", weft.getStartupProbe(), "/livez", adminPort, namedPorts, false);
        Map<String, String> annotations = template.getMetadata().getAnnotations() == null ? Map.of()
                : template.getMetadata().getAnnotations();
        if (annotations.containsKey("prometheus.io/port") && !annotations.get("prometheus.io/port").equals(String.valueOf(adminPort))) {
            problem("annotation prometheus.io/port is " + annotations.get("prometheus.io/port") + ", admin.bind's port is " + adminPort);
        }

        // Resources and shutdown.
        var server = config.server();
        if (server.eventLoops() <= 0) {
            problem("weft.yaml: server.eventLoops must be set (> 0): without a CPU limit the JVM sees the node's cores");
        }
        var resources = weft.getResources();
        Map<String, Quantity> requests = resources == null || resources.getRequests() == null ? Map.of() : resources.getRequests();
        Map<String, Quantity> limits = resources == null || resources.getLimits() == null ? Map.of() : resources.getLimits();
        if (!requests.containsKey("cpu") || !requests.containsKey("memory")) {
            problem("the container needs cpu and memory requests (the HPA scales on CPU utilization of the request)");
        }
        if (!limits.containsKey("memory")) {
            problem("the container needs a memory limit");
        } else {
            long need = HEAP_CAP + Math.max(1, server.eventLoops()) * server.maxPartialFrameBytesPerCore() + NON_HEAP;
            BigDecimal limit = Quantity.getAmountInBytes(limits.get("memory"));
            if (limit.compareTo(BigDecimal.valueOf(need)) < 0) {
                problem("memory limit " + limits.get("memory") + " is below the worst case of weft.yaml: heap cap 512 MiB + "
                        + Math.max(1, server.eventLoops()) + " event loops x maxPartialFrameBytesPerCore "
                        + (server.maxPartialFrameBytesPerCore() >> 20) + " MiB + 128 MiB = " + (need >> 20) + " MiB");
            }
        }
        long grace = pod.getTerminationGracePeriodSeconds() == null ? 30 : pod.getTerminationGracePeriodSeconds();
        if (grace * 1000 <= server.drainTimeoutMillis()) {
            problem("terminationGracePeriodSeconds " + grace + " does not leave server.drainTimeoutMs " + server.drainTimeoutMillis()
                    + " ms to drain");
        }

        // Services: each selects the pods and sends every port to a container port.
        List<Service> services = all(objects, Service.class);
        for (Service s : services) {
            Map<String, Object> sel = new LinkedHashMap<>();
            if (s.getSpec().getSelector() != null) {
                sel.putAll(s.getSpec().getSelector());
            }
            if (sel.isEmpty() || !matches(sel, podLabels)) {
                problem(kindName(s) + ": its selector " + sel + " does not select the Weft pods " + podLabels);
            }
            for (ServicePort p : s.getSpec().getPorts()) {
                if (targetPort(p, namedPorts) < 0 || !containerPorts.contains(targetPort(p, namedPorts))) {
                    problem(kindName(s) + " port " + p.getPort() + ": targetPort " + text(p.getTargetPort())
                            + " is not a port of the weft container " + namedPorts);
                }
            }
        }

        // Gateways against ports, Services and names.
        for (VirtualClusterConfig vc : config.virtualClusters().values()) {
            for (GatewayConfig g : vc.gateways()) {
                String what = "virtualClusters." + vc.name() + ".gateways '" + g.name() + "'";
                expectedPorts.add(g.bind().port());
                if (vc.topology() == Topology.COLLAPSED) {
                    continue;
                }
                if (g.nodes() == NodeAddressing.PORT_PER_BROKER) {
                    List<Integer> ports = new ArrayList<>();
                    ports.add(g.bind().port());
                    for (int n = g.nodeIds().first(); n <= g.nodeIds().last(); n++) {
                        ports.add(g.brokerPort(n));
                        expectedPorts.add(g.brokerPort(n));
                    }
                    Service s = services.stream().filter(svc -> ports.stream().allMatch(p -> exposes(svc, p, p, namedPorts)))
                            .findFirst().orElse(null);
                    if (s == null) {
                        problem(what + ": no Service exposes the bootstrap port and one port per node id " + g.nodeIds()
                                + " (port = targetPort: " + ports + ")");
                    } else if (!hostNames(s, namespace).contains(g.advertisedHost())) {
                        problem(what + ": advertisedHost " + g.advertisedHost() + " is not a name of Service "
                                + s.getMetadata().getName() + " " + hostNames(s, namespace));
                    }
                } else {
                    var sni = g.sni();
                    Service s = services.stream().filter(svc -> exposes(svc, sni.advertisedPort(), g.bind().port(), namedPorts))
                            .findFirst().orElse(null);
                    if (s == null) {
                        problem(what + ": no Service exposes sni.advertisedPort " + sni.advertisedPort() + " -> bind port "
                                + g.bind().port());
                    } else {
                        List<String> names = hostNames(s, namespace);
                        for (String host : List.of(sni.bootstrapHost(), sni.brokerHost(0), sni.brokerHost(12345))) {
                            if (names.stream().noneMatch(n -> covers(n, host))) {
                                problem(what + ": " + host + " is not a name of Service " + s.getMetadata().getName() + " " + names);
                            }
                        }
                    }
                }
            }
            if (vc.topology() == Topology.COLLAPSED) {
                collapsed(vc, statefulSets, services, namedPorts, namespace, objects);
            }
        }
        if (!expectedPorts.equals(containerPorts)) {
            problem("container ports " + containerPorts + " are not the ports weft.yaml listens on " + expectedPorts);
        }

        // Scale-out: PDB always, HPA on CPU for a Deployment, none for a StatefulSet of fixed node ids.
        List<PodDisruptionBudget> pdbs = all(objects, PodDisruptionBudget.class);
        if (pdbs.size() != 1 || !matches(new LinkedHashMap<>(pdbs.getFirst().getSpec().getSelector().getMatchLabels()), podLabels)) {
            problem("expected one PodDisruptionBudget selecting the Weft pods");
        }
        List<HorizontalPodAutoscaler> hpas = all(objects, HorizontalPodAutoscaler.class);
        if (workload instanceof Deployment) {
            if (hpas.size() != 1) {
                problem("a Deployment overlay needs one HorizontalPodAutoscaler, has " + hpas.size());
            } else {
                var ref = hpas.getFirst().getSpec().getScaleTargetRef();
                if (!"Deployment".equals(ref.getKind()) || !workload.getMetadata().getName().equals(ref.getName())
                        || !"apps/v1".equals(ref.getApiVersion())) {
                    problem("the HPA scales " + ref.getApiVersion() + " " + ref.getKind() + " " + ref.getName() + ", not the Deployment");
                }
                if (hpas.getFirst().getSpec().getMetrics().stream().noneMatch(m -> m.getResource() != null
                        && "cpu".equals(m.getResource().getName()))) {
                    problem("the HPA must scale on CPU");
                }
            }
        } else if (!hpas.isEmpty()) {
            problem("a StatefulSet's size is weft.yaml's node list: no HPA may scale it");
        }
        if (workload instanceof StatefulSet && baseTemplate != null) {
            JsonNode mine = withoutPorts(template);
            JsonNode base = withoutPorts(baseTemplate);
            if (!mine.equals(base)) {
                problem("the StatefulSet's pod template differs from base/deployment.yaml's (ports aside): "
                        + firstDifference(base, mine, ""));
            }
        }
    }

    private void collapsed(VirtualClusterConfig vc, List<StatefulSet> statefulSets, List<Service> services,
            Map<String, Integer> namedPorts, String namespace, List<HasMetadata> objects) {
        String what = "virtualClusters." + vc.name();
        if (statefulSets.size() != 1) {
            problem(what + ": a collapsed virtual cluster runs as a StatefulSet (ordinal = node id)");
            return;
        }
        StatefulSet sts = statefulSets.getFirst();
        int replicas = sts.getSpec().getReplicas() == null ? 1 : sts.getSpec().getReplicas();
        List<Integer> ids = vc.nodes().stream().map(ProxyNode::id).sorted().toList();
        List<Integer> ordinals = java.util.stream.IntStream.range(0, replicas).boxed().toList();
        if (!ids.equals(ordinals)) {
            problem(what + ".nodes: ids " + ids + " are not the StatefulSet's ordinals " + ordinals + " (replicas " + replicas + ")");
        }
        String serviceName = sts.getSpec().getServiceName();
        Service headless = services.stream().filter(s -> s.getMetadata().getName().equals(serviceName)).findFirst().orElse(null);
        if (headless == null || !"None".equals(headless.getSpec().getClusterIP())) {
            problem("StatefulSet serviceName '" + serviceName + "' is not a headless Service (clusterIP: None) of the overlay");
            return;
        }
        Set<Integer> bindPorts = new TreeSet<>();
        vc.gateways().forEach(g -> bindPorts.add(g.bind().port()));
        for (ProxyNode node : vc.nodes()) {
            String pod = sts.getMetadata().getName() + "-" + node.id() + "." + serviceName + "." + namespace + ".svc";
            if (!node.host().equals(pod) && !node.host().equals(pod + ".cluster.local")) {
                problem(what + ".nodes id " + node.id() + ": address " + node.hostPort() + " is not pod " + node.id()
                        + "'s name " + pod + ".cluster.local");
            }
            if (!bindPorts.contains(node.port())) {
                problem(what + ".nodes id " + node.id() + ": port " + node.port() + " is no gateway's bind port " + bindPorts);
            }
            if (!exposes(headless, node.port(), node.port(), namedPorts)) {
                problem(what + ".nodes id " + node.id() + ": Service " + serviceName + " does not expose port " + node.port());
            }
        }
    }

    private void checkSecrets(String configText, Container weft, List<Secret> secrets, Map<String, String> mountSources, Path scratch) {
        Map<String, EnvVar> env = new LinkedHashMap<>();
        weft.getEnv().forEach(e -> env.put(e.getName(), e));
        for (EnvVar e : weft.getEnv()) {
            if (e.getValueFrom() != null && e.getValueFrom().getSecretKeyRef() != null) {
                var ref = e.getValueFrom().getSecretKeyRef();
                Secret s = secret(secrets, ref.getName());
                if (s == null || !secretData(s).containsKey(ref.getKey())) {
                    problem("env " + e.getName() + " reads key '" + ref.getKey() + "' of Secret '" + ref.getName()
                            + "', which no *.example.yaml has");
                }
            }
        }
        List<String> strings = new ArrayList<>();
        strings(MiniKustomize.parseYaml(configText, overlay + "/weft.yaml").getFirst(), strings);
        for (String value : strings) {
            if (value.startsWith("env:")) {
                EnvVar e = env.get(value.substring(4));
                if (e == null || e.getValueFrom() == null || e.getValueFrom().getSecretKeyRef() == null) {
                    problem("weft.yaml reads " + value + ": the container must set it from a Secret (env valueFrom.secretKeyRef)");
                }
            } else if (value.startsWith("/") || value.startsWith("file:/")) {
                String path = value.startsWith("file:") ? value.substring(5) : value;
                String mount = mountSources.keySet().stream().filter(m -> path.startsWith(m + "/")).findFirst().orElse(null);
                if (mount == null || !mountSources.get(mount).startsWith("Secret ")) {
                    problem("weft.yaml reads " + path + ", which is not in a Secret mounted in the container"
                            + (mount == null ? "" : " (it is in " + mountSources.get(mount) + ")"));
                } else if (!Files.isRegularFile(scratch.resolve(path.substring(1)))) {
                    problem("weft.yaml reads " + path + ": " + mountSources.get(mount) + " mounted at " + mount + " has no key "
                            + path.substring(mount.length() + 1));
                }
            }
        }
    }

    private void probe(String name, Probe p, String path, int adminPort, Map<String, Integer> namedPorts, boolean required) {
        if (p == null) {
            if (required) {
                problem("the container has no " + name + " (GET " + path + " on the admin port)");
            }
            return;
        }
        if (p.getHttpGet() == null || !path.equals(p.getHttpGet().getPath())) {
            problem(name + " must be httpGet " + path + ", is " + (p.getHttpGet() == null ? "not httpGet" : p.getHttpGet().getPath()));
            return;
        }
        int port = resolve(p.getHttpGet().getPort(), namedPorts);
        if (port != adminPort) {
            problem(name + " port " + text(p.getHttpGet().getPort()) + " is not admin.bind's port " + adminPort);
        }
    }

    private static boolean exposes(Service s, int port, int containerPort, Map<String, Integer> namedPorts) {
        return s.getSpec().getPorts().stream().anyMatch(p -> p.getPort() == port && targetPort(p, namedPorts) == containerPort
                && (p.getProtocol() == null || p.getProtocol().equals("TCP")));
    }

    private static int targetPort(ServicePort p, Map<String, Integer> namedPorts) {
        return p.getTargetPort() == null ? p.getPort() : resolve(p.getTargetPort(), namedPorts);
    }

    private static int resolve(IntOrString port, Map<String, Integer> namedPorts) {
        if (port == null) {
            return -1;
        }
        if (port.getIntVal() != null) {
            return port.getIntVal();
        }
        return namedPorts.getOrDefault(port.getStrVal(), -1);
    }

    private static String text(IntOrString port) {
        return port == null ? "(none)" : String.valueOf(port.getValue());
    }

    /** The names a Service answers to: its cluster DNS names and what external-dns publishes for it. */
    private static List<String> hostNames(Service s, String namespace) {
        List<String> names = new ArrayList<>();
        String base = s.getMetadata().getName() + "." + namespace + ".svc";
        names.add(base);
        names.add(base + ".cluster.local");
        Map<String, String> annotations = s.getMetadata().getAnnotations();
        if (annotations != null && annotations.containsKey("external-dns.alpha.kubernetes.io/hostname")) {
            for (String n : annotations.get("external-dns.alpha.kubernetes.io/hostname").split(",")) {
                names.add(n.trim());
            }
        }
        return names;
    }

    /** Whether DNS name {@code name} (possibly a wildcard {@code *.example.com}) resolves {@code host}. */
    private static boolean covers(String name, String host) {
        if (name.equalsIgnoreCase(host)) {
            return true;
        }
        int dot = host.indexOf('.');
        return name.startsWith("*.") && dot > 0 && host.substring(dot).equalsIgnoreCase(name.substring(1));
    }

    private static boolean matches(Map<String, Object> selector, Map<String, String> labels) {
        return labels != null && selector.entrySet().stream().allMatch(e -> Objects.equals(labels.get(e.getKey()), e.getValue()));
    }

    private static Secret secret(List<Secret> secrets, String name) {
        return secrets.stream().filter(s -> s.getMetadata().getName().equals(name)).findFirst().orElse(null);
    }

    private static Map<String, String> secretData(Secret s) {
        Map<String, String> out = new LinkedHashMap<>();
        if (s.getData() != null) {
            s.getData().forEach((k, v) -> out.put(k, new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8)));
        }
        if (s.getStringData() != null) {
            out.putAll(s.getStringData());
        }
        return out;
    }

    private static String kindName(HasMetadata o) {
        return o.getKind() + " " + o.getMetadata().getName();
    }

    private static void strings(JsonNode node, List<String> out) {
        if (node.isTextual()) {
            out.add(node.asText());
        }
        for (JsonNode child : node) {
            strings(child, out);
        }
    }

    private static JsonNode withoutPorts(PodTemplateSpec template) {
        ObjectNode tree = StrictModel.JSON.valueToTree(template);
        for (JsonNode c : tree.path("spec").path("containers")) {
            ((ObjectNode) c).remove("ports");
        }
        return tree;
    }

    private static String firstDifference(JsonNode a, JsonNode b, String path) {
        if (a.isObject() && b.isObject()) {
            Set<String> keys = new TreeSet<>();
            a.fieldNames().forEachRemaining(keys::add);
            b.fieldNames().forEachRemaining(keys::add);
            for (String k : keys) {
                if (!a.path(k).equals(b.path(k))) {
                    return firstDifference(a.path(k), b.path(k), path + "." + k);
                }
            }
        } else if (a.isArray() && b.isArray() && a.size() == b.size()) {
            for (int i = 0; i < a.size(); i++) {
                if (!a.get(i).equals(b.get(i))) {
                    return firstDifference(a.get(i), b.get(i), path + "[" + i + "]");
                }
            }
        }
        return path.substring(Math.min(1, path.length())) + ": " + a + " vs " + b;
    }

    private static void write(Path file, String content) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
