package dev.weft.proxy.admin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.weft.proxy.switching.CutoverOutcome;
import dev.weft.proxy.switching.SwitchController;
import dev.weft.proxy.switching.Switches;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /switches} on the admin endpoint:
 * <ul>
 *   <li>{@code GET /switches}: one line per switch (active route, epoch, fenced, switches, aborts);
 *   <li>{@code POST /switches/NAME?to=ROUTE[&force=true]}: runs a cutover and streams its progress, one
 *       line per step; the last line starts with {@code switched:} or {@code aborted:}. 404 for an unknown
 *       switch, 400 for an unknown or already active route, 409 while another cutover runs.
 * </ul>
 * The cutover runs on the switch's own thread, which writes the answer: the admin thread (also the
 * metrics exporter) is never held by it.
 */
final class SwitchEndpoint implements HttpHandler {

    private static final Logger LOG = LoggerFactory.getLogger(SwitchEndpoint.class);
    static final String PATH = "/switches";
    private static final String TEXT = "text/plain; charset=utf-8";

    private final Supplier<Switches> switches;

    SwitchEndpoint(Supplier<Switches> switches) {
        this.switches = switches;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        boolean handedOver = false;
        try {
            String method = exchange.getRequestMethod();
            String rest = exchange.getRequestURI().getPath().substring(PATH.length());
            Switches all = switches.get();
            if (all == null) {
                answer(exchange, 503, "the proxy is still starting\n");
            } else if (rest.isEmpty() || rest.equals("/")) {
                if (!"GET".equals(method)) {
                    exchange.getResponseHeaders().set("Allow", "GET");
                    answer(exchange, 405, "GET " + PATH + " lists the switches; POST " + PATH + "/NAME?to=ROUTE moves one\n");
                } else {
                    answer(exchange, 200, list(all));
                }
            } else if (!"POST".equals(method)) {
                exchange.getResponseHeaders().set("Allow", "POST");
                answer(exchange, 405, "POST " + PATH + "/NAME?to=ROUTE[&force=true] moves a switch\n");
            } else {
                handedOver = post(exchange, all, rest.substring(1));
            }
        } finally {
            if (!handedOver) {
                exchange.close();
            }
        }
    }

    /** @return true when the cutover's thread owns the exchange now */
    private boolean post(HttpExchange exchange, Switches all, String name) throws IOException {
        SwitchController controller = all.get(name);
        if (controller == null) {
            answer(exchange, 404, "no switch named '" + name + "' (switches: "
                    + String.join(", ", all.all().stream().map(SwitchController::name).toList()) + ")\n");
            return false;
        }
        Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
        String to = query.get("to");
        if (to == null || to.isBlank()) {
            answer(exchange, 400, "say which route to move switch '" + name + "' to: ?to=ROUTE\n");
            return false;
        }
        Progress progress = new Progress(exchange);
        try {
            controller.switchTo(to, "true".equals(query.get("force")), progress::line)
                    .whenComplete((outcome, error) -> progress.finish(outcome, error));
            return true;
        } catch (SwitchController.RefusedException e) {
            answer(exchange, e.conflict() ? 409 : 400, e.getMessage() + "\n");
            return false;
        }
    }

    private static String list(Switches all) {
        StringBuilder b = new StringBuilder();
        for (SwitchController c : all.all()) {
            SwitchController.Status s = c.status();
            b.append(s.name()).append(": active=").append(s.activeRoute()).append(" routes=").append(String.join(",", s.routes()))
                    .append(" epoch=").append(s.epoch()).append(" fenced=").append(s.fenced()).append(" switching=").append(s.switching())
                    .append(" switches=").append(s.switches()).append(" aborts=").append(s.aborts())
                    .append(s.last() == null ? "" : " last=\"" + s.last().message() + "\"").append('\n');
        }
        return b.toString();
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> out = new HashMap<>();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                out.put(key, eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    private static void answer(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", TEXT);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** The streamed answer of one cutover: 200 at once, then a line per step, flushed. */
    private static final class Progress {
        private final HttpExchange exchange;
        private OutputStream out;
        private boolean broken;

        Progress(HttpExchange exchange) throws IOException {
            this.exchange = exchange;
            exchange.getResponseHeaders().set("Content-Type", TEXT);
            exchange.getResponseHeaders().set("Cache-Control", "no-store");
            exchange.sendResponseHeaders(200, 0); // chunked: the length is not known yet
            this.out = exchange.getResponseBody();
        }

        synchronized void line(String text) {
            if (broken) {
                return; // the operator went away; the cutover goes on
            }
            try {
                out.write((text + "\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            } catch (IOException e) {
                broken = true;
                LOG.debug("admin endpoint: the client asking for a switch went away: {}", e.toString());
            }
        }

        synchronized void finish(CutoverOutcome outcome, Throwable error) {
            if (error != null) {
                line("aborted: " + error);
            } else {
                line((outcome.switched() ? "switched: " : "aborted: ") + outcome.message());
            }
            try {
                out.close();
            } catch (IOException e) {
                LOG.debug("admin endpoint: closing a switch answer failed: {}", e.toString());
            } finally {
                exchange.close();
            }
        }
    }
}
