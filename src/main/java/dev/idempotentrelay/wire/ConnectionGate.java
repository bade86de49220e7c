package dev.idempotentrelay.wire;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admits channel connections: at most {@code maxConnections} open at once (one more is closed at
 * once, with a WARN line), and none while the relay drains for a graceful stop. Draining closes every
 * connection that waits for nothing, and every other one as soon as its last reply is written, so that
 * calls in flight finish, are recorded and answered, and nothing new comes in.
 */
@ChannelHandler.Sharable
public class ConnectionGate extends ChannelDuplexHandler {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionGate.class);

    private final Set<Channel> open = ConcurrentHashMap.newKeySet();
    private final AtomicLong refused = new AtomicLong();
    private volatile int maxConnections = 512;
    private volatile boolean draining;
    private final CompletableFuture<Void> drained = new CompletableFuture<>();

    public void setMaxConnections(int maxConnections) {
        this.maxConnections = maxConnections;
    }

    public int getMaxConnections() {
        return maxConnections;
    }

    /** Connections refused since start because the cap was reached. */
    public long refused() {
        return refused.get();
    }

    public int openConnections() {
        return open.size();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        Channel channel = ctx.channel();
        if (draining) {
            ctx.close();
            return;
        }
        open.add(channel);
        if (open.size() > maxConnections) {
            open.remove(channel);
            long n = refused.incrementAndGet();
            LOG.warn("connection limit of {} reached: closing the connection from {} ({} refused since start)",
                    maxConnections, channel.remoteAddress(), n);
            ctx.close();
            return;
        }
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        open.remove(ctx.channel());
        settleDrain();
        super.channelInactive(ctx);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (draining) {
            promise.addListener((ChannelFutureListener) written -> {
                if (!AwaitingReply.any(written.channel())) {
                    written.channel().close();
                }
            });
        }
        super.write(ctx, msg, promise);
    }

    /**
     * Stops admitting connections and closes those that wait for no reply; the others close after their last
     * reply. The future completes once every connection is closed.
     */
    public CompletableFuture<Void> drain() {
        draining = true;
        for (Channel channel : open) {
            if (!AwaitingReply.any(channel)) {
                channel.close();
            }
        }
        settleDrain();
        return drained;
    }

    /** True once every connection is closed. */
    public boolean drained() {
        return open.isEmpty();
    }

    private void settleDrain() {
        if (draining && open.isEmpty()) {
            drained.complete(null);
        }
    }
}
