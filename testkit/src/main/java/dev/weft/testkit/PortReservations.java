package dev.weft.testkit;

import org.apache.kafka.common.network.Selectable;
import org.apache.kafka.server.ServerSocketFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Free ports for the listeners of one cluster's nodes.
 *
 * <p>In-JVM ({@code holdOpen}): every port is taken by binding a listening socket to port 0 and that
 * very socket is handed to Kafka's socket server through {@link #socketFactory(int)}, so no other
 * process can grab the port between the choice and the bind. A listener that is opened again later
 * (a restarted broker) binds the same port number afresh.
 *
 * <p>Forked: the socket is closed right after the kernel picked the port, and the child JVM binds it
 * when it starts. Another process could take the port in that window (a second or two); the kernel
 * hands out ephemeral ports in rotation, which makes that unlikely, and a clash fails the start loudly.
 */
final class PortReservations implements AutoCloseable {

    private static final int LISTEN_BACKLOG = 50;

    private final String host;
    private final boolean holdOpen;
    /** Key: {@code nodeId/LISTENER}. Sockets reserved and not yet handed to Kafka. Guarded by this. */
    private final Map<String, ServerSocketChannel> held = new HashMap<>();
    private final Set<Integer> allPorts = new TreeSet<>();
    private boolean closed;

    PortReservations(String host, boolean holdOpen) {
        this.host = host;
        this.holdOpen = holdOpen;
    }

    /** Reserves a free port for {@code listener} of node {@code nodeId} and returns its number. */
    synchronized int reserve(int nodeId, String listener) {
        if (closed) {
            throw new IllegalStateException("port reservations are closed");
        }
        ServerSocketChannel channel = null;
        try {
            channel = ServerSocketChannel.open();
            channel.configureBlocking(false);
            channel.bind(new InetSocketAddress(host, 0), LISTEN_BACKLOG);
            int port = ((InetSocketAddress) channel.getLocalAddress()).getPort();
            allPorts.add(port);
            if (holdOpen) {
                ServerSocketChannel previous = held.put(key(nodeId, listener), channel);
                closeQuietly(previous);
                channel = null;
            }
            return port;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot reserve a free port on " + host, e);
        } finally {
            closeQuietly(channel);
        }
    }

    /** Every port reserved so far, including those of removed nodes. */
    synchronized Set<Integer> allPorts() {
        return Set.copyOf(allPorts);
    }

    /**
     * The socket factory for node {@code nodeId}: hands out the reserved socket of a listener once and
     * binds the configured address otherwise, exactly as Kafka's own factory does.
     */
    ServerSocketFactory socketFactory(int nodeId) {
        return (listenerName, address, backlog, receiveBufferSize) -> {
            ServerSocketChannel reserved = take(nodeId, listenerName, address.getPort());
            if (reserved == null) {
                return ServerSocketFactory.INSTANCE.openServerSocket(listenerName, address, backlog, receiveBufferSize);
            }
            if (receiveBufferSize != Selectable.USE_DEFAULT_BUFFER_SIZE) {
                reserved.socket().setReceiveBufferSize(receiveBufferSize);
            }
            return reserved;
        };
    }

    /** Closes the still-unused reserved sockets of one node (it failed to start or was removed). */
    synchronized void release(int nodeId) {
        String prefix = nodeId + "/";
        held.entrySet().removeIf(e -> {
            if (e.getKey().startsWith(prefix)) {
                closeQuietly(e.getValue());
                return true;
            }
            return false;
        });
    }

    private synchronized ServerSocketChannel take(int nodeId, String listener, int port) {
        ServerSocketChannel channel = held.get(key(nodeId, listener));
        if (channel == null || !channel.isOpen() || channel.socket().getLocalPort() != port) {
            return null;
        }
        held.remove(key(nodeId, listener));
        return channel;
    }

    private static String key(int nodeId, String listener) {
        return nodeId + "/" + listener.toUpperCase(Locale.ROOT);
    }

    private static void closeQuietly(ServerSocketChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // Closing an unused listening socket cannot lose data; nothing to report.
            }
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        held.values().forEach(PortReservations::closeQuietly);
        held.clear();
    }
}
