package dev.idempotentrelay.wire;

import io.netty.channel.epoll.Epoll;
import org.apache.camel.component.netty.NettyComponent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The channel listener's socket transport (relay.channel.epoll): netty's own epoll transport where this machine has
 * it (Linux on x86_64, its native library from the jar), else the JDK's NIO. Epoll reads and writes a connection with
 * fewer system calls and less work per wake-up than NIO's selector; either carries the same bytes. A line at start
 * says which, and why not epoll when it was asked for.
 */
public final class ChannelTransport {

    private static final Logger LOG = LoggerFactory.getLogger(ChannelTransport.class);

    private ChannelTransport() {
    }

    /** Whether this is a machine the jar carries netty's epoll library for: Linux on x86_64. */
    public static boolean epollMachine() {
        return System.getProperty("os.name", "").startsWith("Linux") && System.getProperty("os.arch", "").equals("amd64");
    }

    /** Sets camel-netty's native transport, before its consumer starts: epoll when {@code asked} and available. */
    public static void configure(NettyComponent netty, boolean asked) {
        boolean epoll = asked && Epoll.isAvailable();
        netty.getConfiguration().setNativeTransport(epoll);
        if (epoll) {
            LOG.info("channel transport: epoll (netty's native transport)");
        } else {
            LOG.info("channel transport: NIO ({})", asked ? "epoll is not available here: " + Epoll.unavailabilityCause()
                    : "relay.channel.epoll is false");
        }
    }
}
