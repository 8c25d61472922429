package dev.weft.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image tarball Jib wrote (image/target/weft-image.tar, profile "image"): its config (non-root user,
 * entrypoint, ports), its file system, and that the image's own JRE and glibc run Weft from it: {@code
 * weft validate}, then {@code weft run} with the image's entrypoint, answering /livez on a native
 * transport (io_uring or epoll, not NIO). As root with unshare and chroot (CI, this machine), the image's
 * file system is the root, with a /proc of its own, as user 65532; without them, the image's ld.so runs
 * the image's java directly with the image's libraries (the class path rewritten under the extract).
 */
class ImageTarballTest {

    static final List<String> ENTRYPOINT = List.of("/opt/java/bin/java", "@/opt/weft/jvm.options", "-cp",
            "@/app/jib-classpath-file", "dev.weft.proxy.cli.WeftMain");
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;
    static Path rootfs;
    static JsonNode config;
    static boolean chroot;

    @BeforeAll
    static void extract() throws Exception {
        Path tar = Path.of(System.getProperty("weft.image.tar", "target/weft-image.tar"));
        assertTrue(Files.isRegularFile(tar), tar + " missing: build it with -Pimage (./weft image)");
        Path image = Files.createDirectories(tmp.resolve("image"));
        run(List.of("tar", "xf", tar.toAbsolutePath().toString(), "-C", image.toString()), 60);
        JsonNode manifest = JSON.readTree(image.resolve("manifest.json").toFile()).get(0);
        config = JSON.readTree(image.resolve(manifest.get("Config").asText()).toFile());
        rootfs = Files.createDirectories(tmp.resolve("rootfs"));
        for (JsonNode layer : manifest.get("Layers")) {
            run(List.of("tar", "xzf", image.resolve(layer.asText()).toString(), "-C", rootfs.toString()), 60);
        }
        Files.createDirectories(rootfs.resolve("proc"));
        chroot = "root".equals(System.getProperty("user.name")) && Files.isExecutable(Path.of("/usr/bin/unshare"))
                && Files.isExecutable(Path.of("/usr/sbin/chroot"));
        if (!chroot) {
            System.err.println("ImageTarballTest: not root or no unshare/chroot: running the image's java through its ld.so");
        }
    }

    @Test
    void configIsNonRootWithWeftsEntrypoint() {
        JsonNode c = config.get("config");
        assertEquals("65532:65532", c.get("User").asText());
        assertEquals(ENTRYPOINT, strings(c.get("Entrypoint")));
        assertEquals(List.of("run", "--config", "/etc/weft/weft.yaml"), strings(c.get("Cmd")));
        assertTrue(c.get("ExposedPorts").has("9190/tcp"), "admin port exposed");
        assertTrue(strings(c.get("Env")).contains("JAVA_HOME=/opt/java"));
        assertEquals("amd64", config.get("architecture").asText());
    }

