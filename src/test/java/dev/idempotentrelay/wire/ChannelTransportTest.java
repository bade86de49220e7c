package dev.idempotentrelay.wire;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.epoll.Epoll;
import org.apache.camel.component.netty.NettyComponent;
import org.junit.jupiter.api.Test;

/**
 * The channel listener's transport as camel-netty gets it: epoll when asked for on a machine that has it (Linux on
 * x86_64, as this build's), else NIO. The channel path's tests (ChannelPathTest and the rest) run on it; CrashRecoveryIT
 * checks that the jar itself starts on epoll.
 */
class ChannelTransportTest {

    @Test
    void notAskedForNio() {
        NettyComponent netty = new NettyComponent();
        ChannelTransport.configure(netty, false);
        assertFalse(netty.getConfiguration().isNativeTransport());
    }

    @Test
    void askedForEpollOnLinuxX86() {
        assumeTrue(ChannelTransport.epollMachine(), "not Linux on x86_64: " + System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        assertTrue(Epoll.isAvailable(), () -> "netty's epoll library does not load: " + Epoll.unavailabilityCause());
        NettyComponent netty = new NettyComponent();
        ChannelTransport.configure(netty, true);
        assertTrue(netty.getConfiguration().isNativeTransport());
    }
}
