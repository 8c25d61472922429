package dev.weft.iocore.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.weft.iocore.EventLoops;
import dev.weft.iocore.EventLoopsConfig;
import dev.weft.iocore.buffer.BufferPolicy;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.IoEventLoop;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.uring.IoUringIoHandler;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One transport suite, run on io_uring, epoll and NIO (Netty testsuite style): each case is skipped
 * when its transport is unavailable on the host, with Netty's reason.
 */
class TransportEchoTest {

    private static final int PAYLOAD_BYTES = 512 * 1024;

    /** Every transport, sending by copying and with zero-copy send from 64 KiB (io_uring only; the others copy). */
    static Stream<Arguments> transportsAndZeroCopy() {
        return Stream.of(Transport.values()).flatMap(t -> Stream.of(Arguments.of(t, 0), Arguments.of(t, 64 * 1024)));
    }

    @ParameterizedTest(name = "{0}, zero-copy send from {1} bytes")
    @MethodSource("transportsAndZeroCopy")
    void echoesOverLoopback(Transport transport, int zeroCopySendThreshold) throws Exception {
        assumeTrue(transport.isAvailable(), () -> transport + " unavailable: " + transport.unavailabilityCause());
        EventLoopsConfig config = EventLoopsConfig.defaults()
                .withTransport(TransportPreference.forcing(transport))
                .withLoopCount(2)
                .withZeroCopySendThreshold(zeroCopySendThreshold);
        BufferPolicy buffers = BufferPolicy.defaults();
        try (EventLoops loops = EventLoops.start(config)) {
            assertSame(transport, loops.transport());
            for (IoEventLoop core : loops.cores()) {
                assertTrue(core.isIoType(ioHandlerOf(transport)), core + " runs " + transport);
            }
            CompletableFuture<Channel> accepted = new CompletableFuture<>();
            Channel server = loops.serverBootstrap(buffers)
                    .childHandler(new EchoHandler(accepted))
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .sync().channel();
            try {
                assertInstanceOf(transport.serverChannelClass(), server);
                byte[] payload = new byte[PAYLOAD_BYTES];
                new Random(42).nextBytes(payload);
                Collector collector = new Collector(payload.length);
                IoEventLoop clientCore = loops.core(1);
                Channel client = loops.clientBootstrap(clientCore, buffers)
                        .handler(collector)
                        .connect(server.localAddress())
                        .sync().channel();
                try {
                    assertInstanceOf(transport.socketChannelClass(), client);
                    assertSame(clientCore, client.eventLoop(), "the upstream connection lives on the asked core");

                    ByteBuf out = client.alloc().directBuffer(payload.length);
                    out.writeBytes(payload);
                    client.writeAndFlush(out).sync(); // write takes ownership of out

                    assertArrayEquals(payload, collector.received.get(20, TimeUnit.SECONDS));
                    Channel child = accepted.get(5, TimeUnit.SECONDS);
                    assertInstanceOf(transport.socketChannelClass(), child);
                    assertTrue(loops.coreIndexOf(child.eventLoop()) >= 0, "accepted channel lives on one of the cores");
                    if (transport.zeroCopySendThresholdOption() != null && zeroCopySendThreshold > 0) {
                        // the echo's 512 KiB went back through the kernel's zero-copy send on both sides
                        assertEquals(zeroCopySendThreshold, child.config().getOption(transport.zeroCopySendThresholdOption()));
                        assertEquals(zeroCopySendThreshold, client.config().getOption(transport.zeroCopySendThresholdOption()));
                    }
                } finally {
                    client.close().sync();
                }
            } finally {
                server.close().sync();
            }
        }
    }

    private static Class<? extends io.netty.channel.IoHandler> ioHandlerOf(Transport transport) {
        return switch (transport) {
            case IO_URING -> IoUringIoHandler.class;
            case EPOLL -> EpollIoHandler.class;
            case NIO -> NioIoHandler.class;
        };
    }

    /** Writes back whatever it reads. */
    private static final class EchoHandler extends ChannelInboundHandlerAdapter {
        private final CompletableFuture<Channel> accepted;

        EchoHandler(CompletableFuture<Channel> accepted) {
            this.accepted = accepted;
        }

        @Override
        public boolean isSharable() {
            return true;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            accepted.complete(ctx.channel());
            ctx.fireChannelActive();
        }

        /** Takes ownership of {@code msg} and hands it to {@code write}, which takes ownership in turn. */
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    /** Gathers the echo until the expected number of bytes arrived. */
    private static final class Collector extends ChannelInboundHandlerAdapter {
        final CompletableFuture<byte[]> received = new CompletableFuture<>();
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final int expected;

        Collector(int expected) {
            this.expected = expected;
        }

        /** Takes ownership of {@code msg}: copies it out (test code) and releases it. */
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            try {
                buf.readBytes(bytes, buf.readableBytes());
            } catch (java.io.IOException e) {
                received.completeExceptionally(e);
            } finally {
                buf.release();
            }
            if (bytes.size() >= expected) {
                received.complete(bytes.toByteArray());
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            received.completeExceptionally(cause);
            ctx.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void bootstrapsCarryTheBufferPolicy(Transport transport) throws Exception {
        assumeTrue(transport.isAvailable(), () -> transport + " unavailable: " + transport.unavailabilityCause());
        BufferPolicy buffers = BufferPolicy.builder().recvMaximum(256 * 1024).build();
        try (EventLoops loops = EventLoops.start(EventLoopsConfig.defaults()
                .withTransport(TransportPreference.forcing(transport)).withLoopCount(1))) {
            CompletableFuture<Channel> accepted = new CompletableFuture<>();
            Channel server = loops.serverBootstrap(buffers)
                    .childHandler(new EchoHandler(accepted))
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            Channel client = loops.clientBootstrap(loops.core(0), buffers)
                    .handler(new ChannelInboundHandlerAdapter())
                    .connect(server.localAddress()).sync().channel();
            try {
                Channel child = accepted.get(5, TimeUnit.SECONDS);
                for (Channel channel : new Channel[] {server, child, client}) {
                    assertSame(buffers.allocator(), channel.config().getAllocator(), channel.toString());
                }
                assertSame(buffers.recvAllocator(), child.config().getRecvByteBufAllocator());
                assertSame(buffers.recvAllocator(), client.config().getRecvByteBufAllocator());
                ByteBuf probe = child.alloc().buffer(64); // returns retained: released below
                try {
                    assertTrue(probe.isDirect(), "the pooled allocator prefers direct buffers");
                } finally {
                    probe.release();
                }
            } finally {
                client.close().sync();
                server.close().sync();
            }
        }
    }
}
