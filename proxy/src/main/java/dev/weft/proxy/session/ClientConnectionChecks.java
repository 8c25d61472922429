package dev.weft.proxy.session;

import dev.weft.protocol.frame.KafkaFrameDecoder;
import dev.weft.protocol.frame.PartialFrameTimeout;
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
 *
 * <p>Incomplete frames are timed by the client's {@link KafkaFrameDecoder} from each frame's first byte
 * (see {@link PartialFrameBudgets}); it fires a {@link PartialFrameTimeout} that is judged here (and
 * closes the connection itself right after). Reader-idle ticks only decide the idle timeout: they never
 * come while a client trickles bytes, and a connection paused for memory is silent because the proxy
 * stopped reading it, not because the client is slow.
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
        if (evt instanceof PartialFrameTimeout timeout) {
            partialFrameTimedOut(timeout, log, describe, metrics);
            return true;
        }
        if (!(evt instanceof IdleStateEvent)) {
            return false;
        }
        long silentMillis = TimeUnit.NANOSECONDS.toMillis(settings.clock().nanoTime() - lastReadNanos);
        KafkaFrameDecoder decoder = ctx.pipeline().get(KafkaFrameDecoder.class);
        int partial = decoder == null ? 0 : decoder.bufferedBytes();
        if (partial == 0 && nothingInFlight && silentMillis >= settings.idleTimeoutMillis()) {
            log.info("{}: idle for {} ms with nothing in flight (server.idleTimeoutMs); closing", describe, silentMillis);
            metrics.connectionError(SessionMetrics.SessionError.IDLE, (short) -1);
            return true;
        }
        return false;
    }

    /** Logs and counts an incomplete frame whose time is up (the decoder closes the connection). */
    private static void partialFrameTimedOut(PartialFrameTimeout t, Logger log, String describe, SessionMetrics metrics) {
        long ageMillis = TimeUnit.NANOSECONDS.toMillis(t.ageNanos());
        long timeoutMillis = TimeUnit.NANOSECONDS.toMillis(t.timeoutNanos());
        String frame = t.frameBytes() < 0 ? "(its 4-byte size prefix not even complete)" : "of " + t.frameBytes() + " bytes";
        String turn = "the one turn per core for frames over " + t.largeAboveBytes()
                + " bytes (server.maxPartialFrameBytesPerConnection)";
        if (t.waitingForBudget()) {
            log.warn("{}: no memory for an incomplete frame: {} byte(s) of a frame {} waited {} ms "
                    + "(server.partialFrameTimeoutMs = {}) for this core's partial-frame budget, {} of {} bytes granted "
                    + "(server.maxPartialFrameBytesPerCore){}; closing", describe, t.bufferedBytes(), frame, ageMillis,
                    timeoutMillis, t.coreGrantedBytes(), t.coreLimitBytes(),
                    t.large() && t.largeGrantTaken() ? ", and " + turn + " taken" : "");
            metrics.connectionError(SessionMetrics.SessionError.PARTIAL_FRAME_BUDGET, (short) -1);
            return;
        }
        String held = t.grantedBytes() == 0 ? ""
                : "; it was granted " + t.grantedBytes() + " of this core's " + t.coreLimitBytes()
                        + " bytes for incomplete frames (server.maxPartialFrameBytesPerCore)"
                        + (t.large() ? " and " + turn : "");
        log.warn("{}: slow client: {} byte(s) of an incomplete frame {}, the first of them {} ms ago "
                + "(server.partialFrameTimeoutMs = {}){}; closing", describe, t.bufferedBytes(), frame, ageMillis,
                timeoutMillis, held);
        metrics.connectionError(SessionMetrics.SessionError.SLOW_CLIENT, (short) -1);
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
