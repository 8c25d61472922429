package dev.weft.proxy.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code weft switch [--admin HOST:PORT] [NAME ROUTE [--force]]}: lists the switches of a running proxy,
 * or moves one through its admin endpoint and prints the cutover's progress as it happens. Exit 0 when
 * the switch moved (or the list was read), 1 when the cutover aborted or was refused, 2 for bad usage.
 */
final class SwitchCommand {

    static final String DEFAULT_ADMIN = "127.0.0.1:9190";
    static final String USAGE = "weft switch [--admin HOST:PORT] [NAME ROUTE [--force]]";

    private SwitchCommand() {
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        String admin = DEFAULT_ADMIN;
        boolean force = false;
        List<String> words = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--admin" -> {
                    if (i + 1 >= args.length) {
                        return usage(err, "--admin needs HOST:PORT");
                    }
                    admin = args[++i];
                }
                case "--force" -> force = true;
                default -> {
                    if (args[i].startsWith("--admin=")) {
                        admin = args[i].substring("--admin=".length());
                    } else if (args[i].startsWith("-")) {
                        return usage(err, "unknown option '" + args[i] + "'");
                    } else {
                        words.add(args[i]);
                    }
                }
            }
        }
        if (words.size() != 0 && words.size() != 2) {
            return usage(err, "name a switch and the route to move it to, or nothing to list the switches");
        }
        String path = words.isEmpty() ? "/switches" : "/switches/" + encode(words.get(0)) + "?to=" + encode(words.get(1))
                + (force ? "&force=true" : "");
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://" + admin + path));
        request = words.isEmpty() ? request.GET() : request.POST(HttpRequest.BodyPublishers.noBody());
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        try {
            HttpResponse<InputStream> response = client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
            String last = null;
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
                for (String line; (line = lines.readLine()) != null; ) {
                    (response.statusCode() == 200 ? out : err).println(line);
                    out.flush();
                    last = line;
                }
            }
            if (response.statusCode() != 200) {
                return 1;
            }
            return words.isEmpty() || last != null && last.startsWith("switched:") ? 0 : 1;
        } catch (IOException e) {
            err.println("weft switch: cannot reach the admin endpoint at " + admin + " (admin.bind in the proxy's config): " + e);
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static int usage(PrintStream err, String problem) {
        err.println("weft switch: " + problem);
        err.println("usage: " + USAGE);
        return 2;
    }
}
