package dev.idempotentrelay.wire;

import io.netty.channel.ChannelHandler;
import org.apache.camel.component.netty.DefaultChannelHandlerFactory;

/** Gives every channel connection its own {@link IdleConnectionCloser} (it keeps per-connection timers). */
public class IdleConnectionCloserFactory extends DefaultChannelHandlerFactory {

    private long idleTimeoutMs = 30_000;

    public void setIdleTimeoutMs(long idleTimeoutMs) {
        this.idleTimeoutMs = idleTimeoutMs;
    }

    @Override
    public ChannelHandler newChannelHandler() {
        return new IdleConnectionCloser(idleTimeoutMs);
    }
}
