package dev.weft.proxy.admin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.weft.proxy.config.HostPort;
import dev.weft.proxy.config.StartupException;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin HTTP endpoint, on the JDK's {@link HttpServer} and one thread of its own ("weft-admin"),
 * which is also the metrics exporter thread (the single reader of every core's histograms):
 *
 * <ul>
 *   <li>{@code GET /metrics}: Prometheus text exposition format (0.0.4), written by the Prometheus
 *       client library from the registry;
 *   <li>{@code GET /livez}: 200 while the process runs;
 *   <li>{@code GET /readyz}: 200 when {@code readiness} says ready, else 503 with one reason per line.
 *
 *   <li>{@code GET /switches}, {@code POST /switches/NAME?to=ROUTE}: the switches, and moving one
 *       ({@link SwitchEndpoint}), once the virtual clusters run.
 *   <li>{@code POST /reload}: reads the config file again and applies what changed ({@link ReloadEndpoint}).
 * </ul>
 *
 * <p>It serves no configuration and nothing else. Bound to localhost unless configured otherwise.
 */
public final class AdminServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);
    private static final String TEXT = "text/plain; charset=utf-8";

    private final HttpServer server;
    private final ExecutorService thread;
    private final PrometheusRegistry registry;
    private final Supplier<Readiness> readiness;
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

    private AdminServer(HttpServer server, ExecutorService thread, PrometheusRegistry registry,
            Supplier<Readiness> readiness) {
        this.server = server;
        this.thread = thread;
        this.registry = registry;
        this.readiness = readiness;
    }

    /**
     * Binds and starts serving.
     *
     * @param bind where to listen; port 0 picks a free port (see {@link #address()})
     * @param configPath where {@code bind} is in the config, for the error message
     * @throws AdminBindException naming the address and the config path when the bind fails
     */
    public static AdminServer start(HostPort bind, String configPath, PrometheusRegistry registry,
            Supplier<Readiness> readiness) {
        InetSocketAddress address = new InetSocketAddress(bind.host(), bind.port());
        HttpServer server;
        try {
            server = HttpServer.create(address, 16);
        } catch (IOException e) {
            throw new AdminBindException(StartupException.bindProblem(configPath, bind, "admin endpoint", e), e);
        }
        ExecutorService thread = Executors.newSingleThreadExecutor(Thread.ofPlatform()
                .name("weft-admin").daemon(true).factory());
        AdminServer admin = new AdminServer(server, thread, registry, readiness);
        server.createContext("/", admin::handle);
        server.setExecutor(thread);
        server.start();
        LOG.info("admin endpoint at http://{}/ (metrics, livez, readyz)", new HostPort(
                server.getAddress().getHostString(), server.getAddress().getPort()));
        return admin;
    }

    /** Serves {@code /switches} (list and move switches, {@link SwitchEndpoint}) from now on. */
    public void serveSwitches(Supplier<dev.weft.proxy.switching.Switches> switches) {
        server.createContext(SwitchEndpoint.PATH, new SwitchEndpoint(switches));
    }

    /** Serves {@code POST /reload} ({@link ReloadEndpoint}) from now on. */
    public void serveReload(Supplier<dev.weft.proxy.reload.ReloadOutcome> reload) {
        server.createContext(ReloadEndpoint.PATH, new ReloadEndpoint(reload));
    }

    /** Where it listens (the actual port when bound to port 0). */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    private void handle(HttpExchange exchange) {
        try (exchange) {
            String method = exchange.getRequestMethod();
            boolean head = "HEAD".equals(method);
            if (!head && !"GET".equals(method)) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                respond(exchange, 405, TEXT, bytes("method " + method + " not allowed (GET, HEAD)\n"), false);
                return;
            }
            switch (exchange.getRequestURI().getPath()) {
                case "/metrics" -> metrics(exchange, head);
                case "/livez" -> respond(exchange, 200, TEXT, bytes("ok\n"), head);
                case "/readyz" -> ready(exchange, head);
                default -> respond(exchange, 404, TEXT, bytes("not found; try /metrics, /livez or /readyz\n"), head);
            }
        } catch (IOException e) {
            LOG.debug("admin endpoint: answering {} failed: {}", exchange.getRequestURI(), e.toString());
        } catch (RuntimeException e) {
            LOG.warn("admin endpoint: {} failed", exchange.getRequestURI(), e);
        }
    }

    private void metrics(HttpExchange exchange, boolean head) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream(16 * 1024);
        try {
            writer.write(body, registry.scrape());
        } catch (RuntimeException e) {
            LOG.warn("admin endpoint: collecting metrics failed", e);
            respond(exchange, 500, TEXT, bytes("collecting metrics failed: " + e + "\n"), head);
            return;
        }
        respond(exchange, 200, writer.getContentType(), body.toByteArray(), head);
    }

    private void ready(HttpExchange exchange, boolean head) throws IOException {
        Readiness now = readiness.get();
        if (now.isReady()) {
            respond(exchange, 200, TEXT, bytes("ready\n"), head);
        } else {
            respond(exchange, 503, TEXT, bytes(String.join("\n", now.reasons()) + "\n"), head);
        }
    }

    private static void respond(HttpExchange exchange, int status, String contentType, byte[] body, boolean head)
            throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        if (head) {
            exchange.sendResponseHeaders(status, -1);
            return;
        }
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Stops listening, ends open exchanges and the admin thread. */
    @Override
    public void close() {
        server.stop(0);
        thread.shutdownNow();
    }

    /** The admin endpoint could not be bound; the message names the address and the config path. */
    public static final class AdminBindException extends StartupException {
        AdminBindException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
