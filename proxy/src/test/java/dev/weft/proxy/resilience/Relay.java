package dev.weft.proxy.resilience;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A small frame-aware TCP relay for tests, run on virtual threads with blocking sockets: every
 * accepted connection is forwarded to {@link #target}, Kafka frame by Kafka frame.
 *
 * <ul>
 *   <li>{@link #capture(boolean) capture}: keeps a copy of every request frame a client sends.</li>
 *   <li>{@link Cut cut}: when armed for an API key, the next response to a request of that key is
 *       forwarded only up to half of its body, and then the connection is cut (FIN to the client
 *       side after the half frame, the broker side closed): a broker dying mid-response.</li>
 * </ul>
 */
final class Relay implements AutoCloseable {

    /** A one-shot cut shared by several relays: the first response of the armed API key is cut, once. */
    static final class Cut {
        private final AtomicReference<Short> armed = new AtomicReference<>();
        private volatile int minSize;
        private final AtomicInteger done = new AtomicInteger();
        private final ConcurrentLinkedQueue<String> log = new ConcurrentLinkedQueue<>();

        /** Cuts the next response to an {@code apiKey} request whose frame is at least {@code minSize} bytes. */
        void arm(short apiKey, int minSize) {
            this.minSize = minSize;
            armed.set(apiKey);
        }

        boolean tryCut(short apiKey, int size) {
            Short a = armed.get();
            return a != null && a == apiKey && size >= minSize && armed.compareAndSet(a, null);
        }

        int count() {
            return done.get();
        }

        boolean isArmed() {
            return armed.get() != null;
        }

        List<String> log() {
            return List.copyOf(log);
        }
    }

    private final String name;
    private final ServerSocket server;
    private final Cut cut;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final ConcurrentLinkedQueue<byte[]> captured = new ConcurrentLinkedQueue<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private volatile InetSocketAddress target;
    private volatile boolean capturing;
    private volatile boolean closed;

    private Relay(String name, Cut cut) throws IOException {
        this.name = name;
        this.cut = cut;
        this.server = new ServerSocket(0, 512, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("relay-" + name + "-accept").start(this::acceptLoop);
    }

    /** Binds a free loopback port now; connections are forwarded once {@link #target} is set. */
    static Relay start(String name, Cut cut) throws IOException {
        return new Relay(name, cut);
    }

    int port() {
        return server.getLocalPort();
    }

    Relay target(InetSocketAddress address) {
        this.target = address;
        return this;
    }

    Relay capture(boolean on) {
        this.capturing = on;
        return this;
    }

    List<byte[]> captured() {
        return new ArrayList<>(captured);
    }

    int acceptedConnections() {
        return accepted.get();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            accepted.incrementAndGet();
            sockets.add(client);
            Thread.ofVirtual().name("relay-" + name + "-conn").start(() -> serve(client));
        }
    }

    private void serve(Socket client) {
        Socket broker = new Socket();
        sockets.add(broker);
        try {
            InetSocketAddress t = target;
            if (t == null) {
                throw new IOException("relay " + name + " has no target yet");
            }
            client.setTcpNoDelay(true);
            broker.setTcpNoDelay(true);
            broker.connect(t, 5_000);
        } catch (IOException e) {
            closeQuietly(client);
            closeQuietly(broker);
            return;
        }
        Map<Integer, Short> apiKeyByCorrelationId = new ConcurrentHashMap<>();
        AtomicReference<Boolean> cutting = new AtomicReference<>(false);
        Thread.ofVirtual().name("relay-" + name + "-req").start(() -> pumpRequests(client, broker, apiKeyByCorrelationId, cutting));
        pumpResponses(broker, client, apiKeyByCorrelationId, cutting);
    }

    private void pumpRequests(Socket client, Socket broker, Map<Integer, Short> keys, AtomicReference<Boolean> cutting) {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(client.getInputStream(), 64 * 1024))) {
            OutputStream out = broker.getOutputStream();
            while (true) {
                int size = in.readInt();
                if (size < 0 || size > 128 << 20) {
                    throw new IOException("relay " + name + ": implausible request size " + size);
                }
                byte[] frame = new byte[4 + size];
                ByteBuffer.wrap(frame).putInt(size);
                in.readFully(frame, 4, size);
                if (cutting.get()) {
                    continue; // the connection is being cut: swallow what still arrives
                }
                if (size >= 8) {
                    ByteBuffer b = ByteBuffer.wrap(frame);
                    keys.put(b.getInt(8), b.getShort(4));
                }
                if (capturing) {
                    captured.add(frame);
                }
                out.write(frame);
            }
        } catch (IOException e) {
            // end of stream, or the other side went away
        } finally {
            closeQuietly(broker);
            closeQuietly(client);
        }
    }

    private void pumpResponses(Socket broker, Socket client, Map<Integer, Short> keys, AtomicReference<Boolean> cutting) {
        byte[] chunk = new byte[64 * 1024];
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(broker.getInputStream(), 64 * 1024))) {
            OutputStream out = client.getOutputStream();
            while (true) {
                int size = in.readInt();
                if (size < 4) {
                    throw new IOException("relay " + name + ": implausible response size " + size);
                }
                int correlationId = in.readInt();
                Short apiKey = keys.remove(correlationId);
                if (cut != null && apiKey != null && size >= 16 && cut.tryCut(apiKey, size)) {
                    int half = size / 2;
                    byte[] head = new byte[4 + half];
                    ByteBuffer.wrap(head).putInt(size).putInt(correlationId);
                    in.readFully(head, 8, half - 4);
                    cutting.set(true);
                    out.write(head);
                    out.flush();
                    cut.log.add("relay " + name + " cut a response to API key " + apiKey + " of " + size
                            + " bytes after " + half + " bytes");
                    cut.done.incrementAndGet();
                    client.shutdownOutput(); // FIN after the half frame: the broker "died" mid-response
                    closeQuietly(broker);
                    return;
                }
                byte[] head = new byte[8];
                ByteBuffer.wrap(head).putInt(size).putInt(correlationId);
                out.write(head);
                int left = size - 4;
                while (left > 0) {
                    int n = in.read(chunk, 0, Math.min(chunk.length, left));
                    if (n < 0) {
                        throw new EOFException();
                    }
                    out.write(chunk, 0, n);
                    left -= n;
                }
                out.flush();
            }
        } catch (IOException e) {
            // end of stream, or the other side went away
        } finally {
            closeQuietly(broker);
            if (!cutting.get()) {
                closeQuietly(client);
            }
        }
    }

    private void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        sockets.remove(s);
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (Socket s : List.copyOf(sockets)) {
            closeQuietly(s);
        }
    }
}
