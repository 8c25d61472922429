package dev.weft.proxy.config;

import java.util.List;

/**
 * A configuration file that cannot be used, with every problem found: each names the file, the path in
 * the document and what is wrong, e.g.
 * {@code weft.yaml: virtualClusters.main.gateways[0].bind: "0.0.0.0:x" is not host:port}.
 */
public final class ConfigException extends Exception {

    private final List<String> problems;

    public ConfigException(List<String> problems) {
        super(problems.size() == 1 ? problems.get(0)
                : problems.size() + " problems in the configuration:\n  " + String.join("\n  ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
