package dev.idempotentrelay.wire;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many requests of one connection are waiting for their reply: counted up by the decoder when a
 * message is complete, down by the encoder when its reply is written. A connection that waits for
 * a reply is never idle: the relay, not the channel, is the one taking its time.
 */
final class AwaitingReply {

    private static final AttributeKey<AtomicInteger> COUNT = AttributeKey.valueOf("idempotent-relay.awaiting-reply");

    private AwaitingReply() {
    }

    static void requestDecoded(Channel channel) {
        count(channel).incrementAndGet();
    }

    static void replyWritten(Channel channel) {
        count(channel).updateAndGet(n -> Math.max(0, n - 1));
    }

    static boolean any(Channel channel) {
        AtomicInteger n = channel.attr(COUNT).get();
        return n != null && n.get() > 0;
    }

    private static AtomicInteger count(Channel channel) {
        AtomicInteger n = channel.attr(COUNT).get();
        if (n == null) {
            AtomicInteger fresh = new AtomicInteger();
            n = channel.attr(COUNT).setIfAbsent(fresh);
            if (n == null) {
                n = fresh;
            }
        }
        return n;
    }
}
