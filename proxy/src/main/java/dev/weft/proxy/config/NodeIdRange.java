package dev.weft.proxy.config;

/**
 * The virtual node ids a port-per-broker gateway reserves a port for: node id {@code n} listens on
 * {@code brokerPortStart + (n - first)}.
 */
public record NodeIdRange(int first, int last) {

    public NodeIdRange {
        if (first < 0 || last < first) {
            throw new IllegalArgumentException("node id range " + first + "-" + last + " is empty or negative");
        }
    }

    public static NodeIdRange parse(String text) {
        String s = text.trim();
        int dash = s.indexOf('-');
        try {
            if (dash < 0) {
                int only = Integer.parseInt(s);
                return new NodeIdRange(only, only);
            }
            return new NodeIdRange(Integer.parseInt(s.substring(0, dash).trim()), Integer.parseInt(s.substring(dash + 1).trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("\"" + text + "\" is not a node id range like 0-15");
        }
    }

    public int size() {
        return last - first + 1;
    }

    public boolean contains(int nodeId) {
        return nodeId >= first && nodeId <= last;
    }

    @Override
    public String toString() {
        return first + "-" + last;
    }
}
