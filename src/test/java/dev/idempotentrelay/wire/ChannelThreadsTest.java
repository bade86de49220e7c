package dev.idempotentrelay.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.camel.component.netty.NettyComponent;
import org.apache.camel.util.concurrent.ThreadType;
import org.junit.jupiter.api.Test;

/**
 * The channel listener's threads as camel-netty gets them: an OS thread per connection up to relay.max-in-flight,
 * with no hand-off, unless virtual threads are asked for and this JDK is 24 or later: then an event loop per core
 * and an ordered executor of virtual threads, relay.max-in-flight of them. (On the JDK that runs the build, 17, a
 * relay asked for virtual threads must run as without them; the launcher's JDK 25 is covered by CrashRecoveryIT.)
 */
class ChannelThreadsTest {

    @Test
    void notAskedForAnOsThreadPerConnection() {
        NettyComponent netty = new NettyComponent();
        ChannelThreads.configure(netty, false, 48);
        assertEquals(48, netty.getConfiguration().getWorkerCount());
        assertFalse(netty.getConfiguration().isUsingExecutorService());
    }

    @Test
    void askedForVirtualThreadsOnJdk24AndLaterElseAnOsThreadPerConnection() {
        NettyComponent netty = new NettyComponent();
        ChannelThreads.configure(netty, true, 48);
        if (Runtime.version().feature() >= ChannelThreads.FIRST_JDK) {
            assertEquals(Runtime.getRuntime().availableProcessors(), netty.getConfiguration().getWorkerCount());
            assertTrue(netty.getConfiguration().isUsingExecutorService());
            assertEquals(48, netty.getMaximumPoolSize());
            assertEquals(ThreadType.VIRTUAL, ThreadType.current());
        } else {
            assertEquals(48, netty.getConfiguration().getWorkerCount());
            assertFalse(netty.getConfiguration().isUsingExecutorService());
            assertEquals(ThreadType.PLATFORM, ThreadType.current());
        }
    }
}
