package dev.weft.proxy.session;

import dev.weft.protocol.frame.KafkaFrameDecoder;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.timeout.IdleStateEvent;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * What every kind of client session decides alike about its client connection's events: a failed TLS
 * handshake, a client holding half a frame too long (slow-loris), a client idle with nothing in flight.
 * Each verdict is logged (naming the connection and the setting) and counted here; the session closes.
 */
public final class ClientConnectionChecks {

    private ClientConnectionChecks() {
    }

    /**
     * Looks at a user event of the client pipeline.
     *
     * @param describe the session's log prefix (connection id, peer, target)
     * @param lastReadNanos when the client last sent bytes
     * @param nothingInFlight whether the session owes the client no response
     * @return true when the session must close the connection (already logged and counted); false when
     *     the event is not one of these (the caller passes it on) or calls for nothing
     */
    public static boolean mustClose(Object evt, ChannelHandlerContext ctx, Logger log, String describe, SessionSettings settings,
            SessionMetrics metrics, long lastReadNanos, boolean nothingInFlight) {
        if (evt instanceof SslHandshakeCompletionEvent handshake && !handshake.isSuccess()) {
            if (handshake.cause() instanceof NotSslRecordException
                    || handshake.cause().getCause() instanceof NotSslRecordException) {
                log.warn("{}: not a TLS record: a plaintext client on a TLS port; closing", describe);
            } else {
                log.warn("{}: TLS handshake with the client failed: {}; closing", describe, rootMessage(handshake.cause()));
            }
            metrics.connectionError(SessionMetrics.SessionError.TLS_HANDSHAKE, (short) -1);
            return true;
        }
        if (!(evt instanceof IdleStateEvent)) {
            return false;
        }
        long silentMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastReadNanos);
        KafkaFrameDecoder decoder = ctx.pipeline().get(KafkaFrameDecoder.class);
        int partial = decoder == null ? 0 : decoder.bufferedBytes();
        if (partial > 0 && silentMillis >= settings.partialFrameTimeoutMillis()) {
            log.warn("{}: slow client: {} byte(s) of an incomplete frame and nothing more for {} ms "
                    + "(server.partialFrameTimeoutMs); closing", describe, partial, silentMillis);
            metrics.connectionError(SessionMetrics.SessionError.SLOW_CLIENT, (short) -1);
            return true;
        }
        if (partial == 0 && nothingInFlight && silentMillis >= settings.idleTimeoutMillis()) {
            log.info("{}: idle for {} ms with nothing in flight (server.idleTimeoutMs); closing", describe, silentMillis);
            metrics.connectionError(SessionMetrics.SessionError.IDLE, (short) -1);
            return true;
        }
        return false;
    }

    /** The message of an exception and of its root cause, when they differ. */
    public static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = t.getMessage() != null ? t.getMessage() : t.toString();
        return root == t || root.getMessage() == null || m.contains(root.getMessage()) ? m : m + " (" + root.getMessage() + ")";
    }
}
