package dev.idempotentrelay.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

/** Writes a reply message ({@code byte[]}) with its four-ASCII-digit length prefix. */
@ChannelHandler.Sharable
public class FrameEncoder extends MessageToByteEncoder<byte[]> {

    @Override
    protected void encode(ChannelHandlerContext ctx, byte[] message, ByteBuf out) {
        out.writeBytes(Frames.prefix(message.length));
        out.writeBytes(message);
        AwaitingReply.replyWritten(ctx.channel());
    }
}
