package dev.idempotentrelay.wire;

import io.netty.channel.ChannelHandler;
import org.apache.camel.component.netty.DefaultChannelHandlerFactory;

/** Gives every channel connection its own {@link FrameDecoder}: decoders keep state and are not sharable. */
public class FrameDecoderFactory extends DefaultChannelHandlerFactory {

    @Override
    public ChannelHandler newChannelHandler() {
        return new FrameDecoder();
    }
}
