package dev.idempotentrelay.wire;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a channel connection that sent nothing for the idle timeout: one that idles, and one that
 * stalls halfway through a frame. A connection waiting for its reply is left alone. One per connection.
 */
public class IdleConnectionCloser extends IdleStateHandler {

    private static final Logger LOG = LoggerFactory.getLogger(IdleConnectionCloser.class);
    private final long idleTimeoutMs;

    public IdleConnectionCloser(long idleTimeoutMs) {
        super(idleTimeoutMs, 0, 0, TimeUnit.MILLISECONDS);
        this.idleTimeoutMs = idleTimeoutMs;
    }

    @Override
    protected void channelIdle(ChannelHandlerContext ctx, IdleStateEvent event) {
        if (!AwaitingReply.any(ctx.channel())) {
            LOG.info("closing the connection from {}: nothing received for {} ms", ctx.channel().remoteAddress(), idleTimeoutMs);
            ctx.close();
        }
    }
}
