package dev.idempotentrelay.wire;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One WARN line for a channel connection whose TLS failed, naming the address and the reason: a handshake that
 * failed (no client certificate, one from another CA, a plain TCP client, an old TLS version, a client gone in the
 * middle of it), or a TLS error later.
 * camel-netty's SSL handler has already closed such a connection. The exception the failure raised goes no further
 * down the pipeline: camel-netty would log it once more with a stack trace and, for a plain TCP client, the hex
 * of the bytes it sent, the telegram's account numbers included. Every other exception passes on untouched.
 * Shared by all connections; on a plain TCP port it sees nothing.
 */
@ChannelHandler.Sharable
public class TlsFailureLogger extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(TlsFailureLogger.class);

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        // a handshake cut short by the relay's own close (the allow list, the connection cap, a stop) is no TLS
        // failure: whoever closed the connection logged why
        if (event instanceof SslHandshakeCompletionEvent handshake && !handshake.isSuccess() && tlsCause(handshake.cause()) != null) {
            LOG.warn("closing the connection from {}: TLS handshake failed: {}", ctx.channel().remoteAddress(), reason(handshake.cause()));
        }
        super.userEventTriggered(ctx, event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
        SSLException tls = tlsCause(cause);
        if (tls == null) {
            super.exceptionCaught(ctx, cause);
            return;
        }
        if (!handshakeFailed(ctx)) {
            LOG.warn("closing the connection from {}: TLS failed: {}", ctx.channel().remoteAddress(), reason(tls));
        }
        ctx.close();
    }

    private static boolean handshakeFailed(ChannelHandlerContext ctx) {
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        return ssl != null && ssl.handshakeFuture().isDone() && !ssl.handshakeFuture().isSuccess();
    }

    private static SSLException tlsCause(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof SSLException ssl) {
                return ssl;
            }
        }
        return null;
    }

    /** Why, in words that carry no bytes of what the client sent. */
    private static String reason(Throwable cause) {
        SSLException tls = tlsCause(cause);
        if (tls instanceof NotSslRecordException) {
            return "what arrived is not TLS (a plain TCP client?)";
        }
        Throwable shown = tls != null ? tls : cause;
        return shown.getMessage() == null ? shown.getClass().getSimpleName() : shown.getMessage();
    }
}
