package dev.idempotentrelay.wire;

import org.apache.camel.component.netty.NettyComponent;
import org.apache.camel.util.concurrent.ThreadType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads the channel listener runs its transfers on (relay.channel.virtual-threads).
 * <p>
 * <b>Virtual</b> (the property true, on JDK 24 and later): netty reads and writes every connection on one event loop
 * per core, and each connection's transfers run on a virtual thread of that connection's own (camel-netty's executor
 * group, ordered per connection, made by Camel's thread factory once Camel's virtual-thread switch is on). A transfer
 * that waits for a ledger commit or for the core then holds no OS thread: the few OS threads underneath stay busy and
 * switch far less than one OS thread per connection, each of which sleeps and wakes some four times per transfer.
 * JDK 24 is the first whose virtual threads do not hold their OS thread while blocked inside {@code synchronized}
 * (JEP 491): HikariCP, sqlite-jdbc and the logging take such locks.
 * <p>
 * <b>Platform</b> (the property false, or JDK 17 to 23): a transfer runs on the I/O thread of its connection, one per
 * connection up to relay.max-in-flight, blocking calls included, with no hand-off to a second pool.
 * <p>
 * Either way at most relay.max-in-flight transfers run at once; connections beyond that share.
 */
public final class ChannelThreads {

    private static final Logger LOG = LoggerFactory.getLogger(ChannelThreads.class);

    /** The first JDK whose virtual threads are not pinned by {@code synchronized} (JEP 491). */
    static final int FIRST_JDK = 24;

    private ChannelThreads() {
    }

    /**
     * Sets the listener's threads on camel-netty, before its consumer starts, and says which in one line: virtual
     * threads when {@code asked} and this JDK has them unpinned, turning on Camel's virtual threads for the thread
     * pools made from now on (its executor group among them); else an OS thread per connection.
     */
    public static void configure(NettyComponent netty, boolean asked, int maxInFlight) {
        int jdk = Runtime.version().feature();
        if (asked && jdk >= FIRST_JDK) {
            ThreadType.enable();
            int eventLoops = Runtime.getRuntime().availableProcessors();
            netty.getConfiguration().setWorkerCount(eventLoops);
            netty.getConfiguration().setUsingExecutorService(true);
            netty.setMaximumPoolSize(maxInFlight);
            LOG.info("channel threads: a virtual thread per connection, up to {} at once, behind {} event loop(s) (JDK {})",
                    maxInFlight, eventLoops, jdk);
        } else {
            netty.getConfiguration().setWorkerCount(maxInFlight);
            netty.getConfiguration().setUsingExecutorService(false);
            LOG.info("channel threads: an OS thread per connection, up to {} at once (JDK {}; {})", maxInFlight, jdk,
                    asked ? "virtual threads need JDK " + FIRST_JDK + " or later" : "relay.channel.virtual-threads is false");
        }
    }
}
