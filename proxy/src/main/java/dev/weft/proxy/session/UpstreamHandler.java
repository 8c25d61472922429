package dev.weft.proxy.session;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/** The broker side of a {@link ClientSession}: hands every response frame and event to the session. */
final class UpstreamHandler extends ChannelInboundHandlerAdapter {

    private final ClientSession session;

    UpstreamHandler(ClientSession session) {
        this.session = session;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        session.onUpstreamFrame((ByteBuf) msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        session.onUpstreamReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        session.onUpstreamWritabilityChanged(ctx.channel().isWritable());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        session.onUpstreamClosed();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        session.onUpstreamError(cause);
    }
}
