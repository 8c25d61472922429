import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * The hostile-client memory attack of issue #9, run by hand against a Weft process (not a CI test):
 * N connections each declare a frame of D MiB, send S MiB of it and stall. Prints the proxy's RSS
 * (VmRSS of its pid) before, at its peak during the stall, and after the connections are closed.
 *
 * <pre>java HostileClientRss.java PROXY_PID HOST:PORT [connections 8] [declared MiB 99] [sent MiB 64] [stall s 20]</pre>
 */
public class HostileClientRss {

    public static void main(String[] args) throws Exception {
        long pid = Long.parseLong(args[0]);
        String[] hp = args[1].split(":");
        InetSocketAddress proxy = new InetSocketAddress(hp[0], Integer.parseInt(hp[1]));
        int connections = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        int declaredMiB = args.length > 3 ? Integer.parseInt(args[3]) : 99;
        int sentMiB = args.length > 4 ? Integer.parseInt(args[4]) : 64;
        int stallSeconds = args.length > 5 ? Integer.parseInt(args[5]) : 20;

        long baseline = rssKiB(pid);
        System.out.printf("baseline RSS: %d MiB%n", baseline / 1024);
        AtomicLongArray written = new AtomicLongArray(connections);
        List<Socket> sockets = new ArrayList<>();
        List<Thread> senders = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < connections; i++) {
            Socket s = new Socket();
            s.connect(proxy, 5_000);
            sockets.add(s);
            int index = i;
            senders.add(Thread.ofPlatform().daemon().start(() -> {
                try {
                    OutputStream out = s.getOutputStream();
                    out.write(ByteBuffer.allocate(4).putInt(declaredMiB << 20).array());
                    byte[] chunk = new byte[256 * 1024];
                    long total = (long) sentMiB << 20;
                    for (long done = 0; done < total; done += chunk.length) {
                        out.write(chunk, 0, (int) Math.min(chunk.length, total - done));
                        written.addAndGet(index, Math.min(chunk.length, total - done));
                    }
                    out.flush();
                } catch (IOException closed) {
                    // closed by us or by the proxy
                }
            }));
        }
        long peak = baseline;
        long deadline = start + stallSeconds * 1_000_000_000L;
        while (System.nanoTime() - deadline < 0) {
            peak = Math.max(peak, rssKiB(pid));
            LockSupport.parkNanos(250_000_000L);
        }
        long stalled = rssKiB(pid);
        StringBuilder sent = new StringBuilder();
        for (int i = 0; i < connections; i++) {
            sent.append(i == 0 ? "" : ", ").append(written.get(i) >> 20).append(" MiB");
        }
        System.out.printf("sent per connection after %d s: %s%n", stallSeconds, sent);
        System.out.printf("peak RSS during the stall: %d MiB (+%d MiB); at %d s: %d MiB%n", peak / 1024,
                (peak - baseline) / 1024, stallSeconds, stalled / 1024);
        for (Socket s : sockets) {
            s.close();
        }
        for (Thread t : senders) {
            t.join(5_000);
        }
        LockSupport.parkNanos(5_000_000_000L);
        System.out.printf("RSS 5 s after the connections closed: %d MiB%n", rssKiB(pid) / 1024);
        LockSupport.parkNanos(10_000_000_000L);
        System.out.printf("RSS 15 s after the connections closed: %d MiB%n", rssKiB(pid) / 1024);
    }

    static long rssKiB(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        throw new IllegalStateException("no VmRSS for pid " + pid);
    }
}
