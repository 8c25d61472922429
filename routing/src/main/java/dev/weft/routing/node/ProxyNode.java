package dev.weft.routing.node;

/**
 * One proxy node of a collapsed virtual cluster (DESIGN §4 "collapsed"): the broker clients see, as
 * configured. Checked by {@link CollapsedNodes#validate}, not here, so that every problem of a node
 * list is reported at once.
 *
 * @param id the node id clients see; 0 or more, unique within the virtual cluster
 * @param host the host name or address clients connect to
 * @param port the port clients connect to
 * @param rack the node's rack (availability zone), or null when it has none
 */
public record ProxyNode(int id, String host, int port, String rack) {

    public String hostPort() {
        return host != null && host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
