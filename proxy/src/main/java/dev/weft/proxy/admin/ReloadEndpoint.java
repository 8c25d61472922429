package dev.weft.proxy.admin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.weft.proxy.reload.ReloadOutcome;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /reload}: reads the config file again and applies what changed (as SIGHUP does). 200 with
 * what was done, one line each; 422 with every reason when the new file is refused (the old config keeps
 * serving). The reload runs on a thread of its own: it may take seconds (new clusters' topics are
 * listed), and probes and scrapes must not wait behind it.
 */
final class ReloadEndpoint implements HttpHandler {

    static final String PATH = "/reload";
    private static final Logger LOG = LoggerFactory.getLogger(ReloadEndpoint.class);

    private final Supplier<ReloadOutcome> reload;

    ReloadEndpoint(Supplier<ReloadOutcome> reload) {
        this.reload = reload;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        if (!"POST".equals(exchange.getRequestMethod())) {
            exchange.getResponseHeaders().set("Allow", "POST");
            answer(exchange, 405, "method " + exchange.getRequestMethod() + " not allowed (POST reloads the config file)\n");
            return;
        }
        Thread.ofVirtual().name("weft-admin-reload").start(() -> {
            try {
                ReloadOutcome outcome = reload.get();
                answer(exchange, outcome.applied() ? 200 : 422, (outcome.applied() ? "applied" : "refused; the running config keeps serving")
                        + "\n" + String.join("\n", outcome.lines()) + (outcome.lines().isEmpty() ? "" : "\n"));
            } catch (IOException e) {
                LOG.debug("admin endpoint: answering {} failed: {}", PATH, e.toString());
            } catch (RuntimeException e) {
                LOG.warn("admin endpoint: {} failed", PATH, e);
                try {
                    answer(exchange, 500, "reload failed: " + e + "\n");
                } catch (IOException ignored) {
                    // the client went away
                }
            }
        });
    }

    private static void answer(HttpExchange exchange, int status, String text) throws IOException {
        try (exchange) {
            byte[] body = text.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            exchange.getResponseHeaders().set("Cache-Control", "no-store");
            exchange.sendResponseHeaders(status, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }
}
