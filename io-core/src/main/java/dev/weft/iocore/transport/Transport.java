package dev.weft.iocore.transport;

import io.netty.channel.ChannelOption;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringChannelOption;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;

/**
 * A Netty 4.2 I/O transport Weft can run its event loops on, in order of preference.
 *
 * <p>Each constant has its own body, so the classes of one transport are only touched when that
 * transport is asked about: asking NIO never initialises the io_uring native library.
 */
public enum Transport {

    /** Linux io_uring: batched submissions, fewest syscalls per byte. Needs kernel 5.14+ and the native jar. */
    IO_URING("io_uring") {
        @Override
        public Throwable unavailabilityCause() {
            return IoUring.isAvailable() ? null : IoUring.unavailabilityCause();
        }

        @Override
        public IoHandlerFactory newIoHandlerFactory() {
            IoUring.ensureAvailability();
            return IoUringIoHandler.newFactory();
        }

        @Override
        public Class<? extends ServerSocketChannel> serverChannelClass() {
            return IoUringServerSocketChannel.class;
        }

        @Override
        public Class<? extends SocketChannel> socketChannelClass() {
            return IoUringSocketChannel.class;
        }

        @Override
        public ChannelOption<Integer> zeroCopySendThresholdOption() {
            return IoUringChannelOption.IO_URING_WRITE_ZERO_COPY_THRESHOLD;
        }
    },

    /** Linux epoll through Netty's native transport. */
    EPOLL("epoll") {
        @Override
        public Throwable unavailabilityCause() {
            return Epoll.isAvailable() ? null : Epoll.unavailabilityCause();
        }

        @Override
        public IoHandlerFactory newIoHandlerFactory() {
            Epoll.ensureAvailability();
            return EpollIoHandler.newFactory();
        }

        @Override
        public Class<? extends ServerSocketChannel> serverChannelClass() {
            return EpollServerSocketChannel.class;
        }

        @Override
        public Class<? extends SocketChannel> socketChannelClass() {
            return EpollSocketChannel.class;
        }
    },

    /** Java NIO selectors: works everywhere, the last resort. */
    NIO("nio") {
        @Override
        public Throwable unavailabilityCause() {
            return null;
        }

        @Override
        public IoHandlerFactory newIoHandlerFactory() {
            return NioIoHandler.newFactory();
        }

        @Override
        public Class<? extends ServerSocketChannel> serverChannelClass() {
            return NioServerSocketChannel.class;
        }

        @Override
        public Class<? extends SocketChannel> socketChannelClass() {
            return NioSocketChannel.class;
        }
    };

    private final String configName;

    Transport(String configName) {
        this.configName = configName;
    }

    /** The name used in configuration and log lines: {@code io_uring}, {@code epoll} or {@code nio}. */
    public String configName() {
        return configName;
    }

    /** Whether this transport can run here (native library loaded, kernel support present). */
    public boolean isAvailable() {
        return unavailabilityCause() == null;
    }

    /** Why this transport cannot run here, as Netty reports it; {@code null} when it is available. */
    public abstract Throwable unavailabilityCause();

    /**
     * A factory for this transport's {@code IoHandler}, one per event loop.
     *
     * @throws UnsatisfiedLinkError or another error from Netty when the transport is unavailable
     */
    public abstract IoHandlerFactory newIoHandlerFactory();

    /** The server (listening) socket channel class for a {@code ServerBootstrap}. */
    public abstract Class<? extends ServerSocketChannel> serverChannelClass();

    /** The client socket channel class for a {@code Bootstrap} (upstream connections). */
    public abstract Class<? extends SocketChannel> socketChannelClass();

    /**
     * The socket option that sends writes of at least its value in bytes with the kernel's zero-copy send
     * (io_uring's {@code IORING_OP_SEND_ZC}: pages are pinned instead of copied, and the buffer is given
     * back when the kernel says the NIC is done with it), or {@code null} when this transport has none.
     */
    public ChannelOption<Integer> zeroCopySendThresholdOption() {
        return null;
    }

    @Override
    public String toString() {
        return configName;
    }
}
