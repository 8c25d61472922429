package dev.weft.proxy.session;

import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Every open client connection of a proxy, so shutdown can drain them: each session is asked (on its
 * own event loop) to stop reading, finish the requests it has in flight and then close.
 */
public final class SessionRegistry {

    /** The user event that asks a session to drain. */
    public static final Object DRAIN = new Object() {
        @Override
        public String toString() {
            return "DRAIN";
        }
    };

    private final ChannelGroup clients = new DefaultChannelGroup("weft-clients", GlobalEventExecutor.INSTANCE);

    public void register(Channel client) {
        clients.add(client); // removed by the group itself when the channel closes
    }

    public int openConnections() {
        return clients.size();
    }

    /**
     * Asks every session to drain and waits up to {@code timeout} for all to close; then closes what is
     * left. Call after the gateways stopped accepting.
     *
     * @return how many connections had to be closed with requests still in flight
     */
    public int drain(Duration timeout) {
        for (Channel c : clients) {
            c.pipeline().fireUserEventTriggered(DRAIN);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!clients.isEmpty() && deadline - System.nanoTime() > 0) {
            clients.newCloseFuture().awaitUninterruptibly(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
        int left = clients.size();
        clients.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        return left;
    }
}