    @Test
    void fileSystemHasTheJreGlibcAndTheJvmOptions() throws IOException {
        assertTrue(Files.getPosixFilePermissions(rootfs.resolve("opt/java/bin/java")).contains(PosixFilePermission.OTHERS_EXECUTE));
        assertTrue(Files.isRegularFile(rootfs.resolve("lib64/ld-linux-x86-64.so.2")));
        assertTrue(Files.isRegularFile(rootfs.resolve("lib/x86_64-linux-gnu/libc.so.6")));
        assertTrue(Files.isRegularFile(rootfs.resolve("opt/java/lib/server/classes.jsa")), "the JRE's CDS archive");
        assertTrue(Files.readString(rootfs.resolve("etc/passwd")).contains(":65532:65532:"));
        assertTrue(Files.getPosixFilePermissions(rootfs.resolve("tmp")).contains(PosixFilePermission.OTHERS_WRITE));
        assertFalse(Files.exists(rootfs.resolve("bin/sh")), "no shell");
        // proxy's jvm.options, comments dropped, without the class-data archive lines (see rootfs.sh).
        List<String> expected = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(System.getProperty("weft.jvm.options")))) {
            String option = line.replaceAll("#.*", "").strip();
            if (!option.isEmpty() && !option.contains("SharedArchive")) {
                expected.add(option);
            }
        }
        assertEquals(expected, Files.readAllLines(rootfs.resolve("opt/weft/jvm.options")));
        assertTrue(expected.contains("-Xmx512m") && expected.contains("--enable-native-access=ALL-UNNAMED"));
        String classPath = Files.readString(rootfs.resolve("app/jib-classpath-file"));
        assertTrue(classPath.startsWith("/app/resources:/app/classes:/app/libs/weft-proxy.jar:"), classPath);
        assertTrue(classPath.contains("netty-transport-native-io_uring") && classPath.contains("jackson-databind"), classPath);
    }

    @Test
    void weftValidatesAndRunsOnTheImagesJre() throws Exception {
        int admin = freePort();
        int gateway = freePort();
        Path dir = Files.createDirectories(rootfs.resolve("etc/weft"));
        Files.writeString(dir.resolve("weft.yaml"), """
                admin: { enabled: true, bind: "127.0.0.1:%d" }
                clusters:
                  east: { bootstrap: "127.0.0.1:1" }
                virtualClusters:
                  main:
                    target: { cluster: east }
                    gateways:
                      - { name: plain, bind: "127.0.0.1:%d", brokerPorts: { start: %d, nodeIds: "0-0" } }
                """.formatted(admin, gateway, freePort()));
        Files.writeString(dir.resolve("bad.yaml"), "clusters: {}\nvirtualClusters: { main: { target: { cluster: west } } }\n");

        Result version = run(command(List.of("/opt/java/bin/java", "-version")), 60);
        assertEquals(0, version.exit, version.output);
        assertTrue(version.output.contains("25."), version.output);

        Result valid = run(command(weft("validate", "/etc/weft/weft.yaml")), 60);
        assertEquals(0, valid.exit, valid.output);
        assertTrue(valid.output.contains("/etc/weft/weft.yaml: valid"), valid.output);
        Result invalid = run(command(weft("validate", "/etc/weft/bad.yaml")), 60);
        assertEquals(2, invalid.exit, invalid.output);
        assertTrue(invalid.output.contains("no cluster named 'west'"), invalid.output);

        // The image's own command (run --config /etc/weft/weft.yaml), until /livez answers.
        List<String> cmd = new ArrayList<>(ENTRYPOINT);
        cmd.addAll(strings(config.get("config").get("Cmd")));
        Path log = tmp.resolve("run.log");
        Process proxy = new ProcessBuilder(command(cmd)).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            HttpClient http = HttpClient.newHttpClient();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                try {
                    HttpResponse<String> live = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin + "/livez"))
                            .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                    assertEquals(200, live.statusCode());
                    break;
                } catch (IOException notYet) {
                    if (!proxy.isAlive() || System.nanoTime() > deadline) {
                        fail("no /livez from the image's weft run: " + Files.readString(log));
                    }
                    Thread.sleep(200);
                }
            }
            String out = Files.readString(log);
            assertTrue(out.matches("(?s).*event loops started on (io_uring|epoll).*"), "a native transport loads: " + out);
            assertFalse(out.contains("UnsatisfiedLinkError"), out);
        } finally {
            // SIGTERM to the JVM itself (unshare does not forward it): Weft's clean shutdown.
            proxy.descendants().filter(p -> p.info().command().orElse("").endsWith("/java")).forEach(ProcessHandle::destroy);
            proxy.destroy();
            if (!proxy.waitFor(30, TimeUnit.SECONDS)) {
                proxy.descendants().forEach(ProcessHandle::destroyForcibly);
                proxy.destroyForcibly();
                fail("weft run did not stop on SIGTERM: " + Files.readString(log));
            }
        }
    }

    static List<String> weft(String... args) {
        List<String> cmd = new ArrayList<>(ENTRYPOINT);
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** A command as the image runs it: in its file system (chroot), else through its ld.so from outside. */
    static List<String> command(List<String> imageCommand) throws IOException {
        List<String> cmd = new ArrayList<>();
        if (chroot) {
            cmd.addAll(List.of("/usr/bin/env", "-i", "/usr/bin/unshare", "--mount", "--pid", "--fork",
                    "--mount-proc=" + rootfs.resolve("proc"), "/usr/sbin/chroot", "--userspec=65532:65532", rootfs.toString()));
            cmd.addAll(imageCommand);
            return cmd;
        }
        cmd.addAll(List.of(rootfs.resolve("lib64/ld-linux-x86-64.so.2").toString(), "--library-path",
                rootfs.resolve("lib/x86_64-linux-gnu") + ":" + rootfs.resolve("opt/java/lib")));
        for (String arg : imageCommand) {
            if (arg.equals("@/app/jib-classpath-file")) {
                Path cp = tmp.resolve("classpath-outside");
                Files.writeString(cp, Files.readString(rootfs.resolve("app/jib-classpath-file")).strip()
                        .replace("/app/", rootfs.resolve("app") + "/"));
                arg = "@" + cp;
            } else if (arg.startsWith("@/") || arg.startsWith("/opt/") || arg.startsWith("/etc/")) {
                arg = (arg.startsWith("@") ? "@" : "") + rootfs.resolve(arg.replaceFirst("^@?/", ""));
            }
            cmd.add(arg);
        }
        return cmd;
    }

    record Result(int exit, String output) {}

    static Result run(List<String> cmd, int timeoutSeconds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("timed out: " + cmd);
        }
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    static List<String> strings(JsonNode array) {
        List<String> list = new ArrayList<>();
        array.forEach(n -> list.add(n.asText()));
        return list;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
