package dev.weft.proxy.session;

import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Open client connections (of the whole proxy, or of one virtual cluster), so they can be drained: each
 * session is asked (on its own event loop) to stop reading, finish the requests it has in flight and
 * then close. The proxy drains all of them on shutdown; a switch drains its virtual cluster's when it
 * fences and when it re-points, so clients reconnect and learn the new state.
 */
public final class SessionRegistry {

    /** The user event that asks a session to drain, with the reason it logs. */
    public record Drain(String reason) {
    }

    /** The drain of a proxy that shuts down. */
    public static final Drain SHUTDOWN = new Drain("the proxy is shutting down");

    private final ChannelGroup clients = new DefaultChannelGroup("weft-clients", GlobalEventExecutor.INSTANCE);

    public void register(Channel client) {
        clients.add(client); // removed by the group itself when the channel closes
    }

    /** Stops counting {@code client} here (its session moved to another virtual cluster runtime). */
    public void unregister(Channel client) {
        clients.remove(client);
    }

    /** Tells every connection open now {@code event}, each on its own event loop. */
    void fire(Object event) {
        for (Channel c : List.copyOf(clients)) {
            c.pipeline().fireUserEventTriggered(event);
        }
    }

    public int openConnections() {
        return clients.size();
    }

    /** {@link #drain(Drain, Duration)} for shutdown; call after the gateways stopped accepting. */
    public int drain(Duration timeout) {
        return drain(SHUTDOWN, timeout);
    }

    /**
     * Asks every connection open now to drain and waits up to {@code timeout} for them to close; then
     * closes what is left. Connections opened meanwhile (clients reconnecting) are not waited for.
     *
     * @return how many connections had to be closed with requests still in flight
     */
    public int drain(Drain why, Duration timeout) {
        List<Channel> draining = List.copyOf(clients);
        for (Channel c : draining) {
            c.pipeline().fireUserEventTriggered(why);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Channel> left = new java.util.ArrayList<>();
        for (Channel c : draining) {
            if (!c.closeFuture().awaitUninterruptibly(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())))) {
                left.add(c);
            }
        }
        left.forEach(Channel::close);
        long closing = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (Channel c : left) {
            c.closeFuture().awaitUninterruptibly(Math.max(1, TimeUnit.NANOSECONDS.toMillis(closing - System.nanoTime())));
        }
        return left.size();
    }
}
